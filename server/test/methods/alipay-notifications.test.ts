// The alipay adapter against the local Alipay gateway (server/test/providers/alipay.ts): notifications and
// transfers (signing, trades, holds and refunds: alipay.test.ts; the fixtures: alipay-helpers.ts).
import { describe, expect, it } from 'vitest';
import { makeKeys } from '../providers/alipay.ts';
import { alipayDefinition } from '../../src/modules/payments/methods/alipay.ts';
import { APP_ID, adapter, config, deliver, deps, fake, input, providerError, useAlipay } from './alipay-helpers.ts';

useAlipay();

describe('alipay notifications', () => {
  it('a genuine trade notification is accepted and answered `success`; a redelivery has the same eventId', async () => {
    const i = input();
    const r = await adapter.start(i);
    fake.pay(r.ref);
    const n = fake.lastNotification();
    const got = await deliver(n.body);
    expect(got).toEqual({
      eventId: n.notifyId,
      outTradeNo: i.outTradeNo,
      ref: r.ref,
      state: 'paid',
      amount: 1250,
      currency: 'CNY',
      ack: { status: 200, contentType: 'text/plain', body: 'success' },
    });
    expect((await deliver(n.body))?.eventId).toBe(got!.eventId);
  });

  it('a freeze notification reports the hold authorized', async () => {
    const i = input({ capture: 'manual', amount: 5000 });
    const r = await adapter.start(i);
    fake.freeze((r.action as { params: Record<string, string> }).params.orderStr!);
    const got = await deliver(fake.lastNotification().body);
    expect(got).toMatchObject({ outTradeNo: i.outTradeNo, ref: r.ref, state: 'authorized', amount: 5000 });
  });

  it('a tampered notification, a wrongly signed one, one for another app and an unsigned one are refused', async () => {
    const r = await adapter.start(input());
    fake.pay(r.ref);
    const body = fake.lastNotification().body;
    expect(await deliver(body.replace('total_amount=12.50', 'total_amount=0.01'))).toBeNull();
    const forged = new URLSearchParams(body);
    forged.set('sign', Buffer.from('x'.repeat(256)).toString('base64'));
    expect(await deliver(forged.toString())).toBeNull();
    const other = fake.signNotification(
      { notify_type: 'trade_status_sync', out_trade_no: 'X', trade_status: 'TRADE_SUCCESS' },
      '2021000000000999',
    );
    expect(await deliver(other.body)).toBeNull();
    const unsigned = new URLSearchParams(body);
    unsigned.delete('sign');
    expect(await deliver(unsigned.toString())).toBeNull();
    expect(await deliver('')).toBeNull();
  });

  it('a notification signed with sign_type kept in the string (rsaCheckV2 form) verifies too', async () => {
    const n = fake.signNotification(
      {
        notify_type: 'fund_auth_unfreeze',
        auth_no: 'A1',
        out_order_no: 'HOLD1',
        operation_type: 'UNFREEZE',
        amount: '10.00',
        status: 'SUCCESS',
      },
      APP_ID,
      { keepSignType: true },
    );
    expect(await deliver(n.body)).toMatchObject({
      eventId: n.notifyId,
      outTradeNo: 'HOLD1',
      ref: 'auth:HOLD1',
      state: undefined,
      amount: 1000,
    });
    expect(await deliver(n.body.replace('amount=10.00', 'amount=11.00'))).toBeNull();
  });

  it('a notification signed by another key is refused', async () => {
    const stranger = alipayDefinition.create({ ...config, alipayPublicKey: makeKeys().publicKey }, deps);
    const n = fake.signNotification(
      {
        notify_type: 'trade_status_sync',
        out_trade_no: 'X',
        trade_no: 'Y',
        trade_status: 'TRADE_SUCCESS',
        total_amount: '1.00',
      },
      APP_ID,
    );
    expect(await deliver(n.body)).not.toBeNull();
    expect(await stranger.readNotification({ headers: {}, rawBody: n.body, query: {} })).toBeNull();
  });
});

