// The one webhook entry (payments/webhooks.ts): POST /payments/webhooks/{provider}[/{agent}] for the card provider
// and every method, the configured URLs of before as aliases of the same handler, and each verified delivery read
// as one of a few actions.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cardAction, deliver, methodAction, type WebhookDeps } from '../src/modules/payments/webhooks.ts';
import { webhookPath } from '../src/modules/payments/methods/adapter.ts';
import { build, type Built } from './helper.ts';

let b: Built;
beforeAll(async () => {
  b = await build({ simulator: false });
}, 120_000);
afterAll(async () => {
  await b.close();
});

const post = (url: string, payload: string, headers: Record<string, string> = {}) =>
  b.app.inject({ method: 'POST', url, headers: { 'content-type': 'application/json', ...headers }, payload });

describe('the webhook entry', () => {
  it('serves the card provider at /payments/webhooks/{provider}; the old URL is the same handler (one event id, applied once)', async () => {
    const raw = JSON.stringify({ id: 'evt_entry_1', type: 'customer.updated', data: { ref: 'cus_1' } });
    const sig = b.sandbox.sign(raw);
    expect(
      (await post('/payments/webhooks/sandbox', raw, { 'sandbox-signature': 't=1,v1=' + '0'.repeat(64) })).statusCode,
    ).toBe(400);
    const first = await post('/payments/webhooks/sandbox', raw, { 'sandbox-signature': sig });
    expect([first.statusCode, first.json()]).toEqual([200, { received: true, result: 'ignored' }]);
    const alias = await post('/webhooks/payments/sandbox', raw, { 'sandbox-signature': sig });
    expect([alias.statusCode, alias.json()]).toEqual([200, { received: true, result: 'duplicate' }]);
  });

  it('serves every method at the same entry and its old URL; a delivery that does not verify is a 400', async () => {
    for (const url of ['/payments/webhooks/paypal', '/webhooks/methods/paypal', '/payments/webhooks/mpesa']) {
      const res = await post(url, '{"event_type":"PAYMENT.CAPTURE.COMPLETED"}');
      expect([url, res.statusCode, res.json()]).toEqual([url, 400, { received: false, result: 'signature' }]);
    }
  });

  it('applies an in-process delivery (the sandbox\u2019s payout arrivals) by the same actions: payment events in payments, payouts in the wallet', async () => {
    const payouts: string[] = [];
    const d: WebhookDeps = {
      payments: b.app.powerly.payments,
      db: b.db,
      clock: b.clock,
      payoutNotified: async (_id, e) => {
        payouts.push(`${e.type} ${e.data.ref}`);
        return 'applied';
      },
    };
    const raw = JSON.stringify({ id: 'evt_deliver_1', type: 'payment_intent.canceled', data: { ref: 'pi_not_ours' } });
    await expect(deliver(d, 'sandbox', raw, 't=1,v1=' + '0'.repeat(64))).rejects.toMatchObject({
      code: 400,
      key: 'error.webhook.signature',
    });
    expect(await deliver(d, 'sandbox', raw, b.sandbox.sign(raw))).toBe('ignored'); // payments: not a payment of ours
    expect(await deliver(d, 'sandbox', raw, b.sandbox.sign(raw))).toBe('duplicate');
    const payout = JSON.stringify({ id: 'evt_deliver_2', type: 'payout.failed', data: { ref: 'po_deliver' } });
    expect(await deliver(d, 'sandbox', payout, b.sandbox.sign(payout))).toBe('applied');
    expect(payouts).toEqual(['payout.failed po_deliver']);
  });

  it('answers 404 for a provider (or an agent\u2019s provider) that is not registered, on every URL shape', async () => {
    for (const url of [
      '/payments/webhooks/nosuch',
      '/payments/webhooks/paypal/nosuchagent',
      '/webhooks/payments/stripe',
      '/webhooks/methods/nosuch',
    ]) {
      const res = await post(url, '{}');
      expect([url, res.statusCode]).toEqual([url, 404]);
    }
  });

  it('gives each method the entry as its notify URL, an agent\u2019s instance under its agent', () => {
    expect(webhookPath('paypal')).toBe('/payments/webhooks/paypal');
    expect(webhookPath('flutterwave.go9')).toBe('/payments/webhooks/flutterwave/go9');
  });

  it('reads every delivery as one of a few actions', () => {
    const e = (type: string) => ({ id: 'e', type, data: { ref: 'r' } });
    expect(
      [
        'payment_intent.succeeded',
        'payment_intent.amount_capturable_updated',
        'payment_intent.payment_failed',
        'payment_intent.canceled',
        'charge.refunded',
        'payout.paid',
        'payout.failed',
        'setup_intent.succeeded',
      ].map((t) => cardAction(e(t))),
    ).toEqual([
      'payment.succeeded',
      'payment.succeeded',
      'payment.failed',
      'payment.failed',
      'payment.refunded',
      'payout.paid',
      'payout.failed',
      'ignored',
    ]);
    expect(methodAction({ ref: 'r', state: 'paid' }, true)).toBe('payment.succeeded');
    expect(methodAction({ ref: 'r', state: 'cancelled' }, true)).toBe('payment.failed');
    expect(methodAction({ ref: 'r', state: 'paid' }, false)).toBe('payout.paid');
    expect(methodAction({ ref: 'r', state: 'failed' }, false)).toBe('payout.failed');
    expect(methodAction({ ref: 'r', state: 'pending' }, false)).toBe('ignored');
  });
});
