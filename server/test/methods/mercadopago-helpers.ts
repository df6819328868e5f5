// The mercadopago adapter tests' fixtures (mercadopago.test.ts): the local Mercado Pago test server
// (server/test/providers/mercadopago.ts), the adapter made for it, a payment's input with a fresh card token, the
// payment facts the /MercadoPago screen completes with, a start that leaves the card to the screen, and the payments
// posted to the server.
import { afterAll, beforeAll, expect } from 'vitest';
import type { StartInput } from '../../src/modules/payments/methods/adapter.ts';
import { mercadopagoDefinition } from '../../src/modules/payments/methods/mercadopago.ts';
import { FakeMercadoPago } from '../providers/mercadopago.ts';

export const MC = '5031 4332 1540 6351';
export const VISA = '4509 9535 6623 3704';
const deps = { fetch: (...a: Parameters<typeof fetch>) => fetch(...a), now: () => new Date() };

export let mp: FakeMercadoPago;
let n = 0;

/** Starts the Mercado Pago test server for the file (its hooks). */
export function useMercadoPago() {
  beforeAll(async () => {
    mp = await new FakeMercadoPago('TEST-access-123', 'TEST-pk-456', 'whsec-789').start();
  });
  afterAll(async () => {
    await mp.stop();
  });
}

export function adapter(
  over: Partial<{ accessToken: string; webhookSecret: string; apiBase: string; sdkUrl: string }> = {},
) {
  return mercadopagoDefinition.create(
    { accessToken: 'TEST-access-123', publicKey: 'TEST-pk-456', webhookSecret: 'whsec-789', apiBase: mp.url, ...over },
    deps,
  );
}

export async function input(holder: string, over: Partial<StartInput> = {}, number = MC): Promise<StartInput> {
  n++;
  return {
    outTradeNo: `PWMP${n}x${Date.now()}`,
    amount: 1250,
    currency: 'BRL',
    description: 'Powerly rental',
    capture: 'automatic',
    returnUrl: 'https://app.test/result',
    cancelUrl: 'https://app.test/result',
    notifyUrl: 'https://api.test/webhooks/methods/mercadopago',
    idempotencyKey: `key-${n}-${Date.now()}`,
    payType: 'MercadoPago',
    payer: { userId: 7, email: 'test_user_123@testuser.com' },
    card: {
      token: await mp.cardToken({ number, holder }),
      paymentMethodId: number === MC ? 'master' : 'visa',
      installments: 1,
    },
    ...over,
  };
}

/** The payment's facts as the /MercadoPago screen's completion has them. */
export const facts = (over: Partial<{ amount: number; capture: 'automatic' | 'manual' }> = {}) => ({
  amount: 1500,
  currency: 'BRL',
  capture: 'automatic' as const,
  description: 'Powerly',
  notifyUrl: 'https://api.test/webhooks/methods/mercadopago',
  ...over,
});

/** A start without a card token (the card is entered on the /MercadoPago screen). */
export async function screen(holder: string, over: Partial<StartInput> = {}) {
  const inp = { ...(await input(holder, { amount: 1500, ...over })), card: undefined };
  const before = mp.requests.length;
  const r = await adapter().start(inp);
  // Nothing reaches Mercado Pago before the customer has entered the card.
  expect(mp.requests.length).toBe(before);
  return { inp, r };
}

/** The payments posted to the server (POST /v1/payments), oldest first. */
export const paymentPosts = () => mp.requests.filter((x) => x.path === '/v1/payments' && x.method === 'POST');
