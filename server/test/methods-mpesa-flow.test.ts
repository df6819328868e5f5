// A real method adapter through the product's flows: M-Pesa (Daraja's STK push and B2C payouts) against the Daraja
// test server in server/test/providers/: the method list, the payer's phone, a wallet top-up credited once on the
// verified callback, and a withdrawal to the phone paid once Daraja's result is verified.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build, touristToken, type Built } from './helper.ts';
import { checkLedger } from '../src/modules/wallet/reconcile.ts';
import { formPost, methods } from './methods-flow-helpers.ts';
import { FakeDaraja } from './providers/mpesa.ts';

describe('a real adapter (M-Pesa, against the Daraja test server) through the product', () => {
  const SHORT = '174379';
  const PASSKEY = 'bfb279f9aa9bdbcf158e97dd71a467cd2e0c893059b10f78e6b72ada1ed2c919';
  let fake: FakeDaraja;
  let real: Built;
  beforeAll(async () => {
    fake = await new FakeDaraja({
      consumerKey: 'ck',
      consumerSecret: 'cs',
      shortCode: SHORT,
      passkey: PASSKEY,
      initiatorName: 'ops',
      initiatorPassword: 'Init!pw',
      b2cBalance: 10_000,
    }).start();
    real = await build({
      simulator: false,
      publicUrl: 'https://powerly.example',
      paymentMethods: {
        powerly: {
          mpesa: {
            consumerKey: 'ck',
            consumerSecret: 'cs',
            shortCode: SHORT,
            passkey: PASSKEY,
            callbackToken: 'cb-token',
            apiBase: fake.url,
            initiatorName: 'ops',
            initiatorPassword: 'Init!pw',
            certificate: fake.certificate,
            resultUrl: 'https://powerly.example/webhooks/methods/mpesa',
          },
        },
      },
    });
    // Daraja refuses a request timestamp far from its own time: the product's clock is the wall clock here.
    real.clock.advance(Date.now() - real.clock.now().getTime());
  });
  afterAll(async () => {
    await real?.close();
    await fake?.stop();
  });

  it('pushes to the phone, takes the verified callback once, and credits the wallet with what Daraja confirms', async () => {
    const call = (url: string, token: string, body: Record<string, string | undefined>) =>
      formPost(real.app, url, token, body);
    const token = await touristToken(real.app);
    const listed = await methods(real.app, token, 'currency=KES');
    // Configured: the real adapter, not test mode.
    expect(listed.find((m) => m.pPaymentType === 'M-PESA')).toMatchObject({
      pId: 'mpesa:M-PESA',
      kind: 'push',
      hold: false,
    });
    expect(listed.find((m) => m.pPaymentType === 'M-PESA')?.sandbox).toBeUndefined();
    const noPhone = await call('cdb/payment/method/payer', token, { paymentId: 'mpesa:M-PESA' });
    expect(noPhone.statusCode).toBe(400);
    const t = (
      await call('cdb/payment/method/payer', token, { paymentId: 'mpesa:M-PESA', phoneNumber: '254708374149' })
    ).json().data.token as string;
    const started = await call('cdb/payment/multicurrency/recharge', token, {
      amount: '50',
      currency: 'KES',
      paymentId: 'mpesa:M-PESA',
      stripeToken: t,
    });
    expect(started.json(), started.body).toMatchObject({ code: 0 });
    const action = started.json().data.action as { clientSecret: string; paymentIntent: string };
    expect(action.clientSecret).toBe('ext:{"kind":"push"}');
    const {
      rows: [row],
    } = await real.db.query<{ provider_ref: string }>(
      'select provider_ref from external_payments where out_trade_no = $1',
      [action.paymentIntent],
    );
    fake.approve(row!.provider_ref);
    const cb = fake.callback(row!.provider_ref);
    const path = `/webhooks/methods/mpesa?${new URLSearchParams(cb.query).toString()}`;
    // A forged delivery (no callback token) is refused; the genuine one is acknowledged as Daraja expects, once.
    const forged = await real.app.inject({
      method: 'POST',
      url: '/webhooks/methods/mpesa',
      headers: cb.headers,
      payload: cb.rawBody,
    });
    expect(forged.statusCode).toBe(400);
    const ok = await real.app.inject({ method: 'POST', url: path, headers: cb.headers, payload: cb.rawBody });
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toEqual({ ResultCode: 0, ResultDesc: 'Accepted' });
    const again = await real.app.inject({ method: 'POST', url: path, headers: cb.headers, payload: cb.rawBody });
    expect(again.statusCode).toBe(200);
    const { rows: events } = await real.db.query('select id from provider_events where provider = $1', ['mpesa']);
    expect(events).toHaveLength(1);
    const {
      rows: [after],
    } = await real.db.query<{ state: string }>('select state from external_payments where out_trade_no = $1', [
      action.paymentIntent,
    ]);
    expect(after!.state).toBe('paid');
    const done = await call('cdb/payment/multicurrency/recharge', token, {
      amount: '50',
      currency: 'KES',
      paymentId: 'mpesa:M-PESA',
      paymentIntent: action.paymentIntent,
    });
    expect(done.json()).toMatchObject({ code: 0, data: { pBalance: 50, pCurrencyType: 'KES' } });
    expect(await checkLedger(real.db)).toEqual([]);

    // Withdrawal to the phone: M-Pesa's channel (B2C) with its phone field; paid once Daraja's result is verified.
    const applied = (await call('cdb/mine/tixian/apply', token, { amount: '20', currency: 'KES' })).json().data as {
      refundTypes: number[];
      channels: { paymentId: string; channelName: string; payoutConfig: { fieldName: string }[] }[];
    };
    // Only configured methods pay out (Flutterwave, in test mode here, also takes KES but adds no channel).
    expect(applied.channels).toEqual([
      {
        channelName: 'M-Pesa',
        paymentId: 'mpesa:payout',
        payoutConfig: [{ fieldName: 'phone', fieldType: 'input', fieldDefauldValues: [] }],
      },
    ]);
    const wd = await call('cdb/mine/tixian/create', token, {
      refundType: '1',
      amount: '20',
      currency: 'KES',
      receiverAccount: JSON.stringify({ paymentId: 'mpesa:payout', accountData: { phone: '254708374149' } }),
    });
    const wdId = wd.json().data.tixianOrderId as string;
    expect(wd.json().data.pBalance).toBe(30);
    const result = fake.resultFor(wdId);
    const resultPath = `/webhooks/methods/mpesa?${new URLSearchParams(result.query).toString()}`;
    expect(
      (await real.app.inject({ method: 'POST', url: resultPath, headers: result.headers, payload: result.rawBody }))
        .statusCode,
    ).toBe(200);
    const {
      rows: [w],
    } = await real.db.query<{ status: string }>('select status from withdrawals where id = $1', [wdId]);
    expect(w!.status).toBe('paid');
    expect(await checkLedger(real.db)).toEqual([]);
  });
});
