// Bank withdrawals with SANDBOX=off: no sandbox payout code at all. A SEPA withdrawal waits as "awaiting payout"
// when no real payout adapter is configured (an operator records the bank's reference, or rejects it: the money goes
// back through the ledger), and is paid through Wise when Wise is configured, also when the process dies mid-payout
// (the job survives the restart and the transfer is funded once).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type PowerlyApp } from '../src/app.ts';
import { stripeSettingsFromEnv } from '../src/config/stripe.ts';
import { migrate } from '../src/db/migrate.ts';
import pg from 'pg';
import { openDb, openPglite, type Db } from '../src/db/db.ts';
import { startEmbeddedBroker, type EmbeddedBroker } from '../src/mqtt/broker.ts';
import { signInSettingsFromEnv } from '../src/modules/auth/signin-config.ts';
import { MqttCabinetLink } from '../src/modules/cabinets/link.ts';
import { WeChatApi } from '../src/modules/content/wechat.ts';
import { providerOwner, userOwner } from '../src/modules/ledger/service.ts';
import { JOB_SANDBOX_PAYOUT_ARRIVAL } from '../src/modules/payments/sandbox.ts';
import { WiseRail } from '../src/modules/payments/payouts/wise.ts';
import type { BankPayoutRail } from '../src/modules/payments/payouts/rail.ts';
import { checkLedger } from '../src/modules/wallet/reconcile.ts';
import { JOB_BANK_PAYOUT } from '../src/modules/wallet/bank-payouts.ts';
import { FakeWise } from './providers/wise.ts';
import { TestClock, touristToken } from './helper.ts';

const API = '/cdb-app-api/v1/app';
const IBAN = 'LT121000011101001000';
let db: Db;
let broker: EmbeddedBroker;
let wise: FakeWise;
const clock = new TestClock();
let seq = 0;

const signIn = signInSettingsFromEnv({
  TWILIO_ACCOUNT_SID: 'AC1',
  TWILIO_AUTH_TOKEN: 't',
  TWILIO_FROM: '+1555',
  RECAPTCHA_SECRET: 's',
  GOOGLE_CLIENT_ID: 'g',
  APPLE_CLIENT_ID: 'a',
  FACEBOOK_APP_ID: 'f',
  FACEBOOK_APP_SECRET: 'fs',
  WECHAT_APP_ID: 'w',
  WECHAT_SECRET: 'ws',
  ALIPAY_APP_ID: 'al',
  ALIPAY_PRIVATE_KEY: 'pem',
});
const stripe = stripeSettingsFromEnv({
  STRIPE_SECRET_KEY: 'sk_test_1',
  STRIPE_PUBLISHABLE_KEY: 'pk_test_1',
  STRIPE_WEBHOOK_SECRET: 'whsec_1',
});

/** A production app (SANDBOX=off) on the shared database, with these payout adapters. */
async function production(payoutRails: BankPayoutRail[] = []) {
  const app = await buildApp({
    db,
    clock,
    link: new MqttCabinetLink(broker, { prefix: `bank-payouts-${++seq}`, log: console }),
    sandboxMode: 'off',
    signIn,
    wechat: new WeChatApi('w', 'ws'),
    stripe: stripe.settings,
    embedSigningKey: 'k'.repeat(32),
    rateLimits: false,
    payoutRails,
  });
  await app.ready();
  return app;
}

// PGlite, or PostgreSQL when DATABASE_URL is set (a schema of its own, dropped at the end).
const url = process.env.DATABASE_URL;
const schema = `test_bank_payouts_${process.pid}_${Date.now()}`;

beforeAll(async () => {
  db = url ? await openDb({ databaseUrl: url, schema }) : await openPglite();
  await migrate(db);
  broker = await startEmbeddedBroker({ port: null });
  wise = await new FakeWise('wise-live-token', 7654321, { EUR: 500 }).start();
});
afterAll(async () => {
  await wise.stop();
  await broker.close();
  await db.close();
  if (url) {
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    await c.query(`drop schema if exists ${schema} cascade`);
    await c.end();
  }
});

/** A rider with `euros` in their EUR wallet (credited through the ledger, as any top-up is). */
async function rider(app: PowerlyApp, euros: number) {
  const token = await touristToken(app, `bank${++seq}`);
  const user = await app.powerly.auth.authenticate(token);
  const l = app.powerly.ledger;
  await l.transfer({
    debit: await l.account(providerOwner('test-topups'), 'clearing', 'EUR'),
    credit: await l.account(userOwner(user.id), 'wallet', 'EUR'),
    amount: euros * 100,
    code: 'wallet_topup',
    orderId: null,
    at: clock.now(),
  });
  clock.advance(1000); // the movements list is newest first
  return { token, user };
}