describe('alipay transfers (payout)', () => {
  const cert = () =>
    alipayDefinition.create(
      {
        ...config,
        appCertSn: 'a1b2c3',
        alipayRootCertSn: '687b59193f3f462dd5336e5abf83c5d8_02941eef3187dddf3d3b83462e1dfcf6',
      },
      deps,
    );
  const to = (account: Record<string, string>) => ({ kind: 'channel' as const, channel: 'alipay', account });

  it('pays an Alipay login id once per idempotency key', async () => {
    const a = cert();
    const balance = fake.merchantBalance;
    const one = await a.payout!({
      amount: 2000,
      currency: 'CNY',
      destination: to({ loginId: 'payee@sandbox.com', name: '沙箱收款人' }),
      idempotencyKey: 'payout-1',
    });
    const again = await a.payout!({
      amount: 2000,
      currency: 'CNY',
      destination: to({ loginId: 'payee@sandbox.com', name: '沙箱收款人' }),
      idempotencyKey: 'payout-1',
    });
    expect(again.ref).toBe(one.ref);
    expect(fake.merchantBalance).toBe(balance - 2000);
    const byId = await a.payout!({
      amount: 1000,
      currency: 'CNY',
      destination: to({ userId: '2088102146229999' }),
      idempotencyKey: 'payout-2',
    });
    expect(byId.ref).not.toBe(one.ref);
    for (const outBizNo of fake.transfers.keys()) expect(outBizNo).toMatch(/^[A-Za-z0-9_]{1,64}$/); // keys with '-' are hashed
    expect([...fake.transfers.values()].map((t) => t.amount)).toEqual(expect.arrayContaining([2000, 1000]));
  });

  it('refuses a wrong name, an unknown account, an empty merchant balance, and a non-certificate app', async () => {
    const a = cert();
    expect(
      (
        await providerError(
          a.payout!({
            amount: 2000,
            currency: 'CNY',
            destination: to({ loginId: 'payee@sandbox.com', name: '别人' }),
            idempotencyKey: 'p2',
          }),
        )
      ).code,
    ).toBe('PAYEE_USER_INFO_ERROR');
    expect(
      (
        await providerError(
          a.payout!({
            amount: 2000,
            currency: 'CNY',
            destination: to({ loginId: 'nobody@sandbox.com', name: 'x' }),
            idempotencyKey: 'p3',
          }),
        )
      ).code,
    ).toBe('PAYEE_NOT_EXIST');
    expect(
      (
        await providerError(
          a.payout!({
            amount: 2000,
            currency: 'CNY',
            destination: to({ loginId: 'payee@sandbox.com' }),
            idempotencyKey: 'p3b',
          }),
        )
      ).code,
    ).toBe('missing_payee');
    expect(
      (
        await providerError(
          a.payout!({
            amount: 5,
            currency: 'CNY',
            destination: to({ userId: '2088102146229999' }),
            idempotencyKey: 'p3c',
          }),
        )
      ).code,
    ).toBe('EXCEED_LIMIT_SM_MIN_AMOUNT');
    const balance = fake.merchantBalance;
    fake.merchantBalance = 100;
    try {
      expect(
        (
          await providerError(
            a.payout!({
              amount: 2000,
              currency: 'CNY',
              destination: to({ loginId: 'payee@sandbox.com', name: '沙箱收款人' }),
              idempotencyKey: 'p4',
            }),
          )
        ).code,
      ).toBe('PAYER_BALANCE_NOT_ENOUGH');
    } finally {
      fake.merchantBalance = balance;
    }
    expect(
      (
        await providerError(
          adapter.payout!({
            amount: 2000,
            currency: 'CNY',
            destination: to({ loginId: 'payee@sandbox.com', name: '沙箱收款人' }),
            idempotencyKey: 'p5',
          }),
        )
      ).code,
    ).toBe('isv.invalid-app-cert-sn');
  });
});
