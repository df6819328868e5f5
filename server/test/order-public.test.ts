// The token-less order detail: the owner gets a share sign; with it anyone can read the order's
// status, times, fee rule and estimate — nothing about the user — and without it nothing at all.
import { afterAll, describe, expect, it } from 'vitest';
import { rentalFee, MINUTE_MS } from '#core/pricing.ts';
import { toMajor } from '#core/money.ts';
import type { PowerlyApp } from '../src/app.ts';
import { build, cabinetsOnline, cardToken, touristToken, waitFor, type Built } from './helper.ts';

const API = '/cdb-app-api/v1/app';
let b: Built;
afterAll(async () => {
  await b?.close();
});

const get = (app: PowerlyApp, url: string, headers: Record<string, string> = {}) =>
  app.inject({ method: 'GET', url: `${API}/${url}`, headers });
const share = (app: PowerlyApp, token: string, orderId: string) =>
  app.inject({ method: 'POST', url: `${API}/cdb/mine/order/share`, headers: { token }, payload: { orderId } });

async function rentedOut(token: string, qrcode: string) {
  await cabinetsOnline(b, [qrcode]); // the simulated cabinet has said hello (slower over an external broker)
  const res = await b.app.inject({
    method: 'POST',
    url: `${API}/cdb/cabinet/useDepositToRent`,
    headers: { token },
    payload: { qrcode, stripeToken: await cardToken(b.app), paymentId: 'card-sandbox' },
  });
  expect(res.json().code, res.body).toBe(0);
  const tradeNo: string = res.json().data.outTradeNo;
  await waitFor(
    async () => (await get(b.app, `cdb/mine/order/detail?orderId=${tradeNo}`, { token })).json().data?.pZujie === 1,
    'popped',
  );
  return tradeNo;
}

describe('GET cdb/mine/order/detail/public', () => {
  it('shows status, elapsed time and the estimate to the holder of the share sign, and nothing private', async () => {
    b = await build();
    const owner = await touristToken(b.app, 'owner-device-00000001');
    const other = await touristToken(b.app, 'other-device-00000002');
    const orderId = await rentedOut(owner, 'PWL-LIS-001');

    // Only the owner can make the link; the sign is long, random, and stable.
    expect((await share(b.app, other, orderId)).json().code).not.toBe(0);
    expect(
      (await b.app.inject({ method: 'POST', url: `${API}/cdb/mine/order/share`, payload: { orderId } })).statusCode,
    ).toBe(401);
    const first = (await share(b.app, owner, orderId)).json().data;
    expect(first.orderId).toBe(orderId);
    expect(first.sign).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect((await share(b.app, owner, orderId)).json().data.sign).toBe(first.sign);

    // 95 minutes later, no token at all: Lisbon €1.50 / 30 min, 5 free → ceil(95/30) = 4 × €1.50 = €6.
    b.clock.advance(95 * MINUTE_MS);
    const res = await get(b.app, `cdb/mine/order/detail/public?orderId=${orderId}&sign=${first.sign}`);
    expect(res.statusCode, res.body).toBe(200);
    const d = res.json().data;
    expect(d).toMatchObject({
      pOrderid: orderId,
      pZujie: 1,
      pJiesuanid: 0,
      pShopName: 'Time Out Market Lisboa',
      pCurrency: 'EUR',
    });
    expect(d.estimatedAmount).toBe(toMajor(rentalFee(d.plan, 95 * MINUTE_MS), 'EUR'));
    expect(d.estimatedAmount).toBe(6);
    expect(Date.parse(d.serverTime) - Date.parse(d.pBorrowtime)).toBe(95 * MINUTE_MS);
    for (const key of ['pUserid', 'pPowerbankId', 'pCabinetid', 'palipayjsSm', 'userId', 'phone'])
      expect(d).not.toHaveProperty(key);
    expect(JSON.stringify(d)).not.toContain('PB-');
  });

  it('a wrong, empty or other order’s sign and an unknown order all get the same not-found', async () => {
    const { rows } = await b.db.query<{ id: string; share_sign: string }>(
      `select id, share_sign from orders where share_sign is not null`,
    );
    const { id, share_sign: sign } = rows[0]!;
    const bad = [
      `orderId=${id}&sign=${sign.slice(0, -1)}${sign.endsWith('A') ? 'B' : 'A'}`,
      `orderId=${id}&sign=${'x'.repeat(43)}`,
      `orderId=${id}&sign=short`,
      `orderId=NOPE&sign=${sign}`,
    ];
    const bodies = [];
    for (const q of bad) {
      const r = await get(b.app, `cdb/mine/order/detail/public?${q}`, { lang: 'en-US' });
      expect(r.statusCode).toBe(404);
      bodies.push(r.json().msg);
    }
    expect(new Set(bodies).size).toBe(1);
    expect((await get(b.app, `cdb/mine/order/detail/public?orderId=${id}`)).statusCode).toBe(400);
    // An order never shared has no sign: not even an empty one opens it.
    const second = await rentedOut(await touristToken(b.app, 'third-device-00000003'), 'PWL-VNO-001');
    expect((await get(b.app, `cdb/mine/order/detail/public?orderId=${second}&sign=`)).statusCode).toBe(400);
  });
});
