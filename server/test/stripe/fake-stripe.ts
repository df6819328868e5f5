// A Stripe-compatible test server (test tree only, never shipped): the part of Stripe's HTTP API Powerly uses,
// modelled from Stripe's API reference — form-encoded requests with bracketed keys, JSON objects, the error
// envelope {error: {type, code, decline_code, message, param, payment_intent}} with Stripe's statuses (400, 402,
// 404), Idempotency-Key replay (same key + same request → the first response, `Idempotent-Replayed: true`; a
// different request → 400 idempotency_error), one object space per API key (+ Stripe-Account), and the states:
//   PaymentIntent  requires_payment_method → requires_action (3-D Secure) → requires_capture | succeeded | canceled
//                  manual capture: amount_capturable, capture (≤ amount, the rest released), capture_before
//   SetupIntent    requires_payment_method → requires_action → succeeded;  Customer;  PaymentMethod (attach/detach)
//   Refund         ≤ amount_received − amount_refunded; charge.amount_refunded
//   Balance        a balance transaction per capture and refund (fake-balance.ts), listed by date and page
// Test payment methods follow Stripe's test cards: pm_card_visa, pm_card_chargeDeclined,
// pm_card_chargeDeclinedInsufficientFunds, pm_card_authenticationRequired (3-D Secure always; off-session →
// authentication_required), pm_card_threeDSecureOptional; pm_card_shortHold (capture_before in 2 days); with the
// funding type Stripe reports on the PaymentMethod (card.funding): pm_card_visa_debit (4000 0566 5566 5556) and
// pm_card_mastercard_debit (5200 8282 8282 8210) debit, pm_card_mastercard_prepaid (5105 1051 0510 5100) prepaid,
// the others credit.
import Stripe from 'stripe';
import { FakeStripeIntents } from './fake-stripe-intents.ts';
import { ApiError, invalid, missing, TEST_CARDS, type Obj } from './fake-stripe-model.ts';

export { parseForm } from './fake-stripe-model.ts';

export class FakeStripe extends FakeStripeIntents {
  protected route(method: string, path: string, p: Record<string, unknown>, account: string): unknown {
    const s = this.space(account);
    const seg = path.split('/').filter(Boolean); // ['v1', resource, id?, action?]
    const [, resource, id, action] = seg;
    const find = (oid: string, kind: string) => {
      const o = s.get(oid);
      if (!o || o.object !== kind) throw missing(oid);
      return o;
    };
    if (resource === 'balance_transactions' && method === 'GET' && !id) return this.balance.list(account, p, s);
    if (resource === 'customers' && method === 'POST' && !id) {
      const c: Obj = { id: this.id('cus'), object: 'customer', metadata: p.metadata ?? {}, created: this.now() };
      s.set(c.id, c);
      return c;
    }
    if (resource === 'payment_methods' && id) {
      const pm = this.paymentMethod(s, id);
      if (method === 'GET') return pm;
      if (action === 'detach') {
        if (!pm.customer)
          throw invalid(`The payment method ${id} is not attached to a customer.`, 'payment_method_unexpected_state');
        pm.customer = null;
        return pm;
      }
    }
    if (resource === 'payment_intents') {
      if (method === 'POST' && !id) return this.createIntent(s, p);
      const pi = find(id!, 'payment_intent');
      if (method === 'GET') return this.expand(s, pi, p);
      if (action === 'capture') return this.capture(s, pi, p);
      if (action === 'cancel') {
        if (
          !['requires_payment_method', 'requires_capture', 'requires_confirmation', 'requires_action'].includes(
            String(pi.status),
          )
        ) {
          throw invalid(
            `You cannot cancel this PaymentIntent because it has a status of ${String(pi.status)}.`,
            'payment_intent_unexpected_state',
          );
        }
        Object.assign(pi, {
          status: 'canceled',
          amount_capturable: 0,
          canceled_at: this.now(),
          cancellation_reason: p.cancellation_reason ?? 'requested_by_customer',
        });
        return pi;
      }
    }
    if (resource === 'refunds' && method === 'POST') {
      const pi = find(String(p.payment_intent), 'payment_intent');
      const charge = find(String(pi.latest_charge), 'charge');
      const left = Number(charge.amount_captured) - Number(charge.amount_refunded);
      const amount = p.amount ? Number(p.amount) : left;
      if (pi.status !== 'succeeded')
        throw invalid('This PaymentIntent does not have a successful charge to refund.', 'charge_not_refundable');
      if (amount <= 0 || amount > left)
        throw invalid(
          `Refund amount (${amount}) is greater than unrefunded amount on charge (${left})`,
          'amount_too_large',
          'amount',
        );
      charge.amount_refunded = Number(charge.amount_refunded) + amount;
      charge.refunded = charge.amount_refunded === charge.amount_captured;
      const r: Obj = {
        id: this.id('re'),
        object: 'refund',
        amount,
        currency: pi.currency,
        payment_intent: pi.id,
        charge: charge.id,
        status: 'succeeded',
        created: this.now(),
      };
      s.set(r.id, r);
      this.balance.record(account, r, amount, this.now());
      return r;
    }
    if (resource === 'setup_intents') {
      if (method === 'POST' && !id) {
        const si: Obj = {
          id: this.id('seti'),
          object: 'setup_intent',
          status: 'requires_payment_method',
          customer: p.customer ?? null,
          usage: p.usage ?? 'off_session',
          payment_method: null,
          metadata: p.metadata ?? {},
        };
        si.client_secret = `${si.id}_secret_${Math.random().toString(36).slice(2)}`;
        s.set(si.id, si);
        return si;
      }
      const si = find(id!, 'setup_intent');
      if (method === 'GET') return si;
      if (action === 'confirm') {
        const pm = this.usePaymentMethod(s, String(p.payment_method ?? si.payment_method));
        const card = TEST_CARDS[String(pm.test_card)]!;
        si.payment_method = pm.id;
        if (card.outcome !== 'ok') {
          si.status = 'requires_payment_method';
          throw new ApiError(402, {
            type: 'card_error',
            code: 'card_declined',
            decline_code: card.outcome,
            message: 'Your card was declined.',
            setup_intent: si,
          });
        }
        if (card.threeDS === 'always') {
          si.status = 'requires_action';
          si.next_action = { type: 'use_stripe_sdk' };
          return si;
        }
        si.status = 'succeeded';
        if (si.customer) pm.customer = si.customer;
        return si;
      }
    }
    throw new ApiError(404, {
      type: 'invalid_request_error',
      message: `Unrecognized request URL (${method}: ${path}).`,
    });
  }

