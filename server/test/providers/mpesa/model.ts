// The Daraja test server's test phones, records and errors (see ../mpesa.ts).

export const TEST_MSISDN = '254708374149';
export const PHONE_INSUFFICIENT = '254708374141';
export const PHONE_WRONG_PIN = '254708374142';
export const PHONE_NO_ANSWER = '254708374143';

export const OUTCOME: Record<string, { code: number; desc: string } | null> = {
  [TEST_MSISDN]: { code: 0, desc: 'The service request is processed successfully.' },
  [PHONE_INSUFFICIENT]: { code: 1, desc: 'The balance is insufficient for the transaction.' },
  [PHONE_WRONG_PIN]: { code: 2001, desc: 'The initiator information is invalid.' },
  [PHONE_NO_ANSWER]: null,
};

export interface Stk {
  merchantRequestId: string;
  checkoutId: string;
  phone: string;
  amount: number;
  callbackUrl: string;
  accountReference: string;
  state: 'processing' | 'done';
  resultCode?: number;
  resultDesc?: string;
  receipt?: string;
  reversed?: boolean;
  at: Date;
}
export interface Delivery {
  url: string;
  body: unknown;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}
export const bad = (field: string) => new ApiError(400, '400.002.02', `Bad Request - Invalid ${field}`);

export interface FakeDarajaOptions {
  consumerKey: string;
  consumerSecret: string;
  shortCode: string;
  passkey: string;
  initiatorName?: string;
  initiatorPassword?: string;
  b2cShortCode?: string;
  /** The B2C utility account's balance, whole shillings. */
  b2cBalance?: number;
  /** Safaricom's certificate (an X.509 PEM, as the portal gives it) and its private key; default: a fresh RSA key. */
  keys?: { certificate: string; privateKey: string };
}

/** A POST to `url` with a JSON body, as our webhook route sees it (headers, raw body, query). */
export function delivery(url: string, body: unknown) {
  const u = new URL(url);
  return {
    url,
    headers: { 'content-type': 'application/json' } as Record<string, string>,
    rawBody: JSON.stringify(body),
    query: Object.fromEntries(u.searchParams) as Record<string, string>,
  };
}
