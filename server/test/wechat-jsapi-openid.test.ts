// WeChat Pay in the WeChat browser (JSAPI, WeChat_MP) live, against the WeChat Pay API v3 test server
// (server/test/providers/wechatpay.ts): the payer is the rider's own WeChat openid, the one their WeChat sign-in
// stored, whatever the client sends; a rider without a WeChat sign-in is asked to sign in with WeChat.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build, formBody, touristToken, type Built } from './helper.ts';
import { FakeWechatPay, merchantKeys } from './providers/wechatpay.ts';

const API = '/cdb-app-api/v1/app';
const MCH = '1900009192';
const APP = 'wxd678efh567hg6788';
let b: Built;
let fake: FakeWechatPay;
let n = 0;

beforeAll(async () => {
  fake = await new FakeWechatPay().start();
  const keys = merchantKeys();
  const apiV3Key = randomBytes(16).toString('hex');
  fake.addMerchant({
    mchId: MCH,
    appId: APP,
    serialNo: keys.serialNo,
    publicKey: keys.publicKey,
    apiV3Key,
    apiV2Key: randomBytes(16).toString('hex'),
    serviceId: '',
  });
  b = await build({
    simulator: false,
    publicUrl: 'https://powerly.example',
    paymentMethods: {
      powerly: {
        wechatpay: {
          appId: APP,
          mchId: MCH,
          serialNo: keys.serialNo,
          privateKey: keys.privateKeyPem,
          apiV3Key,
          platformPublicKey: fake.platformPublicKeyPem,
          platformSerial: fake.platformSerial,
          apiBase: fake.url,
        },
      },
    },
  });
  // WeChat Pay refuses a request timestamp far from its own time: the fake keeps the product's clock.
  fake.now = () => b.clock.now();
});
afterAll(async () => {
  await b?.close();
  await fake?.stop();
});

const post = (url: string, token: string | undefined, body: Record<string, string | undefined>, lang = 'en-US') =>
  b.app.inject({
    method: 'POST',
    url: `${API}/${url}`,
    headers: {
      ...(token ? { token } : {}),
      lang,
      'content-type': 'application/x-www-form-urlencoded',
      'idempotency-key': `wxo-${n++}`,
    },
    payload: formBody(body),
  });
const wechatRider = async (code: string) => (await post('loginByCode', undefined, { code })).json().data as string;
const topUp = (token: string, stripeToken: string) =>
  post('cdb/payment/multicurrency/recharge', token, {
    amount: '12',
    currency: 'CNY',
    paymentId: 'wechatpay:WeChat_MP',
    stripeToken,
    returnUrl: 'http://localhost/#/confirm?payType=CZ&currency=CNY',
  });
/** The payer's openid of the last JSAPI order WeChat Pay received. */
const lastJsapiPayer = () => {
  const order = fake.requests.filter((r) => r.url.startsWith('/v3/pay/transactions/jsapi')).at(-1);
  return order && (JSON.parse(order.body) as { payer?: { openid?: string } }).payer?.openid;
};

describe("WeChat Pay JSAPI pays with the rider's stored WeChat openid", () => {
  it('a WeChat rider pays without sending an openid: the order names the openid of their WeChat sign-in', async () => {
    const token = await wechatRider('sbx_wxJsapi1');
    const methods = (
      await b.app.inject({
        method: 'GET',
        url: `${API}/cdb/payment/method/list?currency=CNY&platform=wechat`,
        headers: { token },
      })
    ).json().data as { pId: string }[];
    expect(methods.map((m) => m.pId)).toContain('wechatpay:WeChat_MP');
    const payer = await post('cdb/payment/method/payer', token, { paymentId: 'wechatpay:WeChat_MP' });
    expect(payer.json().code, payer.json().msg).toBe(0);
    const started = await topUp(token, payer.json().data.token as string);
    expect(started.json().code, started.json().msg).toBe(0);
    const action = JSON.parse((started.json().data.action.clientSecret as string).slice(4)) as {
      kind: string;
      params: Record<string, string>;
    };
    expect(action).toMatchObject({
      kind: 'jsapi',
      params: { appId: APP, package: expect.stringMatching(/^prepay_id=/) },
    });
    expect(lastJsapiPayer()).toBe('sbx-open-wxJsapi1');
  });

  it("an openid the client sends does not replace the rider's own", async () => {
    const token = await wechatRider('sbx_wxJsapi2');
    const payer = await post('cdb/payment/method/payer', token, {
      paymentId: 'wechatpay:WeChat_MP',
      openId: 'oSomeoneElse_123',
    });
    expect(payer.json().code, payer.json().msg).toBe(0);
    expect((await topUp(token, payer.json().data.token as string)).json().code).toBe(0);
    expect(lastJsapiPayer()).toBe('sbx-open-wxJsapi2');
  });

  it('a rider without a WeChat sign-in is asked to sign in with WeChat (in their language); nothing reaches WeChat Pay', async () => {
    const token = await touristToken(b.app, 'wx-jsapi-tourist');
    const before = fake.requests.length;
    const en = await post('cdb/payment/method/payer', token, { paymentId: 'wechatpay:WeChat_MP' });
    expect(en.statusCode).toBe(422);
    expect(en.json()).toMatchObject({
      code: 422,
      data: null,
      msg: 'To pay with WeChat Pay here, please sign in with WeChat first.',
    });
    const zh = await post('cdb/payment/method/payer', token, { paymentId: 'wechatpay:WeChat_MP' }, 'zh-CN');
    expect(zh.json().msg).toBe('如需在此使用微信支付，请先使用微信登录。');
    expect(fake.requests.length).toBe(before);
  });
});
