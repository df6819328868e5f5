// The withdrawals queue with a real payout adapter (Wise, against its local fake): a payout Wise left unfunded (our
// balance was short) is approved by finance once the balance is topped up and paid through the same transfer; two
// approvals at once fund it once; the process killed in the middle of an approval (Wise funded, its answer lost)
// pays it exactly once after the restart.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WiseRail } from '../src/modules/payments/payouts/wise.ts';
import { checkLedger } from '../src/modules/wallet/reconcile.ts';
import { JOB_BANK_PAYOUT } from '../src/modules/wallet/bank-payouts.ts';
import { build, type Built } from './helper.ts';
import { callerConsoles, type Caller } from './ops/callers.ts';
import { OpsConsole } from './ops/console.ts';
import { fundedRider } from './ops/withdrawals.ts';
import { FakeWise } from './providers/wise.ts';

const API = '/cdb-app-api/v1/app';
let wise: FakeWise;
const rail = (f?: typeof fetch) =>
  new WiseRail({ apiToken: 'wise-live-token', profileId: '7654321', apiBase: wise.url }, f);

beforeAll(async () => {
  wise = await new FakeWise('wise-live-token', 7654321, { EUR: 0 }).start();
});
afterAll(() => wise.stop());

/** A SEPA withdrawal of agent A that Wise could not fund (our balance short): awaiting payout on the Wise transfer. */
async function unfunded(b: Built, euros: number) {
  const { token } = await fundedRider(b.app, b.clock, 'agent-a', euros * 100);
  const r = await b.app.inject({
    method: 'POST',
    url: `${API}/cdb/mine/tixian/create`,
    headers: { token, 'idempotency-key': `q-${Date.now()}-${Math.random()}` },
    payload: {
      refundType: 1,
      amount: String(euros),
      currency: 'EUR',
      agentId: 'agent-a',
      receiverAccount: JSON.stringify({
        paymentId: 'payout-sepa',
        accountData: { accountHolder: 'Ana Silva', iban: 'LT121000011101001000', country: 'LT' },
      }),
    },
  });
  const id = r.json<{ data: { tixianOrderId: string } }>().data.tixianOrderId;
  expect(await b.app.powerly.wallet.findWithdrawal(id)).toMatchObject({
    status: 'awaiting_payout',
    provider: 'wise',
    settle_reason: 'transfer.insufficient_funds',
  });
  return id;
}
const fundingsOf = async (b: Built, id: string) => {
  const ref = (await b.app.powerly.wallet.findWithdrawal(id))?.provider_ref;
  return wise.fundings.filter((f) => String(f.transferId) === ref).length;
};

describe('approving a payout through Wise', () => {
  let b: Built;
  let consoles = new Map<Caller, OpsConsole>();
  beforeAll(async () => {
    b = await build({ simulator: false, payoutRails: [rail()] });
    consoles = await callerConsoles(b);
  });
  afterAll(() => b.close());

  it('the balance topped up, two approvals at once: one 200, one 409; the same Wise transfer funded once, then paid', async () => {
    const id = await unfunded(b, 20);
    expect((await consoles.get('financeA')!.call('GET', `/withdrawals/${id}`)).json()).toMatchObject({
      state: 'awaiting_payout',
      rail: 'wise',
      waitReason: 'transfer.insufficient_funds',
    });
    const transfers = wise.transfers.size;
    wise.balances.EUR = 1000;
    const answers = await Promise.all([
      consoles.get('financeA')!.call('POST', `/withdrawals/${id}/approve`, { reason: 'Wise balance topped up' }),
      consoles.get('adminA')!.call('POST', `/withdrawals/${id}/approve`, { reason: 'Wise balance topped up' }),
    ]);
    expect(answers.map((r) => r.statusCode).sort()).toEqual([200, 409]);
    await b.app.powerly.jobs.runDue();
    const wd = (await b.app.powerly.wallet.findWithdrawal(id))!;
    expect(wise.transfers.size).toBe(transfers); // the transfer made before, not a new one
    expect(await fundingsOf(b, id)).toBe(1);
    wise.advance(wd.provider_ref!, 'outgoing_payment_sent');
    b.clock.advance(15 * 60_000);
    await b.app.powerly.jobs.runDue();
    expect((await consoles.get('financeA')!.call('GET', `/withdrawals/${id}`)).json()).toMatchObject({
      state: 'paid',
      bankReference: `wise:${wd.provider_ref}`,
    });
    expect(await fundingsOf(b, id)).toBe(1);
    expect(await checkLedger(b.db)).toEqual([]);
  });

  it('the process is killed as Wise funds the approved payout: after the restart the job pays it exactly once', async () => {
    wise.balances.EUR = 0;
    const id = await unfunded(b, 12);
    wise.balances.EUR = 1000;
    let die = true;
    const dying: typeof fetch = async (url, init) => {
      const res = await fetch(url, init);
      if (die && String(url).endsWith('/payments')) {
        die = false;
        throw new Error('process killed');
      }
      return res;
    };
    // The first process: approves, Wise funds the transfer, and the answer is never read.
    const first = await build({ simulator: false, shareDb: b, payoutRails: [rail(dying)] });
    // The same signed-in finance person, on the first process.
    const fin = new OpsConsole(first.app);
    for (const [k, v] of consoles.get('financeA')!.jar) fin.jar.set(k, v);
    fin.csrf = consoles.get('financeA')!.csrf;
    const res = await fin.call('POST', `/withdrawals/${id}/approve`, { reason: 'Wise balance topped up' });
    expect(res.json()).toMatchObject({ state: 'pending', approvedBy: 'financeA@example.com' });
    expect(die).toBe(false);
    expect((await first.app.powerly.wallet.findWithdrawal(id))?.provider_ref).toBeNull();
    await first.close();

    // After the restart (a new process on the same database): the approval's job names the same transfer.
    const { rows } = await b.db.query<{ n: number }>(
      `select count(*)::int as n from jobs where kind = $1 and done_at is null and payload->>'withdrawalId' = $2`,
      [JOB_BANK_PAYOUT, id],
    );
    expect(rows[0]!.n).toBeGreaterThan(0);
    await b.app.powerly.jobs.runDue();
    const wd = (await b.app.powerly.wallet.findWithdrawal(id))!;
    expect(await fundingsOf(b, id)).toBe(1);
    wise.advance(wd.provider_ref!, 'outgoing_payment_sent');
    b.clock.advance(15 * 60_000);
    await b.app.powerly.jobs.runDue();
    expect((await b.app.powerly.wallet.findWithdrawal(id))?.status).toBe('paid');
    expect(await fundingsOf(b, id)).toBe(1);
    expect(await checkLedger(b.db)).toEqual([]);
  });
});
