// The Stripe test server's objects, test cards, errors and form parsing (see fake-stripe.ts).

export type Obj = Record<string, unknown> & { id: string; object: string };

export interface Card {
  brand: string;
  last4: string;
  outcome: 'ok' | 'card_declined' | 'insufficient_funds';
  threeDS: 'always' | 'optional';
  holdDays: number;
  type?: 'ideal' | 'wechat_pay';
  funding?: 'debit' | 'prepaid';
}
export const TEST_CARDS: Record<string, Card> = {
  pm_card_visa: { brand: 'visa', last4: '4242', outcome: 'ok', threeDS: 'optional', holdDays: 7 },
  pm_card_mastercard: { brand: 'mastercard', last4: '4444', outcome: 'ok', threeDS: 'optional', holdDays: 7 },
  pm_card_chargeDeclined: { brand: 'visa', last4: '0002', outcome: 'card_declined', threeDS: 'optional', holdDays: 7 },
  pm_card_chargeDeclinedInsufficientFunds: {
    brand: 'visa',
    last4: '9995',
    outcome: 'insufficient_funds',
    threeDS: 'optional',
    holdDays: 7,
  },
  pm_card_authenticationRequired: { brand: 'visa', last4: '3184', outcome: 'ok', threeDS: 'always', holdDays: 7 },
  pm_card_threeDSecureOptional: { brand: 'visa', last4: '3063', outcome: 'ok', threeDS: 'optional', holdDays: 7 },
  pm_card_shortHold: { brand: 'visa', last4: '0077', outcome: 'ok', threeDS: 'optional', holdDays: 2 },
  pm_card_visa_debit: {
    brand: 'visa',
    last4: '5556',
    outcome: 'ok',
    threeDS: 'optional',
    holdDays: 7,
    funding: 'debit',
  },
  pm_card_mastercard_debit: {
    brand: 'mastercard',
    last4: '8210',
    outcome: 'ok',
    threeDS: 'optional',
    holdDays: 7,
    funding: 'debit',
  },
  pm_card_mastercard_prepaid: {
    brand: 'mastercard',
    last4: '5100',
    outcome: 'ok',
    threeDS: 'optional',
    holdDays: 7,
    funding: 'prepaid',
  },
  // Redirect / QR methods: always need the customer (a bank redirect, a WeChat QR code), charge at once.
  pm_ideal: { brand: 'ideal', last4: '', outcome: 'ok', threeDS: 'always', holdDays: 0, type: 'ideal' },
  pm_wechat: { brand: 'wechat_pay', last4: '', outcome: 'ok', threeDS: 'always', holdDays: 0, type: 'wechat_pay' },
};

/** A PaymentMethod's `card` hash as Stripe returns it. */
export const cardOf = (c: Card) => ({
  brand: c.brand,
  last4: c.last4,
  exp_month: 12,
  exp_year: 2034,
  funding: c.funding ?? 'credit',
  country: 'US',
});

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: Record<string, unknown>,
  ) {
    super(String(body.message));
  }
}
export const invalid = (message: string, code?: string, param?: string) =>
  new ApiError(400, { type: 'invalid_request_error', message, ...(code ? { code } : {}), ...(param ? { param } : {}) });
export const missing = (id: string, param = 'id') =>
  new ApiError(404, {
    type: 'invalid_request_error',
    code: 'resource_missing',
    message: `No such object: '${id}'`,
    param,
  });

/** Parses Stripe's form encoding: a[b]=1&a[c][0]=x&expand[]=y → {a: {b: '1', c: ['x']}, expand: ['y']}. */
export function parseForm(body: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of new URLSearchParams(body)) {
    const path = k.replace(/\]/g, '').split('[');
    let node: Record<string, unknown> = out;
    path.forEach((seg, i) => {
      const last = i === path.length - 1;
      const nextIsIndex = !last && /^\d*$/.test(path[i + 1]!);
      if (Array.isArray(node)) {
        const arr = node as unknown as unknown[];
        if (last) arr.push(v);
        else {
          const idx = seg === '' ? arr.length : Number(seg);
          arr[idx] ??= nextIsIndex ? [] : {};
          node = arr[idx] as Record<string, unknown>;
        }
        return;
      }
      if (last) node[seg] = v;
      else {
        node[seg] ??= nextIsIndex ? [] : {};
        node = node[seg] as Record<string, unknown>;
      }
    });
  }
  return out;
}
