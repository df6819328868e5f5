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
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Stripe from 'stripe';
import { FakeBalance } from './fake-balance.ts';

type Obj = Record<string, unknown> & { id: string; object: string };

interface Card {
  brand: string;
  last4: string;
  outcome: 'ok' | 'card_declined' | 'insufficient_funds';
  threeDS: 'always' | 'optional';
  holdDays: number;
  type?: 'ideal' | 'wechat_pay';
  funding?: 'debit' | 'prepaid';
}
const TEST_CARDS: Record<string, Card> = {
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
const cardOf = (c: Card) => ({
  brand: c.brand,
  last4: c.last4,
  exp_month: 12,
  exp_year: 2034,
  funding: c.funding ?? 'credit',
  country: 'US',
});

class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: Record<string, unknown>,
  ) {
    super(String(body.message));
  }
}
const invalid = (message: string, code?: string, param?: string) =>
  new ApiError(400, { type: 'invalid_request_error', message, ...(code ? { code } : {}), ...(param ? { param } : {}) });
const missing = (id: string, param = 'id') =>
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

export class FakeStripe {
  private server!: Server;
  port = 0;
  /** One object space per account (API key, or key + Stripe-Account). */
  private readonly spaces = new Map<string, Map<string, Obj>>();
  private readonly idem = new Map<string, { hash: string; status: number; body: string }>();
  private seq = 0;
  /** Every request, for assertions (method, path, account, idempotency key). */
  readonly requests: { method: string; path: string; account: string; idempotencyKey?: string }[] = [];
  /** Seconds since the epoch (tests move it with their clock). */
  now = () => Math.floor(Date.now() / 1000);
  /** Fail the next N requests with a 500 (to exercise retries). */
  failNext = 0;
  /** Process the next N POSTs but cut the connection before answering (the response is lost; Stripe did it). */
  dropNext = 0;
  /** The accounts' balance transactions (fake-balance.ts). */
  readonly balance = new FakeBalance();

  constructor(readonly keys: string[]) {}

  async start() {
    this.server = createServer((req, res) => void this.handle(req, res));
    this.server.keepAliveTimeout = 0; // idle connections stay open until close(): no reset on a loaded machine
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  async stop() {
    await new Promise<void>((r) => this.server.close(() => r()));
  }

  transport() {
    return { host: '127.0.0.1', port: this.port, protocol: 'http' as const };
  }

  private id(prefix: string) {
    return `${prefix}_${(++this.seq).toString(36).padStart(6, '0')}${Math.random().toString(36).slice(2, 8)}`;
  }

  private space(account: string) {
    let s = this.spaces.get(account);
    if (!s) this.spaces.set(account, (s = new Map()));
    return s;
  }

  /** The account whose object space `s` is. */
  private accountOf(s: Map<string, Obj>) {
    return [...this.spaces].find(([, v]) => v === s)![0];
  }

  /** An object of an account (tests inspect state). */
  get(account: string, id: string) {
    return this.space(account).get(id);
  }

  private async handle(req: IncomingMessage, res: ServerResponse) {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks).toString();
    const send = (status: number, body: string, replayed = false) => {
      res.writeHead(status, {
        'content-type': 'application/json',
        'request-id': `req_${++this.seq}`,
        ...(replayed ? { 'idempotent-replayed': 'true' } : {}),
      });
      res.end(body);
    };
    const auth = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    if (!auth || !this.keys.includes(auth)) {
      return send(
        401,
        JSON.stringify({
          error: { type: 'invalid_request_error', message: `Invalid API Key provided: ${auth ?? ''}` },
        }),
      );
    }
    const account = `${auth}|${String(req.headers['stripe-account'] ?? '')}`;
    const url = new URL(req.url ?? '/', 'http://x');
    const key = req.headers['idempotency-key'] as string | undefined;
    this.requests.push({ method: req.method ?? '', path: url.pathname, account, idempotencyKey: key });
    if (this.failNext > 0) {
      this.failNext--;
      return send(500, JSON.stringify({ error: { type: 'api_error', message: 'An unknown error occurred' } }));
    }
    const hash = `${req.method} ${url.pathname} ${raw}`;
    if (key && req.method === 'POST') {
      const prior = this.idem.get(`${account}|${key}`);
      if (prior) {
        if (prior.hash !== hash) {
          return send(
            400,
            JSON.stringify({
              error: {
                type: 'idempotency_error',
                message:
                  'Keys for idempotent requests can only be used with the same parameters they were first used with.',
              },
            }),
          );
        }
        return send(prior.status, prior.body, true);
      }
    }
    const params = req.method === 'GET' ? parseForm(url.search.slice(1)) : parseForm(raw);
    let status = 200;
    let body: string;
    try {
      body = JSON.stringify(this.route(req.method ?? 'GET', url.pathname, params, account));
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      status = err.status;
      body = JSON.stringify({ error: err.body });
    }
    if (key && req.method === 'POST' && status !== 500) this.idem.set(`${account}|${key}`, { hash, status, body });
    if (this.dropNext > 0 && req.method === 'POST') {
      this.dropNext--;
      req.socket.destroy();
      return;
    }
    send(status, body);
  }

  private route(method: string, path: string, p: Record<string, unknown>, account: string): unknown {
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

  /** A payment method object; pm_card_* test ids are materialised on first use (as Stripe clones them). */
  private paymentMethod(s: Map<string, Obj>, id: string) {
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
  private usePaymentMethod(s: Map<string, Obj>, id: string) {
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

  private createIntent(s: Map<string, Obj>, p: Record<string, unknown>) {
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
  private authorise(s: Map<string, Obj>, pi: Obj, pm: Obj, card: Card) {
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

  private capture(s: Map<string, Obj>, pi: Obj, p: Record<string, unknown>) {
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

  private expand(s: Map<string, Obj>, pi: Obj, p: Record<string, unknown>) {
    const ex = (p.expand as string[] | undefined) ?? [];
    if (ex.includes('latest_charge') && pi.latest_charge)
      return { ...pi, latest_charge: s.get(String(pi.latest_charge)) };
    return pi;
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
