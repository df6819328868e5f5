// What the wallet tests (wallet.test.ts, saved-card-pay.test.ts) share: the app's form calls with an idempotency
// key, a card top-up, a wallet as the app lists it, and the ledger's reconciliation check.
import { expect } from 'vitest';
import { cardToken, formBody, type Built } from './helper.ts';
import { checkLedger } from '../src/modules/wallet/reconcile.ts';

export const API = '/cdb-app-api/v1/app';

/** The calls and reads of the wallet tests, on the app `rig` gives once started. */
export function walletCalls(rig: () => Built) {
  const post = (
    url: string,
    token: string,
    body: Record<string, string | number | undefined>,
    key?: string,
    lang?: string,
  ) =>
    rig().app.inject({
      method: 'POST',
      url: `${API}/${url}`,
      headers: {
        token,
        'content-type': 'application/x-www-form-urlencoded',
        ...(key ? { 'idempotency-key': key } : {}),
        ...(lang ? { lang } : {}),
      },
      payload: formBody(body),
    });
  const get = (url: string, token: string) =>
    rig().app.inject({ method: 'GET', url: `${API}/${url}`, headers: { token } });

  let n = 0;
  const key = () => `k-${Date.now()}-${n++}`;

  async function topUp(token: string, amount: string, currency: string, extra: Record<string, string> = {}) {
    const res = await post(
      'cdb/payment/multicurrency/recharge',
      token,
      {
        amount,
        currency,
        paymentId: 'card-sandbox',
        stripeToken: extra.cardId ? undefined : await cardToken(rig().app),
        ...extra,
      },
      key(),
    );
    return res;
  }
  async function wallet(token: string, currency: string, agent = 'powerly') {
    const list = (await get('cdb/user/wallet/new', token)).json().data as {
      pCurrencyType: string;
      pBalance: number;
      pDailiId: string;
    }[];
    return list.find((w) => w.pCurrencyType === currency && w.pDailiId === agent);
  }
  async function invariants() {
    expect(await checkLedger(rig().db)).toEqual([]);
  }
  return { post, get, key, topUp, wallet, invariants };
}
