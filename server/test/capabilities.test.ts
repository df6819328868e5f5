// Every money path asks payments what the provider can do (its capability flags), never assumes: a provider that
// lacks off-session charging, partial capture, refunds or payouts gets the documented fallback or a clear 422,
// and is not asked for what it cannot do. Each case turns one flag off on the sandbox card provider.
import { afterEach, describe, expect, it } from 'vitest';
import { MINUTE_MS } from '#core/pricing.ts';
import type { PowerlyApp } from '../src/app.ts';
import { uuid } from '../src/lib/ids.ts';
import { NotSupported, type AuthorizeInput, type Capabilities } from '../src/modules/payments/provider.ts';
import { JOB_CHARGE_EXTRA, JOB_HOLD_EXPIRY } from '../src/modules/rentals/service.ts';
import { build, cardToken, ledgerBalanced, markHeardFrom, touristToken, type Built } from './helper.ts';

const API = '/cdb-app-api/v1/app';
const HOUR = 60 * MINUTE_MS;
const DAY = 24 * HOUR;

const open: Built[] = [];
afterEach(async () => {
  while (open.length) await open.pop()!.close();
});

/** A fresh app whose sandbox card provider lacks `flag`; its authorisations are counted. */
async function lacking(flag: keyof Capabilities) {
  const b = await build({ simulator: false });
  open.push(b);
  (b.sandbox.capabilities as Capabilities)[flag] = false;
  const calls: AuthorizeInput[] = [];
  const authorize = b.sandbox.authorize.bind(b.sandbox);
  b.sandbox.authorize = (input) => {
    calls.push(input);
    return authorize(input);
  };
  return { b, calls };
}

const detail = async (app: PowerlyApp, token: string, orderId: string) =>
  (
    await app.inject({ method: 'GET', url: `${API}/cdb/mine/order/detail?orderId=${orderId}`, headers: { token } })
  ).json().data;
const event = (app: PowerlyApp, cabinetId: string, e: Record<string, unknown>) =>
  app.powerly.cabinets.event(cabinetId, { v: 2, id: uuid(), ...e } as never);

/** A card-paid rental at `qrcode`, popped: its order, power bank and the deposit's payment row. */
async function rentedOut(b: Built, qrcode: string) {
  await markHeardFrom(b, [qrcode]);
  const token = await touristToken(b.app);
  const res = await b.app.inject({
    method: 'POST',
    url: `${API}/cdb/cabinet/useDepositToRent`,
    headers: { token },
    payload: { qrcode, stripeToken: await cardToken(b.app), paymentId: 'card-sandbox' },
  });
  expect(res.json().code, res.body).toBe(0);
  const tradeNo: string = res.json().data.outTradeNo;
  const { rows } = await b.db.query<{ eject_command_id: string; payload: { slot: number } }>(
    'select o.eject_command_id, c.payload from orders o join cabinet_commands c on c.id = o.eject_command_id where o.id = $1',
    [tradeNo],
  );
  const slot = rows[0]!.payload.slot;
  const { rows: banks } = await b.db.query<{ id: string }>(
    'select id from powerbanks where cabinet_id = $1 and slot = $2',
    [qrcode, slot],
  );
  const powerbankId = banks[0]!.id;
  await event(b.app, qrcode, {
    ts: b.clock.now().toISOString(),
    type: 'popped',
    commandId: rows[0]!.eject_command_id,
    slot,
    powerbankId,
  });
  return { token, tradeNo, powerbankId, slot };
}

const jobOf = async (b: Built, kind: string, orderId: string) =>
  Number(
    (
      await b.db.query<{ id: number }>(
        `select id from jobs where kind = $1 and payload->>'orderId' = $2 order by id desc limit 1`,
        [kind, orderId],
      )
    ).rows[0]!.id,
  );
const paymentsOf = async (b: Built, orderId: string) =>
  (
    await b.db.query<{ id: string; purpose: string; status: string }>(
      'select id, purpose, status from payments where order_id = $1 order by created_at',
      [orderId],
    )
  ).rows;

