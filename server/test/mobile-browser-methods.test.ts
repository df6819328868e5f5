// A CNY cabinet in a phone's browser (outside WeChat and Alipay) offers WeChat Pay and Alipay through their
// mobile-browser payments (WeChat Pay H5, Alipay WAP): listed for platform=mobile only, never as a hold (they charge
// at once), and paid in test mode on the sandbox's checkout page as a redirect, then resumed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build, cabinetsOnline, touristToken, type Built } from './helper.ts';

const API = '/cdb-app-api/v1/app';
let b: Built;
let n = 0;
beforeAll(async () => {
  b = await build();
  await cabinetsOnline(b, ['PWL-SH-001']);
});
afterAll(async () => b?.close());

interface Method {
  pId: string;
  pPaymentType: string;
  kind?: string;
  hold?: boolean;
}
const list = async (token: string, platform: string) =>
  (
    await b.app.inject({
      method: 'GET',
      url: `${API}/cdb/payment/method/list?qrcode=PWL-SH-001&platform=${platform}`,
      headers: { token },
    })
  ).json().data as Method[];
const post = async (token: string, url: string, payload: object) => {
  const r = await b.app.inject({
    method: 'POST',
    url: `${API}/${url}`,
    headers: { token, 'idempotency-key': `mb-${n++}` },
    payload,
  });
  return {
    status: r.statusCode,
    body: r.json() as {
      code: number;
      msg: string;
      data: Record<string, unknown> & { action?: { clientSecret: string; paymentIntent: string } };
    },
  };
};

describe("WeChat Pay and Alipay in a phone's browser", () => {
  it('a CNY cabinet lists WeChat Pay H5 and Alipay WAP on a phone, as redirects that do not hold; not on a desktop nor in the in-app browsers', async () => {
    const token = await touristToken(b.app);
    const mobile = await list(token, 'mobile');
    const types = mobile.map((m) => m.pPaymentType);
    expect(types).toEqual(expect.arrayContaining(['WeChat_H5', 'ALIPAY_WAP']));
    for (const t of ['WeChat_H5', 'ALIPAY_WAP'])
      expect(mobile.find((m) => m.pPaymentType === t)).toMatchObject({ kind: 'redirect', hold: false });
    expect(types).not.toContain('WeChat_MP');
    expect((await list(token, 'web')).map((m) => m.pPaymentType)).not.toEqual(expect.arrayContaining(['WeChat_H5']));
    expect((await list(token, 'web')).map((m) => m.pPaymentType)).not.toContain('ALIPAY_WAP');
    expect((await list(token, 'wechat')).map((m) => m.pPaymentType)).not.toContain('WeChat_H5');
  });

  it('a wallet top-up with WeChat Pay H5 in test mode goes to the checkout page and is credited once approved', async () => {
    const token = await touristToken(b.app);
    const method = (await list(token, 'mobile')).find((m) => m.pPaymentType === 'WeChat_H5')!;
    const payer = await post(token, 'cdb/payment/method/payer', { paymentId: method.pId });
    expect(payer.body.code, payer.body.msg).toBe(0);
    const started = await post(token, 'cdb/payment/multicurrency/recharge', {
      amount: '20',
      currency: 'CNY',
      paymentId: method.pId,
      stripeToken: (payer.body.data as { token: string }).token,
      returnUrl: 'http://localhost/#/confirm',
    });
    expect(started.body.code, started.body.msg).toBe(0);
    const action = started.body.data.action!;
    const page = JSON.parse(action.clientSecret.slice(4)) as { kind: string; url: string };
    expect(page.kind).toBe('redirect');
    const answered = await b.app.inject({
      method: 'POST',
      url: page.url,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'decision=approve',
    });
    expect(answered.statusCode).toBe(303);
    const resumed = await post(token, 'cdb/payment/multicurrency/recharge', {
      amount: '20',
      currency: 'CNY',
      paymentId: method.pId,
      paymentIntent: action.paymentIntent,
    });
    expect(resumed.body.code, resumed.body.msg).toBe(0);
    const wallets = (
      await b.app.inject({ method: 'GET', url: `${API}/cdb/user/wallet/new`, headers: { token } })
    ).json().data as { pCurrencyType: string; pBalance: number }[];
    expect(wallets.find((w) => w.pCurrencyType === 'CNY')?.pBalance).toBe(20);
  });
});