const sepa = (app: PowerlyApp, token: string, amount: string, iban = IBAN) =>
  app.inject({
    method: 'POST',
    url: `${API}/cdb/mine/tixian/create`,
    headers: { token, 'idempotency-key': `k${++seq}` },
    payload: {
      refundType: 1,
      amount,
      currency: 'EUR',
      receiverAccount: JSON.stringify({
        paymentId: 'payout-sepa',
        accountData: { accountHolder: 'Ana Silva', iban, country: 'LT' },
      }),
    },
  });
const list = async (app: PowerlyApp, token: string) =>
  (await app.inject({ method: 'GET', url: `${API}/cdb/user/wallet/list?currency=EUR`, headers: { token } }))
    .json()
    .data.page.records.map((m: { type: string; amount: number; status: string }) => [m.type, m.amount, m.status]);

describe('SANDBOX=off without a payout adapter', () => {
  it('registers no sandbox payout code; a SEPA withdrawal leaves the wallet and waits as awaiting payout', async () => {
    const app = await production();
    try {
      expect(
        (app.powerly.jobs as unknown as { handlers: Map<string, unknown> }).handlers.has(JOB_SANDBOX_PAYOUT_ARRIVAL),
      ).toBe(false);
      expect(app.powerly.wallet.withdrawals.bank.railIds()).toEqual([]);
      const { token, user } = await rider(app, 50);
      const r = await sepa(app, token, '20');
      expect(r.json()).toMatchObject({ code: 0, data: { pBalance: 30, status: 'awaiting_payout' } });
      const id = r.json().data.tixianOrderId;
      await app.powerly.jobs.runDue();
      expect(await app.powerly.wallet.findWithdrawal(id)).toMatchObject({
        status: 'awaiting_payout',
        bank: true,
        provider: null,
        provider_ref: null,
      });
      expect(await list(app, token)).toEqual([
        ['withdrawal', -20, 'awaiting_payout'],
        ['wallet_topup', 50, 'done'],
      ]);
      // The money is in payouts in transit, not in any provider's clearing.
      expect(await checkLedger(db)).toEqual([]);

      // An operator pays it by bank transfer and records the reference: once, idempotently.
      const paid = await app.powerly.wallet.recordManualPayout(
        id,
        'SEPA-REF-2026-001',
        'ops@powerly',
        'paid from the EUR account',
      );
      expect(paid).toMatchObject({ status: 'paid', bank_reference: 'SEPA-REF-2026-001', settled_by: 'ops@powerly' });
      expect(
        (await app.powerly.wallet.recordManualPayout(id, 'SEPA-REF-2026-001', 'ops@powerly')).settle_transfer_id,
      ).toBe(paid.settle_transfer_id);
      await expect(app.powerly.wallet.recordManualPayout(id, 'ANOTHER-REF', 'ops@powerly')).rejects.toMatchObject({
        code: 409,
      });
      await expect(app.powerly.wallet.rejectPayout(id, 'too late', 'ops@powerly')).rejects.toMatchObject({ code: 409 });
      await expect(app.powerly.wallet.recordManualPayout(id, ' ', 'ops@powerly')).rejects.toMatchObject({ code: 400 });
      expect((await app.powerly.wallet.walletOf(user.id, 'EUR')).balance).toBe(3000);
      expect(await list(app, token)).toEqual([
        ['withdrawal', -20, 'paid'],
        ['wallet_topup', 50, 'done'],
      ]);

      // Another is rejected: the money goes back to the wallet through the ledger, once.
      clock.advance(1000);
      const r2 = await sepa(app, token, '10');
      const id2 = r2.json().data.tixianOrderId;
      clock.advance(1000);
      const [a, b] = await Promise.all([
        app.powerly.wallet.rejectPayout(id2, 'account closed at the bank', 'ops@powerly'),
        app.powerly.wallet.rejectPayout(id2, 'account closed at the bank', 'ops@powerly'),
      ]);
      expect(a.settle_transfer_id).toBe(b.settle_transfer_id);
      expect(a).toMatchObject({ status: 'rejected', settle_reason: 'account closed at the bank' });
      expect((await app.powerly.wallet.walletOf(user.id, 'EUR')).balance).toBe(3000);
      expect((await list(app, token)).slice(0, 2)).toEqual([
        ['withdrawal_reversal', 10, 'done'],
        ['withdrawal', -10, 'rejected'],
      ]);
      expect(await app.powerly.wallet.withdrawals.bank.awaiting()).toEqual([]);
      expect(await checkLedger(db)).toEqual([]);
    } finally {
      await app.close();
    }
  });
});

