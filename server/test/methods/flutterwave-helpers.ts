// The flutterwave tests' fixtures (flutterwave*.test.ts): the Flutterwave v3 test server (server/test/providers/flutterwave.ts)
// with one merchant's keys, the adapter made for it, a payment's input, a ProviderError's reading, and for the live
// card form the product's app on that server (payer endpoint, paying calls, the card tokens, the log).
import { afterAll, beforeAll, expect } from 'vitest';
import { ProviderError, type StartInput } from '../../src/modules/payments/methods/adapter.ts';
import type { MethodProvider } from '../../src/modules/payments/methods/external.ts';
import { flutterwaveDefinition } from '../../src/modules/payments/methods/flutterwave.ts';
import { FakeFlutterwave } from '../providers/flutterwave.ts';
import { build, cabinetsOnline, type Built } from '../helper.ts';
import { loggerOptions } from '../../src/lib/logger.ts';

export const KEYS = {
  secretKey: 'FLWSECK_TEST-0123456789abcdef0123456789abcdef-X',
  encryptionKey: 'FLWSECK_TEST0123456789ab',
  secretHash: 'powerly-webhook-hash-7f3a',
};
export let fake: FakeFlutterwave;
export let flw: MethodProvider;
let seq = 0;
/** The next number of the file's sequence (payment and payout references). */
export const nextSeq = () => ++seq;

export const make = (over: Partial<typeof KEYS & { apiBase: string }> = {}) =>
  flutterwaveDefinition.create(
    { ...KEYS, apiBase: fake.base, ...over },
    { fetch: globalThis.fetch, now: () => new Date() },
  );

export function input(over: Partial<StartInput> = {}): StartInput {
  const outTradeNo = `PW${Date.now().toString(36)}${nextSeq()}`;
  return {
    outTradeNo,
    amount: 125050,
    currency: 'NGN',
    description: 'Power bank rental',
    capture: 'automatic',
    returnUrl: `https://powerly.example/result?o=${outTradeNo}`,
    cancelUrl: 'https://powerly.example/cancel',
    notifyUrl: 'https://powerly.example/webhooks/methods/flutterwave',
    idempotencyKey: `key-${outTradeNo}`,
    payType: 'Flutterwave',
    payer: { userId: 7, email: 'rider@powerly.example', phone: '2348030000000' },
    card: { number: '4187427415564246', cvv: '828', expMonth: '9', expYear: '2032' },
    ...over,
  };
}
export const card = (number: string, cvv: string, expMonth = '09', expYear = '32') => ({
  card: { number, cvv, expMonth, expYear },
});
export const call = { idempotencyKey: 'k' };

export async function providerError(p: Promise<unknown>): Promise<ProviderError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ProviderError);
  return err as ProviderError;
}

/** Starts the test server and makes the adapter for it, for the test file (its beforeAll and afterAll). */
export function useFlutterwave() {
  beforeAll(async () => {
    fake = await new FakeFlutterwave(KEYS).start();
    flw = make();
  });
  afterAll(async () => {
    await fake.stop();
  });
}

export const API = '/cdb-app-api/v1/app';
export const METHOD = 'flutterwave:Flutterwave';
export const logLines: string[] = [];
export let b: Built;
let n = 0;
export const post = (url: string, token: string, body: Record<string, string>, lang = 'en-US') =>
  b.app.inject({
    method: 'POST',
    url: `${API}/${url}`,
    headers: { token, lang, 'idempotency-key': `flw-${n++}` },
    payload: body,
  });
export const verve = {
  cardNumber: '5061 4601 6697 6054 667',
  expiryMonth: '10',
  expiryYear: '29',
  cvv: '564',
  email: 'ada@powerly.example',
};
export const tokens = async () =>
  (
    await b.db.query<{ id: string; details: Record<string, unknown>; used_at: Date | null; expires_at: Date | null }>(
      'select * from external_method_tokens',
    )
  ).rows;

/** The test server, and the product's app paying through it and logging into logLines (the test file's hooks). */
export function useLiveApp() {
  useFlutterwave();
  beforeAll(async () => {
    logLines.length = 0;
    b = await build({
      publicUrl: 'https://powerly.example',
      appOrigins: ['https://app.powerly.example'],
      paymentMethods: { powerly: { flutterwave: { ...KEYS, apiBase: fake.base } } },
      // What the production server logs, at the most talkative level, into this test.
      logger: { ...loggerOptions('trace'), stream: { write: (line: string) => void logLines.push(line) } },
    });
    await cabinetsOnline(b, ['PWL-VNO-001']);
  }, 60_000);
  afterAll(async () => b?.close());
}
