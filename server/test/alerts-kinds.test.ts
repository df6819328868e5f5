// The alerts' remaining conditions, each raised by its rule once (however often the rules run), delivered like the
// others (one delivery per target of the rule) and resolved when the condition ends: low charge across a cabinet,
// slot faults (from the cabinet's last reported inventory), a payment provider's error rate over the last hour, and
// payouts the bank or provider refused in the last day.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PAYOUT_WINDOW_MS, PROVIDER_WINDOW_MS } from '../src/modules/alerts/service.ts';
import { build, type Built } from './helper.ts';
import { signedIn } from './partners/fixtures.ts';

let b: Built;
let user = '';
beforeAll(async () => {
  b = await build({ simulator: false });
  await b.app.powerly.fleet.agents.create({
    id: 'agt-alerts',
    name: 'Alerts Agent',
    country: 'LT',
    currencies: ['EUR'],
    origins: [],
  });
  await b.db.query(`update venues set agent_id = 'agt-alerts' where id = 'v-vno-gedimino'`);
  await b.db.query(`update cabinets set agent_id = 'agt-alerts' where venue_id = 'v-vno-gedimino'`);
  user = String(
    (await b.db.query<{ id: string }>(`insert into users (kind, name) values ('tourist', 'alerts') returning id`))
      .rows[0]!.id,
  );
});
afterAll(() => b?.close());

