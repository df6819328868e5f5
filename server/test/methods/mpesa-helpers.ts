// The mpesa adapter tests' fixtures (mpesa*.test.ts): the Daraja-compatible test server
// (server/test/providers/mpesa.ts) with our shortcode and initiator, the adapter's configuration and the adapter made
// for it, a push's input, a ProviderError's reading, a paid push, and an X.509 certificate made by the openssl CLI.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
import { ProviderError, type StartInput } from '../../src/modules/payments/methods/adapter.ts';
import type { MethodProvider } from '../../src/modules/payments/methods/external.ts';
import { mpesaDefinition, type MpesaConfig } from '../../src/modules/payments/methods/mpesa.ts';
import { FakeDaraja, TEST_MSISDN } from '../providers/mpesa.ts';

export const SHORT = '174379';
export const PASSKEY = 'bfb279f9aa9bdbcf158e97dd71a467cd2e0c893059b10f78e6b72ada1ed2c919';
export const TOKEN = 'cb-secret-7f3a';
export const NOTIFY = 'https://powerly.example/webhooks/methods/mpesa';
/** Our app and initiator at Daraja (the test server's options). */
export const DARAJA = {
  consumerKey: 'ck_test',
  consumerSecret: 'cs_test',
  shortCode: SHORT,
  passkey: PASSKEY,
  initiatorName: 'testapi',
  initiatorPassword: 'Safaricom999!*!',
};

export let fake: FakeDaraja;
let seq = 0;

/** Starts the Daraja test server for the file (its hooks). */
export function useDaraja() {
  beforeAll(async () => {
    fake = await new FakeDaraja({ ...DARAJA, b2cBalance: 1000 }).start();
  });
  afterAll(async () => {
    await fake?.stop();
  });
}

export function config(over: Partial<MpesaConfig> = {}): MpesaConfig {
  return {
    consumerKey: 'ck_test',
    consumerSecret: 'cs_test',
    shortCode: SHORT,
    passkey: PASSKEY,
    callbackToken: TOKEN,
    initiatorName: 'testapi',
    initiatorPassword: 'Safaricom999!*!',
    certificate: fake.certificate,
    resultUrl: NOTIFY,
    apiBase: fake.url,
    ...over,
  };
}
export const adapter = (over: Partial<MpesaConfig> = {}, f: typeof fetch = fetch): MethodProvider =>
  mpesaDefinition.create(config(over), { fetch: f, now: () => new Date() });

export function input(phone: string, over: Partial<StartInput> = {}): StartInput {
  const n = ++seq;
  return {
    outTradeNo: `PO20261123085200AB${String(n).padStart(6, '0')}`,
    amount: 5000,
    currency: 'KES',
    description: 'Powerly rental deposit',
    capture: 'automatic',
    returnUrl: 'https://powerly.example/result',
    cancelUrl: 'https://powerly.example/result',
    notifyUrl: NOTIFY,
    idempotencyKey: `key-${n}`,
    payType: 'M-PESA',
    payer: { userId: 1, phone },
    ...over,
  };
}

export async function rejects(p: Promise<unknown>): Promise<ProviderError> {
  const e = await p.then(
    () => null,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(ProviderError);
  return e as ProviderError;
}

/** Start, approve on the phone, deliver the callback: the adapter's notification and the paid ref. */
export async function paid(a: MethodProvider, phone = TEST_MSISDN, amount = 5000) {
  const inp = input(phone, { amount });
  const s = await a.start(inp);
  fake.approve(s.ref);
  const note = await a.readNotification(fake.callback(s.ref));
  return { inp, start: s, note: note! };
}

/** A self-signed X.509 certificate and its key, made by the openssl CLI (absent: null, and that test is skipped). */
export function x509(): { certificate: string; privateKey: string } | null {
  const dir = mkdtempSync(join(tmpdir(), 'mpesa-cert-'));
  try {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-keyout',
        join(dir, 'k.pem'),
        '-out',
        join(dir, 'c.pem'),
        '-days',
        '2',
        '-subj',
        '/CN=sandbox.safaricom.co.ke',
      ],
      { stdio: 'ignore' },
    );
    return {
      certificate: readFileSync(join(dir, 'c.pem'), 'utf8'),
      privateKey: readFileSync(join(dir, 'k.pem'), 'utf8'),
    };
  } catch {
    return null;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

type Destination = Parameters<NonNullable<MethodProvider['payout']>>[0]['destination'];
/** A B2C payout's destination: the test MSISDN's M-Pesa account. */
export const TO_PHONE: Destination = { kind: 'channel', channel: 'M-PESA', account: { phone: TEST_MSISDN } };
/** A payout in KES, to the test MSISDN unless another destination is given. */
export const payout = (
  a: MethodProvider,
  amount: number,
  idempotencyKey: string,
  destination: Destination = TO_PHONE,
) => a.payout!({ amount, currency: 'KES', destination, idempotencyKey });

/** A "paid" callback for a push as anyone holding our callback token could post it: not Daraja's. */
export function forgedPaidCallback(checkoutRequestId: string) {
  return {
    headers: { 'content-type': 'application/json' },
    query: { token: TOKEN },
    rawBody: JSON.stringify({
      Body: {
        stkCallback: {
          MerchantRequestID: 'x',
          CheckoutRequestID: checkoutRequestId,
          ResultCode: 0,
          ResultDesc: 'ok',
          CallbackMetadata: {
            Item: [
              { Name: 'Amount', Value: 50 },
              { Name: 'MpesaReceiptNumber', Value: 'FAKE123' },
            ],
          },
        },
      },
    }),
  };
}