  // ---- what happens outside our calls (the customer, the bank, time) -------------------------------------------

  /** The customer passes (or fails) 3-D Secure in Stripe.js. */
  complete3ds(secretKey: string, piId: string, pass = true, stripeAccount = '') {
    const s = this.space(`${secretKey}|${stripeAccount}`);
    const pi = s.get(piId)!;
    if (pi.status !== 'requires_action') throw new Error(`not awaiting action: ${String(pi.status)}`);
    if (!pass) {
      Object.assign(pi, {
        status: 'requires_payment_method',
        next_action: null,
        last_payment_error: { type: 'card_error', code: 'payment_intent_authentication_failure' },
      });
      return pi;
    }
    const pm = s.get(String(pi.payment_method))!;
    this.authorise(s, pi, pm, TEST_CARDS[String(pm.test_card)]!);
    return pi;
  }

  /** The customer pays at the bank (iDEAL) or scans the QR code (WeChat Pay). */
  completeRedirect(secretKey: string, piId: string) {
    return this.complete3ds(secretKey, piId);
  }

  /** The hold lapses (capture_before passed): Stripe cancels the intent. */
  expireHold(secretKey: string, piId: string) {
    const pi = this.space(`${secretKey}|`).get(piId)!;
    Object.assign(pi, { status: 'canceled', cancellation_reason: 'automatic', amount_capturable: 0 });
    return pi;
  }

  /** A webhook delivery for an object as it is now: the JSON body and its Stripe-Signature header. */
  event(type: string, object: unknown, webhookSecret: string, opts: { id?: string; timestamp?: number } = {}) {
    const payload = JSON.stringify({
      id: opts.id ?? this.id('evt'),
      object: 'event',
      type,
      api_version: '2026-10-28',
      created: this.now(),
      livemode: false,
      data: { object },
      pending_webhooks: 1,
      request: { id: null, idempotency_key: null },
    });
    const header = new Stripe('sk_test_signer').webhooks.generateTestHeaderString({
      payload,
      secret: webhookSecret,
      timestamp: opts.timestamp ?? Math.floor(Date.now() / 1000),
    });
    return { payload, header };
  }
}