describe('SANDBOX=off with Wise configured', () => {
  it('pays a SEPA withdrawal through Wise: the reference is the transfer, paid once Wise has sent it', async () => {
    const app = await production([
      new WiseRail({ apiToken: 'wise-live-token', profileId: '7654321', apiBase: wise.url }),
    ]);
    try {
      const { token, user } = await rider(app, 40);
      const r = await sepa(app, token, '25');
      expect(r.json()).toMatchObject({ code: 0, data: { pBalance: 15, status: 'pending' } });
      const id = r.json().data.tixianOrderId;
      const wd = (await app.powerly.wallet.findWithdrawal(id))!;
      expect(wd).toMatchObject({ status: 'pending', provider: 'wise', provider_ref: expect.any(String) });
      expect(wise.fundings.filter((f) => String(f.transferId) === wd.provider_ref)).toHaveLength(1);
      await app.powerly.jobs.runDue(); // processing at Wise: asked again later
      expect((await app.powerly.wallet.findWithdrawal(id))?.status).toBe('pending');
      wise.advance(wd.provider_ref!, 'outgoing_payment_sent');
      clock.advance(15 * 60_000);
      await app.powerly.jobs.runDue();
      expect(await app.powerly.wallet.findWithdrawal(id)).toMatchObject({
        status: 'paid',
        bank_reference: `wise:${wd.provider_ref}`,
        settled_by: 'wise',
      });
      expect((await app.powerly.wallet.walletOf(user.id, 'EUR')).balance).toBe(1500);
      // An operator cannot record a payout Wise is paying or has paid.
      await expect(app.powerly.wallet.recordManualPayout(id, 'X', 'ops')).rejects.toMatchObject({ code: 409 });
      expect(await checkLedger(db)).toEqual([]);
    } finally {
      await app.close();
    }
  });

  it('the process dies after Wise funded the transfer: after the restart the job finds the same transfer and never funds it again', async () => {
    let dieAfterFunding = true;
    // The process "dies" as Wise's funding answer arrives: the request was made, its answer never read.
    const dying: typeof fetch = async (url, init) => {
      const res = await fetch(url, init);
      if (dieAfterFunding && String(url).endsWith('/payments')) {
        dieAfterFunding = false;
        throw new Error('process killed');
      }
      return res;
    };
    const before = wise.fundings.length;
    const first = await production([
      new WiseRail({ apiToken: 'wise-live-token', profileId: '7654321', apiBase: wise.url }, dying),
    ]);
    const { token, user } = await rider(first, 30);
    const r = await sepa(first, token, '12.50');
    expect(r.json()).toMatchObject({ code: 0, data: { status: 'pending' } });
    const id = r.json().data.tixianOrderId;
    expect((await first.powerly.wallet.findWithdrawal(id))?.provider_ref).toBeNull(); // its answer was lost
    expect(wise.fundings.length).toBe(before + 1); // but Wise had funded the transfer
    await first.close();

    // A new process on the same database: the job is still there and pays through the same transfer.
    const second = await production([
      new WiseRail({ apiToken: 'wise-live-token', profileId: '7654321', apiBase: wise.url }),
    ]);
    try {
      const { rows } = await db.query<{ n: number }>(
        `select count(*)::int as n from jobs where kind = $1 and done_at is null`,
        [JOB_BANK_PAYOUT],
      );
      expect(rows[0]!.n).toBeGreaterThan(0);
      await second.powerly.jobs.runDue();
      const wd = (await second.powerly.wallet.findWithdrawal(id))!;
      expect(wd.provider_ref).toBe(String(wise.fundings[before]!.transferId));
      expect(wise.fundings.length).toBe(before + 1); // funded once
      wise.advance(wd.provider_ref!, 'outgoing_payment_sent');
      clock.advance(15 * 60_000);
      await second.powerly.jobs.runDue();
      await second.powerly.jobs.runDue();
      expect((await second.powerly.wallet.findWithdrawal(id))?.status).toBe('paid');
      expect(wise.fundings.length).toBe(before + 1);
      expect((await second.powerly.wallet.walletOf(user.id, 'EUR')).balance).toBe(1750);
      expect(await checkLedger(db)).toEqual([]);
    } finally {
      await second.close();
    }
  });

  it('Wise refuses the account: the withdrawal is rejected and the money is back; a short Wise balance waits for an operator', async () => {
    const app = await production([
      new WiseRail({ apiToken: 'wise-live-token', profileId: '7654321', apiBase: wise.url }),
    ]);
    try {
      const { token, user } = await rider(app, 1000);
      const bad = await sepa(app, token, '10', 'LT121000011101001001');
      expect(await app.powerly.wallet.findWithdrawal(bad.json().data.tixianOrderId)).toMatchObject({
        status: 'rejected',
        failure_code: 'NOT_VALID',
      });
      expect((await app.powerly.wallet.walletOf(user.id, 'EUR')).balance).toBe(100_000);
      const big = await sepa(app, token, '900'); // more than the Wise balance holds
      const wd = (await app.powerly.wallet.findWithdrawal(big.json().data.tixianOrderId))!;
      expect(wd).toMatchObject({
        status: 'awaiting_payout',
        settle_reason: 'transfer.insufficient_funds',
        provider_ref: expect.any(String),
      });
      expect((await app.powerly.wallet.withdrawals.bank.awaiting()).map((w) => w.id)).toContain(wd.id);
      expect(await checkLedger(db)).toEqual([]);
    } finally {
      await app.close();
    }
  });
});
