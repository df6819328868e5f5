// The Stripe test server's PaymentIntents: payment methods from test cards, confirmation, 3-D Secure, authorisation
// and capture (see fake-stripe.ts).
import { FakeStripeCore } from './fake-stripe-core.ts';
import { ApiError, cardOf, invalid, missing, TEST_CARDS, type Card, type Obj } from './fake-stripe-model.ts';

export abstract class FakeStripeIntents extends FakeStripeCore {
  /** A payment method object; pm_card_* test ids are materialised on first use (as Stripe clones them). */
  protected paymentMethod(s: Map<string, Obj>, id: string) {
    let pm = s.get(id);
    if (!pm && TEST_CARDS[id]) {
      const c = TEST_CARDS[id];
      pm = {
        id,
        object: 'payment_method',
        type: c.type ?? 'card',
        customer: null,
        test_card: id,
        ...(c.type ? { [c.type]: {} } : { card: cardOf(c) }),
      };
      s.set(id, pm);
    }
    if (!pm || pm.object !== 'payment_method') throw missing(id, 'payment_method');
    return pm;
  }

  /** A test card id (pm_card_visa) used in a payment becomes a new payment method each time, as at Stripe. */
  protected usePaymentMethod(s: Map<string, Obj>, id: string) {
    if (!TEST_CARDS[id]) return this.paymentMethod(s, id);
    const c = TEST_CARDS[id];
    const pm: Obj = {
      id: this.id('pm'),
      object: 'payment_method',
      type: c.type ?? 'card',
      customer: null,
      test_card: id,
      ...(c.type ? { [c.type]: {} } : { card: cardOf(c) }),
    };
    s.set(pm.id, pm);
    return pm;
  }

  protected createIntent(s: Map<string, Obj>, p: Record<string, unknown>) {
    const amount = Number(p.amount);
    if (!Number.isInteger(amount) || amount < 1)
      throw invalid('Invalid positive integer', 'parameter_invalid_integer', 'amount');
    if (!/^[a-z]{3}$/.test(String(p.currency)))
      throw invalid('Invalid currency', 'parameter_invalid_string', 'currency');
    const pmId = String(p.payment_method ?? '');
    const pm = this.usePaymentMethod(s, pmId);
    if (p.customer && !s.get(String(p.customer))) throw missing(String(p.customer), 'customer');
    if (p.off_session === 'true' && (!p.customer || (pm.customer && pm.customer !== p.customer))) {
      throw invalid(
        'The provided PaymentMethod was previously used with a PaymentIntent without Customer attachment.',
        'payment_method_unexpected_state',
        'payment_method',
      );
    }
    const pi: Obj = {
      id: this.id('pi'),
      object: 'payment_intent',
      amount,
      currency: p.currency,
      status: 'requires_payment_method',
      capture_method: p.capture_method ?? 'automatic',
      amount_capturable: 0,
      amount_received: 0,
      customer: p.customer ?? null,
      payment_method: pm.id,
      setup_future_usage: p.setup_future_usage ?? null,
      metadata: p.metadata ?? {},
      latest_charge: null,
      last_payment_error: null,
      next_action: null,
      created: this.now(),
      livemode: false,
    };
    pi.client_secret = `${pi.id}_secret_${Math.random().toString(36).slice(2)}`;
    s.set(pi.id, pi);
    if (p.confirm !== 'true') return this.expand(s, pi, p);
    const card = TEST_CARDS[String(pm.test_card)]!;
    const type = card.type ?? 'card';
    const allowed = (p.allowed_payment_method_types as string[] | undefined) ?? ['card'];
    if (!allowed.includes(type)) {
      throw invalid(
        `The PaymentMethod provided (${type}) is not allowed for this PaymentIntent.`,
        'payment_intent_incompatible_payment_method',
        'payment_method',
      );
    }
    if (type !== 'card') {
      if (pi.capture_method === 'manual')
        throw invalid(
          `${type} does not support capture_method=manual.`,
          'payment_intent_invalid_parameter',
          'capture_method',
        );
      if (type === 'ideal' && !p.return_url)
        throw invalid('A return_url is required to confirm with ideal.', 'parameter_missing', 'return_url');
      if (
        type === 'wechat_pay' &&
        (p.payment_method_options as { wechat_pay?: { client?: string } } | undefined)?.wechat_pay?.client !== 'web'
      ) {
        throw invalid(
          'payment_method_options[wechat_pay][client] is required.',
          'parameter_missing',
          'payment_method_options[wechat_pay][client]',
        );
      }
      pi.status = 'requires_action';
      pi.next_action =
        type === 'ideal'
          ? {
              type: 'redirect_to_url',
              redirect_to_url: { url: 'https://bank.example/ideal', return_url: p.return_url },
            }
          : {
              type: 'wechat_pay_display_qr_code',
              wechat_pay_display_qr_code: { data: 'weixin://wxpay/bizpayurl?pr=x' },
            };
      return this.expand(s, pi, p);
    }
    if (card.outcome !== 'ok') {
      pi.last_payment_error = {
        type: 'card_error',
        code: 'card_declined',
        decline_code: card.outcome,
        message: 'Your card was declined.',
      };
      throw new ApiError(402, {
        type: 'card_error',
        code: 'card_declined',
        decline_code: card.outcome,
        message: 'Your card was declined.',
        payment_intent: pi,
      });
    }
    if (card.threeDS === 'always') {
      if (p.off_session === 'true') {
        pi.last_payment_error = {
          type: 'card_error',
          code: 'authentication_required',
          message: 'This payment requires authentication.',
        };
        throw new ApiError(402, {
          type: 'card_error',
          code: 'authentication_required',
          decline_code: 'authentication_required',
          message: 'Your card was declined. This transaction requires authentication.',
          payment_intent: pi,
        });
      }
      pi.status = 'requires_action';
      pi.next_action = { type: 'use_stripe_sdk', use_stripe_sdk: { type: 'three_d_secure_redirect' } };
      return this.expand(s, pi, p);
    }
    this.authorise(s, pi, pm, card);
    return this.expand(s, pi, p);
  }

