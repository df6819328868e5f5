// The alipay tests' fixtures (alipay*.test.ts): the local Alipay gateway (server/test/providers/alipay.ts) with our
// app and its test buyers, the adapter made for it, a payment's input, a notification's delivery and a
// ProviderError's reading.
import { afterAll, beforeAll, expect } from 'vitest';
import { alipayDefinition, type AlipayConfig } from '../../src/modules/payments/methods/alipay.ts';
import { ProviderError, type StartInput } from '../../src/modules/payments/methods/adapter.ts';
import type { MethodProvider } from '../../src/modules/payments/methods/external.ts';
import { FakeAlipay, makeKeys } from '../providers/alipay.ts';

export const APP_ID = '2021000000000001';
export const BUYER = '2088102146225135';
export const BUYER_OPEN_ID = '074a1CcTG1LelxKe4xQC0zgNdId0nxi95b5lsNpazWYoCo5';
export const POOR = '2088102146220002';
export const FORBIDDEN = '2088102146220003';
export const appKeys = makeKeys();
export let fake: FakeAlipay;
export let config: AlipayConfig;
export let adapter: MethodProvider;
let seq = 0;

export const deps = { fetch: (...a: Parameters<typeof fetch>) => fetch(...a), now: () => new Date() };
export const input = (over: Partial<StartInput> = {}): StartInput => ({
  outTradeNo: `T${Date.now()}${++seq}`,
  amount: 1250,
  currency: 'CNY',
  description: 'Powerly power bank',
  capture: 'automatic',
  returnUrl: 'https://powerly.example/result',
  cancelUrl: 'https://powerly.example/result',
  notifyUrl: 'https://powerly.example/webhooks/methods/alipay',
  idempotencyKey: `k${seq}`,
  payType: 'ALIPAY',
  payer: { userId: 1, openId: BUYER },
  ...over,
});
export const deliver = (body: string) =>
  adapter.readNotification({
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    rawBody: body,
    query: {},
  });
export const providerError = async (p: Promise<unknown>) => {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ProviderError);
  return err as ProviderError;
};

/** Starts the gateway with our app and makes the adapter for it (the test file's hooks). */
export function useAlipay() {
  beforeAll(async () => {
    fake = new FakeAlipay();
    await fake.start();
    fake.addApp(APP_ID, appKeys.publicKey, {
      appCertSn: 'a1b2c3',
      alipayRootCertSn: '687b59193f3f462dd5336e5abf83c5d8_02941eef3187dddf3d3b83462e1dfcf6',
    });
    config = {
      appId: APP_ID,
      privateKey: appKeys.privateKey,
      alipayPublicKey: fake.alipayKeys.publicKey,
      apiBase: fake.gateway,
    };
    adapter = alipayDefinition.create(config, deps);
  });
  afterAll(() => fake.stop());
}