let signIns = 0;
async function rule(agentId: string, kind: string, threshold: number) {
  const c = await signedIn(b, `watch${signIns++}@example.com`, { agentId: '*', role: 'owner', venueIds: [] });
  const res = await c.call('POST', '/alerts/rules', {
    agentId,
    kind,
    threshold,
    emails: ['ops@example.com'],
    phones: [],
    reason: 'watch it',
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json<{ id: string }>().id;
}
const alertsOf = async (ruleId: string) =>
  (
    await b.db.query<{ id: string; subject: string; state: string; detail: Record<string, unknown> }>(
      'select id::text as id, subject, state, detail from alerts where rule_id = $1 order by id',
      [ruleId],
    )
  ).rows;
const deliveries = async (alertId: string) =>
  (
    await b.db.query<{ event: string; channel: string }>(
      'select event, channel from alert_deliveries where alert_id = $1 order by id',
      [alertId],
    )
  ).rows;
/** Runs the rules twice (the second run must change nothing). */
const evaluate = async () => {
  await b.app.powerly.alerts.evaluate();
  await b.app.powerly.alerts.evaluate();
};
const inventory = (slots: object[]) =>
  b.db.query(`update cabinets set inventory = $1 where id = 'PWL-VNO-001'`, [JSON.stringify(slots)]);

describe('alerts: the remaining conditions', () => {
  it('low charge: no power bank of the cabinet charged to the threshold raises one alert; a charged one resolves it', async () => {
    const id = await rule('agt-alerts', 'low_charge', 50);
    await inventory([
      { slot: 1, powerbankId: 'PB-1', battery: 20 },
      { slot: 2, powerbankId: 'PB-2', battery: 35 },
      { slot: 3, powerbankId: null, battery: null },
    ]);
    await evaluate();
    const [a, more] = await alertsOf(id);
    expect(more).toBeUndefined();
    expect(a).toMatchObject({ subject: 'PWL-VNO-001', state: 'open', detail: { powerbanks: 2, highestCharge: 35 } });
    expect(await deliveries(a!.id)).toEqual([{ event: 'opened', channel: 'email' }]);
    await inventory([
      { slot: 1, powerbankId: 'PB-1', battery: 20 },
      { slot: 2, powerbankId: 'PB-2', battery: 90 },
    ]);
    await evaluate();
    expect((await alertsOf(id)).map((x) => x.state)).toEqual(['resolved']);
    expect(await deliveries(a!.id)).toEqual([
      { event: 'opened', channel: 'email' },
      { event: 'resolved', channel: 'email' },
    ]);
  });

  it('slot faults: as many faulty slots as the threshold raise one alert naming them; cleared faults resolve it', async () => {
    const id = await rule('agt-alerts', 'slot_faults', 2);
    await inventory([
      { slot: 1, powerbankId: 'PB-1', battery: 90, faults: ['lock_jammed'] },
      { slot: 2, powerbankId: null, battery: null },
    ]);
    await evaluate();
    expect(await alertsOf(id)).toEqual([]); // one faulty slot, the threshold is two
    await inventory([
      { slot: 1, powerbankId: 'PB-1', battery: 90, faults: ['lock_jammed'] },
      { slot: 4, powerbankId: null, battery: null, faults: ['sensor'] },
    ]);
    await evaluate();
    expect(await alertsOf(id)).toMatchObject([{ subject: 'PWL-VNO-001', state: 'open', detail: { slots: [1, 4] } }]);
    await inventory([{ slot: 1, powerbankId: 'PB-1', battery: 90, faults: [] }]);
    await evaluate();
    expect((await alertsOf(id)).map((x) => x.state)).toEqual(['resolved']);
  });

  it("provider errors: a provider declining the threshold's share of the last hour's payments raises one alert; platform rules only", async () => {
    const c = await signedIn(b, 'agentadmin@example.com', { agentId: 'agt-alerts', role: 'admin', venueIds: [] });
    const agentRule = await c.call('POST', '/alerts/rules', {
      agentId: 'agt-alerts',
      kind: 'provider_errors',
      threshold: 50,
      emails: [],
      phones: [],
      reason: 'watch it',
    });
    expect(agentRule.statusCode).toBe(400);
    const id = await rule('*', 'provider_errors', 50);
    let made = 0;
    const pay = async (n: number, status: string) => {
      await b.db.query(
        `insert into payments (id, provider, user_id, purpose, amount, currency, status, created_at, updated_at)
         select 'pe-' || g, 'sandbox', $1, 'deposit_preauth', 500, 'EUR', $2, $3, $3 from generate_series($4::int, $5::int) g`,
        [user, status, b.clock.now(), made + 1, made + n],
      );
      made += n;
    };
    await pay(5, 'declined');
    await pay(4, 'captured');
    await evaluate();
    expect(await alertsOf(id)).toEqual([]); // nine payments: too few to judge
    await pay(1, 'captured');
    await evaluate();
    expect(await alertsOf(id)).toMatchObject([
      { subject: 'sandbox', state: 'open', detail: { payments: 10, declined: 5 } },
    ]);
    b.clock.advance(PROVIDER_WINDOW_MS + 1000);
    await evaluate();
    expect((await alertsOf(id)).map((x) => x.state)).toEqual(['resolved']);
  });

  it('failed payouts: payouts the bank refused raise one alert per agent; a rejection by a person does not count', async () => {
    const id = await rule('agt-alerts', 'failed_payouts', 1);
    const { rows: accounts } = await b.db.query<{ id: string }>(
      `insert into ledger_accounts (owner_type, owner_id, kind, currency, agent_id) values ('user', $1, 'wallet', 'EUR', 'agt-alerts'), ('provider', 'wise', 'clearing', 'EUR', 'agt-alerts')
       returning id`,
      [user],
    );
    const withdrawal = async (n: number, settledBy: string) => {
      await b.db.query(
        `insert into ledger_transfers (id, debit_account_id, credit_account_id, amount, currency, flag, code, created_at) values ($1, $2, $3, 100, 'EUR', 'posted', 'withdrawal', $4)`,
        [`wd-hold-${n}`, accounts[0]!.id, accounts[1]!.id, b.clock.now()],
      );
      await b.db.query(
        `insert into withdrawals (id, user_id, agent_id, currency, amount, refund_type, status, hold_transfer_id, provider, settled_by, created_at, updated_at)
         values ($1, $2, 'agt-alerts', 'EUR', 100, 1, 'rejected', $3, 'wise', $4, $5, $5)`,
        [`wd-${n}`, user, `wd-hold-${n}`, settledBy, b.clock.now()],
      );
    };
    await withdrawal(1, 'staff:finance@example.com');
    await evaluate();
    expect(await alertsOf(id)).toEqual([]);
    await withdrawal(2, 'wise');
    await evaluate();
    expect(await alertsOf(id)).toMatchObject([{ subject: 'payouts:agt-alerts', state: 'open', detail: { failed: 1 } }]);
    b.clock.advance(PAYOUT_WINDOW_MS + 1000);
    await evaluate();
    expect((await alertsOf(id)).map((x) => x.state)).toEqual(['resolved']);
  });
});
