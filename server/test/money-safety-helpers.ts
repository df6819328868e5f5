// What the money-safety tests share (money-safety.test.ts, money-safety-withdrawals.test.ts): a form POST with an
// idempotency key the test chooses (fresh ones from key(), the same one again for a retry).
import { formBody, type Built } from './helper.ts';

export const API = '/cdb-app-api/v1/app';

/** The calls of the money-safety tests, on the app `rig` gives once started. */
export function moneyCalls(rig: () => Built) {
  let n = 0;
  const key = () => `ms-${Date.now()}-${n++}`;
  const post = (url: string, token: string, body: Record<string, string | number>, k?: string) =>
    rig().app.inject({
      method: 'POST',
      url: `${API}/${url}`,
      headers: {
        token,
        'content-type': 'application/x-www-form-urlencoded',
        ...(k ? { 'idempotency-key': k } : {}),
      },
      payload: formBody(body),
    });
  return { key, post };
}
