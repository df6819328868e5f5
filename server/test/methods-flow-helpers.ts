// What the tests of the payment methods through the product's flows share (methods-flow, methods-mpesa-flow,
// methods-sdk-flow): the flows' form POST and the method list.
import type { PowerlyApp } from '../src/app.ts';
import { formBody } from './helper.ts';

export const API = '/cdb-app-api/v1/app';

/** A method of the list, as the confirm screen reads it. */
export interface Methods {
  pId: string;
  pPaymentType: string;
  kind?: string;
  hold?: boolean;
  sandbox?: boolean;
  sdk?: boolean;
}

let n = 0;
/** A flow's form POST, as the app sends it: the session token, a fresh idempotency key, the user's language. */
export const formPost = (
  app: PowerlyApp,
  url: string,
  token: string,
  body: Record<string, string | undefined>,
  lang?: string,
) =>
  app.inject({
    method: 'POST',
    url: `${API}/${url}`,
    headers: {
      token,
      'content-type': 'application/x-www-form-urlencoded',
      'idempotency-key': `m-${Date.now()}-${n++}`,
      ...(lang ? { lang } : {}),
    },
    payload: formBody(body),
  });

/** The method list for `query` (currency, platform, qrcode…). */
export async function methods(app: PowerlyApp, token: string, query: string) {
  return (
    await app.inject({ method: 'GET', url: `${API}/cdb/payment/method/list?${query}`, headers: { token } })
  ).json().data as Methods[];
}
