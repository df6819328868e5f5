// What the rental lifecycle tests share (lifecycle.test.ts, lifecycle-buyout.test.ts): a fresh app per test, closed
// after it, and the calls and reads of a rental paid by card whose cabinet reports its own events.
import { afterAll, afterEach, expect } from 'vitest';
import { MINUTE_MS } from '#core/pricing.ts';
import type { PowerlyApp } from '../src/app.ts';
import { uuid } from '../src/lib/ids.ts';
import { build, cardToken, waitFor, type Built } from './helper.ts';

export const API = '/cdb-app-api/v1/app';
export const HOUR = 60 * MINUTE_MS;
export const DAY = 24 * HOUR;

/** A fresh app for each test that asks, every one closed after its test. */
export function freshBuilds() {
  const open: Built[] = [];
  afterEach(async () => {
    while (open.length) await open.pop()!.close();
  });
  afterAll(async () => {
    while (open.length) await open.pop()!.close();
  });
  return async function fresh(opts: Parameters<typeof build>[0] = {}) {
    const b = await build(opts);
    open.push(b);
    return b;
  };
}

export const get = (app: PowerlyApp, url: string, token: string) =>
  app.inject({ method: 'GET', url: `${API}/${url}`, headers: { token } });
export const detail = async (app: PowerlyApp, token: string, orderId: string) =>
  (await get(app, `cdb/mine/order/detail?orderId=${orderId}`, token)).json().data;
export async function rentByCard(b: Built, token: string, qrcode: string) {
  const res = await b.app.inject({
    method: 'POST',
    url: `${API}/cdb/cabinet/useDepositToRent`,
    headers: { token },
    payload: { qrcode, stripeToken: await cardToken(b.app), paymentId: 'card-sandbox' },
  });
  return res;
}
export async function rentedOut(b: Built, token: string, qrcode: string) {
  const res = await rentByCard(b, token, qrcode);
  expect(res.json().code, res.body).toBe(0);
  const tradeNo: string = res.json().data.outTradeNo;
  const d = await waitFor(async () => {
    const x = await detail(b.app, token, tradeNo);
    return x.pZujie === 1 ? x : null;
  }, 'popped');
  return { tradeNo, powerbankId: d.pPowerbankId as string, borrowedAt: Date.parse(d.pBorrowtime) };
}
export async function payment(b: Built, orderId: string) {
  const { rows } = await b.db.query<{
    status: string;
    captured_amount: number;
    provider_ref: string;
    refunded_amount: number;
  }>(
    'select status, captured_amount, provider_ref, refunded_amount from payments where order_id = $1 and status <> $2',
    [orderId, 'declined'],
  );
  return rows[0]!;
}
/** The cabinet's own 'returned' event, as it arrives over the link (possibly late, with the cabinet's timestamp). */
export async function cabinetReports(app: PowerlyApp, cabinetId: string, powerbankId: string, ts: number, slot = 6) {
  await app.powerly.cabinets.event(cabinetId, {
    v: 1,
    id: uuid(),
    ts: new Date(ts).toISOString(),
    type: 'returned',
    slot,
    powerbankId,
  });
}
