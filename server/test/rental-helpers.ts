// What the rental tests on one shared app share (rental.test.ts, rental-concurrent.test.ts): the app with the
// simulated cabinets online, and the calls and reads of a rental through the app's API.
import { build, cabinetsOnline, waitFor, type Built } from './helper.ts';

export const API = '/cdb-app-api/v1/app';

/** The app with the simulator, its Shanghai, Vilnius, Lisbon and New York cabinets online. */
export async function startRental(): Promise<Built> {
  const b = await build();
  await cabinetsOnline(b, ['PWL-SH-001', 'PWL-VNO-001', 'PWL-LIS-001', 'PWL-NYC-001']);
  return b;
}

/** The calls and reads of the rental tests, on the app `rig` gives once started. */
export function rentalCalls(rig: () => Built) {
  const get = (url: string, token: string) =>
    rig().app.inject({ method: 'GET', url: `${API}/${url}`, headers: { token } });
  const rent = (token: string, body: Record<string, string>, key?: string) =>
    rig().app.inject({
      method: 'POST',
      url: `${API}/cdb/cabinet/useDepositToRent`,
      headers: {
        token,
        'content-type': 'application/x-www-form-urlencoded',
        ...(key ? { 'idempotency-key': key } : {}),
      },
      payload: new URLSearchParams(body).toString(),
    });
  const check = (token: string, tradeNo: string) =>
    rig().app.inject({ method: 'POST', url: `${API}/cdb/mine/order/check/${tradeNo}/YJ`, headers: { token } });

  async function untilOut(token: string, tradeNo: string) {
    return waitFor(async () => {
      const r = await check(token, tradeNo);
      return r.json().code === 1 ? null : r;
    }, `order ${tradeNo} answered`);
  }

  async function pendingHolds(userId: number) {
    const { rows } = await rig().db.query<{ n: number }>(
      `select count(*)::int as n from ledger_transfers t join ledger_accounts a on a.id = t.credit_account_id
      where t.flag = 'pending' and a.owner_id = $1 and not exists (select 1 from ledger_transfers r where r.pending_id = t.id)`,
      [String(userId)],
    );
    return Number(rows[0]!.n);
  }
  return { get, rent, check, untilOut, pendingHolds };
}