describe('off-session charges ask payments for the capability', () => {
  it('a provider without offSession is refused a merchant-initiated charge with a 422 naming it, before any call', async () => {
    const { b, calls } = await lacking('offSession');
    const provider = b.app.powerly.payments.providerById('sandbox');
    const err = await provider
      .authorize({
        token: await cardToken(b.app),
        amount: 500,
        currency: 'EUR',
        capture: 'automatic',
        idempotencyKey: 'x1',
        userId: 1,
        offSession: true,
      })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NotSupported);
    expect(err).toMatchObject({ code: 422, key: 'error.notSupported.offSession' });
    expect(calls).toHaveLength(0);
  });

  it('hold renewal: without offSession the hold about to lapse is captured (the fallback), the card is not asked', async () => {
    const { b, calls } = await lacking('offSession');
    const { tradeNo } = await rentedOut(b, 'PWL-VNO-001');
    await b.db.query(`update orders set plan = jsonb_set(plan, '{overtimeDays}', '30') where id = $1`, [tradeNo]);
    await b.db.query(
      `update jobs set run_at = run_at + interval '28 days' where kind = 'rental.overtime-buy-out' and payload->>'orderId' = $1`,
      [tradeNo],
    );
    const before = calls.length;
    b.clock.advance(6 * DAY + MINUTE_MS);
    expect(await b.app.powerly.jobs.runNow(await jobOf(b, JOB_HOLD_EXPIRY, tradeNo))).toBe(true);
    expect(calls.slice(before)).toEqual([]);
    const pays = await paymentsOf(b, tradeNo);
    expect(pays).toHaveLength(1);
    expect(pays[0]).toMatchObject({ purpose: 'deposit_preauth', status: 'captured' });
    await ledgerBalanced(b.app);
  });

  it('rent above the hold (and so an overtime buy-out above it): without offSession it is a debt paid in the app', async () => {
    const { b, calls } = await lacking('offSession');
    const { token, tradeNo, powerbankId, slot } = await rentedOut(b, 'PWL-VNO-001');
    await b.db.query(
      `update orders set plan = plan || '{"deposit": 0, "dailyCap": 2000, "unitPrice": 2000, "overtimeDays": 30}'::jsonb where id = $1`,
      [tradeNo],
    );
    b.clock.advance(2 * DAY - HOUR);
    await event(b.app, 'PWL-VNO-001', { ts: b.clock.now().toISOString(), type: 'returned', slot, powerbankId });
    const fee = Math.round((await detail(b.app, token, tradeNo)).pJiesuan * 100);
    expect(fee).toBeGreaterThan(2500);
    const before = calls.length;
    expect(await b.app.powerly.jobs.runNow(await jobOf(b, JOB_CHARGE_EXTRA, tradeNo))).toBe(true);
    expect(calls.slice(before)).toEqual([]);
    expect(Math.round((await detail(b.app, token, tradeNo)).debtAmount * 100)).toBe(fee - 2500);
    expect((await paymentsOf(b, tradeNo)).find((p) => p.purpose === 'rent_extra')).toMatchObject({
      status: 'declined',
    });
    await ledgerBalanced(b.app);
  });
});

describe('holds and partial capture ask payments for the capability', () => {
  it('a card provider without partial capture is not used to hold a deposit: the deposit is paid into the wallet', async () => {
    const { b, calls } = await lacking('partialCapture');
    expect(b.app.powerly.payments.methodHolds('card-sandbox')).toBe(false);
    const { tradeNo } = await rentedOut(b, 'PWL-VNO-001');
    expect(calls.map((c) => c.capture)).toEqual(['automatic']);
    const { rows } = await b.db.query<{ purpose: string; status: string }>(
      `select purpose, status from payments where user_id = (select user_id from orders where id = $1)`,
      [tradeNo],
    );
    expect(rows).toEqual([{ purpose: 'deposit_topup', status: 'captured' }]);
    await ledgerBalanced(b.app);
  });

  it('a partial capture a provider cannot make is refused (422), the provider is not asked', async () => {
    const { b } = await lacking('partialCapture');
    (b.sandbox.capabilities as Capabilities).partialCapture = true;
    const { tradeNo } = await rentedOut(b, 'PWL-VNO-001');
    const [pay] = await paymentsOf(b, tradeNo);
    expect(pay).toMatchObject({ purpose: 'deposit_preauth', status: 'authorized' });
    (b.sandbox.capabilities as Capabilities).partialCapture = false;
    const capture = b.sandbox.capture.bind(b.sandbox);
    let captures = 0;
    b.sandbox.capture = (...a) => {
      captures++;
      return capture(...a);
    };
    const err = await b.app.powerly.payments.settleAuthorization(pay!.id, 100).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 422, key: 'error.notSupported.partialCapture' });
    expect(captures).toBe(0);
    expect((await paymentsOf(b, tradeNo))[0]).toMatchObject({ status: 'authorized' });
  });
});

describe('a provider that is gone', () => {
  it('removing a saved card of a provider no longer configured takes it off the list, never a 500', async () => {
    const b = await build({ simulator: false });
    open.push(b);
    const token = await touristToken(b.app);
    const { rows } = await b.db.query<{ user_id: number }>(
      'select user_id from sessions order by created_at desc limit 1',
    );
    await b.db.query(
      `insert into saved_cards (id, user_id, agent_id, provider, payment_method_ref, method_id, brand, last4, currency, created_at)
       values ('card_gone', $1, 'powerly', 'stripe.gone', 'pm_gone', 'stripe.gone:STRIPE_CARD', 'visa', '4242', 'EUR', now())`,
      [rows[0]!.user_id],
    );
    const res = await b.app.inject({ method: 'GET', url: `${API}/cdb/user/card/remove/card_gone`, headers: { token } });
    expect([res.statusCode, res.json().code], res.body).toEqual([200, 0]);
    const { rows: left } = await b.db.query('select id from saved_cards where id = $1 and removed_at is null', [
      'card_gone',
    ]);
    expect(left).toEqual([]);
  });
});

describe('refunds and payouts ask payments for the capability', () => {
  it('payments answers each flag of a registered provider, and false for one not registered', async () => {
    const { b } = await lacking('refund');
    const payments = b.app.powerly.payments;
    expect(payments.can('sandbox', 'refund')).toBe(false);
    expect(payments.canRefund('sandbox')).toBe(false);
    expect(payments.can('sandbox', 'payout')).toBe(true);
    expect(payments.can('no-such-provider', 'payout')).toBe(false);
    expect(payments.canRefund('no-such-provider')).toBe(false);
  });
});
