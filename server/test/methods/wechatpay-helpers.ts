// The wechatpay adapter's tests' fixtures (wechatpay.test.ts): one merchant on the WeChat Pay API v3 test server
// (server/test/providers/wechatpay.ts), the adapter made for it, a payment's input, and a ProviderError's reading.
import { randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import { ProviderError, type StartInput } from '../../src/modules/payments/methods/adapter.ts';
import type { MethodProvider } from '../../src/modules/payments/methods/external.ts';
import { wechatpayDefinition, type WechatPayConfig } from '../../src/modules/payments/methods/wechatpay.ts';
import { FakeWechatPay, merchantKeys } from '../providers/wechatpay.ts';

export const MCH = '1900009191';
export const APP = 'wxd678efh567hg6787';
export const V3KEY = 'a'.repeat(8) + randomBytes(12).toString('hex'); // 32 characters
export const V2KEY = randomBytes(16).toString('hex');
export const SERVICE = '00004000000000157880040000000000';
export const OPENID = 'oUpF8uMuAJO_M2pxb1Q9zNjWeS6o';

export let fake: FakeWechatPay;
export let keys: ReturnType<typeof merchantKeys>;
export let config: WechatPayConfig;
export let wx: MethodProvider;
export const deps = { fetch: (...a: Parameters<typeof fetch>) => fetch(...a), now: () => new Date() };

let n = 0;
const no = () => `PW${Date.now()}${++n}`;
export const input = (o: Partial<StartInput> = {}): StartInput => ({
  outTradeNo: no(),
  amount: 1250,
  currency: 'CNY',
  description: 'Powerly power bank',
  capture: 'automatic',
  returnUrl: 'https://powerly.example/result',
  cancelUrl: 'https://powerly.example/result',
  notifyUrl: 'https://powerly.example/webhooks/methods/wechatpay',
  idempotencyKey: `pay_${n}`,
  payType: 'WeChat_MP',
  payer: { userId: 7, openId: OPENID, ip: '203.0.113.9' },
  ...o,
});

export async function providerError(p: Promise<unknown>): Promise<ProviderError> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(ProviderError);
    return err as ProviderError;
  }
  throw new Error('expected a ProviderError');
}

/** Starts the test server with one merchant and makes the adapter for it (the test file's beforeAll). */
export async function startWechatPay() {
  fake = await new FakeWechatPay().start();
  keys = merchantKeys();
  fake.addMerchant({
    mchId: MCH,
    appId: APP,
    serialNo: keys.serialNo,
    publicKey: keys.publicKey,
    apiV3Key: V3KEY,
    apiV2Key: V2KEY,
    serviceId: SERVICE,
  });
  config = {
    appId: APP,
    mchId: MCH,
    serialNo: keys.serialNo,
    privateKey: keys.privateKeyPem,
    apiV3Key: V3KEY,
    platformPublicKey: fake.platformPublicKeyPem,
    platformSerial: fake.platformSerial,
    serviceId: SERVICE,
    apiV2Key: V2KEY,
    apiBase: fake.url,
  };
  wx = wechatpayDefinition.create(config, deps);
}

/** A JSAPI order of 8.80 the customer paid: its out_trade_no. */
export async function paidOrder() {
  const inp = input({ amount: 880 });
  await wx.start(inp);
  fake.pay(MCH, inp.outTradeNo);
  return inp.outTradeNo;
}

/** A pay-score order holding `deposit` (its input and start's answer). */
export async function held(deposit = 9900) {
  const inp = input({ capture: 'manual', amount: deposit, deposit });
  const r = await wx.start(inp);
  return { inp, r };
}
