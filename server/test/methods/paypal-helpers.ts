// The PayPal tests' fixtures (paypal*.test.ts): the PayPal test server (test/providers/paypal.ts) with our app and
// another, the adapter made for ours on a clock the tests move, a payment's input, the buyer's approval, and paid
// or held payments.
import { afterAll, beforeAll, expect } from 'vitest';
import { FakePaypal } from '../providers/paypal.ts';
import { paypalDefinition } from '../../src/modules/payments/methods/paypal.ts';
import { ProviderError, type StartInput } from '../../src/modules/payments/methods/adapter.ts';
import type { MethodProvider } from '../../src/modules/payments/methods/external.ts';

export const APP = { clientId: 'AZpowerlyClient', secret: 'EKpowerlySecret', webhookIds: ['8PT597110X687430LKGECATA'] };
export const OTHER = { clientId: 'AZotherClient', secret: 'EKotherSecret', webhookIds: ['1JE4291016473214C'] };

const START = Date.parse('2026-11-23T09:00:00Z');
export let pp: FakePaypal;
let clock = START;
/** Moves the clock the adapter and the test server read. */
export const advanceClock = (ms: number) => {
  clock += ms;
};
export const deps = { fetch: (...a: Parameters<typeof fetch>) => fetch(...a), now: () => new Date(clock) };
export let adapter: MethodProvider;
let seq = 0;

/** Starts the test server on a clock set back to its start and makes the adapter for it (the file's hooks). */
export function usePaypal() {
  beforeAll(async () => {
    clock = START;
    pp = await new FakePaypal([APP, OTHER]).start();
    pp.now = () => clock;
    adapter = paypalDefinition.create(
      { clientId: APP.clientId, clientSecret: APP.secret, webhookId: APP.webhookIds[0]!, apiBase: pp.url },
      deps,
    );
  });
  afterAll(async () => {
    await pp.stop();
  });
}

export function input(over: Partial<StartInput> = {}): StartInput {
  const n = ++seq;
  return {
    outTradeNo: `PW${Date.now().toString(36)}${n}`.toUpperCase(),
    amount: 1250,
    currency: 'USD',
    description: 'Power bank rental',
    capture: 'automatic',
    returnUrl: 'https://powerly.example/result?o=1',
    cancelUrl: 'https://powerly.example/result?o=1&cancel=1',
    notifyUrl: 'https://powerly.example/webhooks/methods/paypal',
    idempotencyKey: `start-${n}-${Math.random()}`,
    payType: 'paypal',
    payer: { userId: 7, email: 'buyer@example.com' },
    ...over,
  };
}
export const key = (s: string) => ({ idempotencyKey: `${s}-${Math.random()}` });
export const orderId = (ref: string) => ref.replace(/^order:/, '');
export const idOf = (ref: string) => ref.split(':')[1]!;

/** The buyer follows the payer-action link, approves, and comes back with PayPal's query parameters. */
export async function buyerApproves(url: string) {
  const res = await fetch(url, { redirect: 'manual' });
  expect(res.status).toBe(302);
  const back = new URL(res.headers.get('location')!);
  return Object.fromEntries(back.searchParams);
}

export async function err(p: Promise<unknown>): Promise<ProviderError> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(ProviderError);
    return e as ProviderError;
  }
  throw new Error('expected a ProviderError');
}

export async function paidPayment(amount = 1250, currency = 'USD') {
  const started = await adapter.start(input({ amount, currency }));
  if (started.action.kind !== 'redirect') throw new Error('not a redirect');
  const params = await buyerApproves(started.action.url);
  const done = await adapter.complete!(started.ref, '', params, key('pay'));
  expect(done.state).toBe('paid');
  return done;
}

export async function heldPayment(amount = 5000) {
  const started = await adapter.start(input({ amount, capture: 'manual' }));
  if (started.action.kind !== 'redirect') throw new Error('not a redirect');
  const params = await buyerApproves(started.action.url);
  const done = await adapter.complete!(started.ref, '', params, key('hold'));
  expect(done.state).toBe('authorized');
  return done;
}