  /** The card network's answer: a hold (manual) or a charge (automatic); the card saved when asked. */
  protected authorise(s: Map<string, Obj>, pi: Obj, pm: Obj, card: Card) {
    const manual = pi.capture_method === 'manual';
    const charge: Obj = {
      id: this.id('ch'),
      object: 'charge',
      amount: pi.amount,
      currency: pi.currency,
      captured: !manual,
      amount_captured: manual ? 0 : pi.amount,
      amount_refunded: 0,
      refunded: false,
      payment_intent: pi.id,
      status: 'succeeded',
      payment_method_details: card.type
        ? { type: card.type, [card.type]: {} }
        : {
            type: 'card',
            card: {
              brand: card.brand,
              last4: card.last4,
              funding: card.funding ?? 'credit',
              ...(manual ? { capture_before: this.now() + card.holdDays * 86_400 } : {}),
            },
          },
    };
    s.set(charge.id, charge);
    if (!manual) this.balance.record(this.accountOf(s), charge, Number(pi.amount), this.now());
    Object.assign(pi, {
      status: manual ? 'requires_capture' : 'succeeded',
      amount_capturable: manual ? pi.amount : 0,
      amount_received: manual ? 0 : pi.amount,
      latest_charge: charge.id,
      next_action: null,
    });
    if (pi.customer && (pi.setup_future_usage || pi.payment_method)) pm.customer ??= pi.customer;
  }

  protected capture(s: Map<string, Obj>, pi: Obj, p: Record<string, unknown>) {
    if (pi.status !== 'requires_capture') {
      throw invalid(
        `This PaymentIntent could not be captured because it has a status of ${String(pi.status)}.`,
        'payment_intent_unexpected_state',
      );
    }
    const charge = s.get(String(pi.latest_charge))!;
    const capBefore = (charge.payment_method_details as { card: { capture_before: number } }).card.capture_before;
    if (this.now() > capBefore) {
      Object.assign(pi, { status: 'canceled', cancellation_reason: 'automatic', amount_capturable: 0 });
      throw invalid(
        'This PaymentIntent could not be captured because the authorization expired.',
        'payment_intent_unexpected_state',
      );
    }
    const amount = p.amount_to_capture ? Number(p.amount_to_capture) : Number(pi.amount);
    if (amount < 1 || amount > Number(pi.amount_capturable))
      throw invalid(
        'The amount to capture is greater than the amount capturable.',
        'amount_too_large',
        'amount_to_capture',
      );
    Object.assign(charge, { captured: true, amount_captured: amount });
    this.balance.record(this.accountOf(s), charge, amount, this.now());
    Object.assign(pi, { status: 'succeeded', amount_received: amount, amount_capturable: 0 });
    return this.expand(s, pi, p);
  }

  protected expand(s: Map<string, Obj>, pi: Obj, p: Record<string, unknown>) {
    const ex = (p.expand as string[] | undefined) ?? [];
    if (ex.includes('latest_charge') && pi.latest_charge)
      return { ...pi, latest_charge: s.get(String(pi.latest_charge)) };
    return pi;
  }
}
