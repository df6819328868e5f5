// Mercado Pago Checkout API (card payments): the client turns the card into a single-use card token with
// MercadoPago.js (using clientConfig().publicKey, "the payment key by agent"), and this adapter charges or
// authorises it server-side with the agent's access token.
//
// How the customer pays (live): the paying call carries no card yet; start() answers the in-app form action
//   { kind: 'form', url: '#/MercadoPago', fields: { publicKey, sdkUrl, outTradeNo, amount (major units), currency } }
// The app's /MercadoPago screen loads MercadoPago.js from `sdkUrl`, mounts its Secure Fields, makes the card token
// (with paymentMethodId, issuerId, installments, the payer's e-mail and document) and posts them to
// /payments/return/<outTradeNo>; the resume calls complete(), which creates the payment with that token (the
// idempotency key `complete_<outTradeNo>`: a repeated resume never charges twice). A token given before the paying
// call (the payer step's cardToken) is charged at start() instead. The page's CSP allows MercadoPago.js's hosts
// only while Mercado Pago is configured live (clientSdk).
//
//   POST /v1/payments                 transaction_amount (major units), token, installments, payment_method_id,
//                                     issuer_id, payer.email, external_reference = our outTradeNo, notification_url,
//                                     capture: false for a hold; header X-Idempotency-Key = our key
//   GET  /v1/payments/{id}            status: approved | authorized (hold) | in_process | pending | rejected | cancelled | refunded
//   GET  /v1/payments/search?external_reference=…   when we have no payment id yet
//   PUT  /v1/payments/{id}            {capture: true, transaction_amount ≤ authorised} | {status: 'cancelled'}
//   POST /v1/payments/{id}/refunds    {amount} (partial allowed), X-Idempotency-Key
//   POST /v1/customers, GET /v1/customers/search?email=, POST /v1/customers/{id}/cards {token}   saved cards
//   DELETE /v1/customers/{id}/cards/{card_id}
//
// Saved cards (saveCard): the screen's card token becomes a card of the user's Mercado Pago customer (found by the
// e-mail, or created). A later payment with it (StartInput.card.saved) goes to /MercadoPago with the card's id: the
// screen asks only the security code and makes a fresh card token of the saved card (`createCardToken({cardId})`, as
// Mercado Pago requires for every payment with a saved card); the payment names the customer (payer.type customer),
// whose card the token must be.
//
// Webhooks: `x-signature: ts=<ts>,v1=<hex>` and `x-request-id`; v1 = HMAC-SHA256 (the application's webhook
// secret) of the manifest "id:<data.id>;request-id:<x-request-id>;ts:<ts>;" where data.id is the query
// parameter `data.id` (lower-cased when alphanumeric) and a part whose value is absent is left out. Webhook
// bodies carry no payment status: the service asks status() before it acts. Legacy IPN deliveries (topic + id,
// unsigned) are refused.
import { currencyScale } from '#core/money.ts';
import { createHmac, timingSafeEqual } from 'node:crypto';
import {
  originOf,
  ProviderError,
  type AdapterDefinition,
  type AdapterDeps,
  type Notification,
  type NotificationRequest,
  type StartInput,
  type StartResult,
  type StatusResult,
  type ProviderCall,
  type Action,
  type PaymentFacts,
  type SaveCardInput,
  type SavedCardRef,
} from './adapter.ts';
import { MethodProvider } from './external.ts';
import { mercadopagoSettlements } from '../settlements/mercadopago.ts';
import type { Settlements } from '../provider.ts';
import {
  SDK_URL,
  type MpCustomer,
  type MpCard,
  toMajor,
  toMinor,
  screenCard,
  failureCode,
  header,
  signatureManifest,
} from './mercadopago-wire.ts';
import { mercadopagoWire } from './mercadopago-api.ts';
export {
  type MpCustomer,
  type MpCard,
  toMajor,
  toMinor,
  screenCard,
  failureCode,
  signatureManifest,
} from './mercadopago-wire.ts';

export type MercadoPagoConfig = {
  /** The agent's Mercado Pago access token (APP_USR-… live, TEST-… test credentials). */
  accessToken: string;
  /** The public key the client tokenises cards with. */
  publicKey: string;
  /** The secret signature of the application's webhooks (Your integrations → Webhooks). */
  webhookSecret: string;
  /** API root (default https://api.mercadopago.com; the tests point it at a local server). */
  apiBase?: string;
  /** MercadoPago.js (default https://sdk.mercadopago.com/js/v2; the browser tests serve a stand-in). */
  sdkUrl?: string;
};

export class MercadoPagoMethod extends MethodProvider {
  private readonly w: ReturnType<typeof mercadopagoWire>;

  constructor(
    private readonly config: MercadoPagoConfig,
    deps: AdapterDeps,
  ) {
    super(mercadopagoDefinition, deps);
    this.w = mercadopagoWire(config, deps);
  }

  /** Its payment search of [from, to) (settlements/mercadopago.ts). */
  override settlements(from: Date, to: Date): Promise<Settlements> {
    return mercadopagoSettlements(<T>(path: string) => this.w.call<T>('GET', path), from, to);
  }

  status(ref: string, outTradeNo: string): Promise<StatusResult> {
    return this.w.status(ref, outTradeNo);
  }

  /** A customer of ours at Mercado Pago by e-mail (cards are saved on customers). */
  findCustomer(email: string): Promise<MpCustomer | null> {
    return this.w.findCustomer(email);
  }

  createCustomer(email: string, call: ProviderCall): Promise<MpCustomer> {
    return this.w.createCustomer(email, call);
  }

  /** Attaches a card token to a customer; returns the saved card. */
  addCard(
    customerId: string,
    card: { token: string; paymentMethodId?: string; issuerId?: string },
    call: ProviderCall,
  ): Promise<MpCard> {
    return this.w.addCard(customerId, card, call);
  }

  async start(input: StartInput): Promise<StartResult> {
    const { pay, result } = this.w;
    const { config } = this;
    if (!mercadopagoDefinition.currencies!.includes(input.currency)) {
      throw new ProviderError(
        'currency_not_supported',
        `mercadopago: ${input.currency} is not a Mercado Pago currency`,
        400,
      );
    }
    const card = input.card;
    if (!card?.token) {
      // No card yet: the customer enters it in MercadoPago.js on the app's screen (a saved card: its security code
      // only, the card named by its id); nothing is sent to Mercado Pago.
      const scale = currencyScale(input.currency);
      return {
        ref: '',
        state: 'pending' as const,
        action: {
          kind: 'form' as const,
          url: '#/MercadoPago',
          fields: {
            publicKey: config.publicKey,
            sdkUrl: config.sdkUrl || SDK_URL,
            outTradeNo: input.outTradeNo,
            amount: toMajor(input.amount, input.currency).toFixed(scale),
            currency: input.currency,
            ...(card?.saved ? { cardId: card.saved.cardRef } : {}),
          },
        },
      };
    }
    const p = await pay(
      {
        amount: input.amount,
        currency: input.currency,
        capture: input.capture,
        description: input.description,
        notifyUrl: input.notifyUrl,
      },
      input.outTradeNo,
      { ...card, token: card.token, email: input.payer.email ?? `user${input.payer.userId}@powerly.invalid` },
      input.idempotencyKey,
    );
    const r = result(p);
    let action: Action = { kind: 'none' };
    // 3-D Secure challenge: the customer completes it in the issuer's page (a form post of creq).
    if (p.status_detail === 'pending_challenge' && p.three_ds_info?.external_resource_url) {
      action = {
        kind: 'form',
        url: p.three_ds_info.external_resource_url,
        fields: { creq: p.three_ds_info.creq ?? '' },
      };
    }
    return { ref: r.ref, state: r.state, action, ...(r.failureCode ? { failureCode: r.failureCode } : {}) };
  }

  /**
   * Back from the /MercadoPago screen with the card token (and its payment method, issuer, installments, the
   * payer's e-mail and document): the payment is created now. Once created (a ref), only its status is read.
   */
  override async complete(
    ref: string,
    outTradeNo: string,
    params: Record<string, string>,
    c: ProviderCall,
    payment?: PaymentFacts,
  ): Promise<StatusResult> {
    const { getPayment, status, pay, result } = this.w;
    if (ref) return result(await getPayment(ref));
    const card = screenCard(params, { savedCard: payment?.customerRef !== undefined });
    if (!card || !payment) {
      // No token (or not a well-formed one): a payment made before (a lost answer) is found by our reference.
      const known = await status('', outTradeNo);
      return known.ref || !params.token ? known : { ref: '', state: 'failed' as const, failureCode: 'token_invalid' };
    }
    try {
      return result(await pay(payment, outTradeNo, card, c.idempotencyKey));
    } catch (err) {
      // Refused by Mercado Pago (a used or unknown token, a bad field): a failed payment, not a server error.
      if (err instanceof ProviderError && err.code !== 'network' && (err.status ?? 500) < 500)
        return { ref: '', state: 'failed' as const, failureCode: failureCode(err.code) };
      throw err;
    }
  }

  override async capturePayment(ref: string, amount: number, _call?: ProviderCall): Promise<void> {
    const { call, getPayment } = this.w;
    const p = await getPayment(ref);
    const held = toMinor(p.transaction_amount, p.currency_id);
    // A repeated capture (a job run again) finds the payment captured with this amount: nothing more to do.
    if (p.status === 'approved' && p.captured !== false && held === amount) return;
    if (amount > held)
      throw new ProviderError('amount_too_large', `mercadopago: capture ${amount} above the authorised ${held}`, 400);
    await call('PUT', `/v1/payments/${encodeURIComponent(ref)}`, {
      capture: true,
      transaction_amount: toMajor(amount, p.currency_id),
    });
  }

  override async voidPayment(ref: string, _call?: ProviderCall): Promise<void> {
    const { call, getPayment } = this.w;
    const p = await getPayment(ref);
    if (p.status === 'cancelled') return;
    await call('PUT', `/v1/payments/${encodeURIComponent(ref)}`, { status: 'cancelled' });
  }

  async refundPayment(ref: string, amount: number, c: ProviderCall): Promise<void> {
    const { call, getPayment } = this.w;
    const p = await getPayment(ref);
    await call(
      'POST',
      `/v1/payments/${encodeURIComponent(ref)}/refunds`,
      { amount: toMajor(amount, p.currency_id) },
      c.idempotencyKey,
    );
  }

  async readNotification(req: NotificationRequest): Promise<Notification | null> {
    const { config } = this;
    const sig = header(req.headers, 'x-signature');
    const requestId = header(req.headers, 'x-request-id');
    const dataId = req.query['data.id'];
    if (!sig || !dataId || !config.webhookSecret) return null;
    const parts = Object.fromEntries(sig.split(',').map((kv) => kv.trim().split('=', 2) as [string, string]));
    const ts = parts.ts;
    const v1 = parts.v1;
    if (!ts || !v1 || !/^[0-9a-f]{64}$/i.test(v1)) return null;
    const expected = createHmac('sha256', config.webhookSecret)
      .update(signatureManifest(dataId, requestId, ts))
      .digest();
    if (!timingSafeEqual(expected, Buffer.from(v1, 'hex'))) return null;
    let body: { id?: string | number; action?: string; type?: string; data?: { id?: string | number } };
    try {
      body = JSON.parse(req.rawBody) as typeof body;
    } catch {
      return null;
    }
    // The signature covers the query's data.id, not the body: a body naming another resource is not Mercado Pago's.
    if (body.data?.id !== undefined && String(body.data.id).toLowerCase() !== dataId.toLowerCase()) return null;
    const type = body.type ?? req.query.type;
    const eventId = body.id !== undefined ? `mp:${body.id}` : `mp:${dataId}:${body.action ?? type ?? ''}`;
    return {
      eventId,
      ...(type === 'payment' ? { ref: dataId } : {}),
      ack: { status: 200, contentType: 'text/plain', body: 'OK' },
    };
  }

  override clientConfig() {
    const { config } = this;
    return { publicKey: config.publicKey };
  }

  override async saveCardToken(input: SaveCardInput, c: ProviderCall) {
    const { findCustomer, createCustomer, addCard } = this.w;
    let customerRef = input.customerRef;
    if (!customerRef) {
      // Mercado Pago keeps one customer per e-mail: found again, or created (a lost answer: found by the retry).
      customerRef =
        (await findCustomer(input.email))?.id ??
        (await createCustomer(input.email, { idempotencyKey: `${c.idempotencyKey}_customer` })).id;
    }
    const card = await addCard(customerRef, input, c);
    return {
      customerRef,
      cardRef: String(card.id),
      brand: card.payment_method?.id ?? 'card',
      last4: card.last_four_digits ?? '',
    };
  }

  override async removeCard(saved: SavedCardRef) {
    const { call } = this.w;
    try {
      await call(
        'DELETE',
        `/v1/customers/${encodeURIComponent(saved.customerRef)}/cards/${encodeURIComponent(saved.cardRef)}`,
      );
    } catch (err) {
      if (!(err instanceof ProviderError && err.status === 404)) throw err;
    }
  }
}

export const mercadopagoDefinition: AdapterDefinition<MercadoPagoConfig, MercadoPagoMethod> = {
  id: 'mercadopago',
  payTypes: [{ type: 'MercadoPago', kind: 'card', label: 'Mercado Pago' }],
  capabilities: { hold: true, partialCapture: true, offSession: false, refund: true, payout: false, webhook: true },
  savesCards: true,
  currencies: ['ARS', 'BRL', 'CLP', 'COP', 'MXN', 'PEN', 'UYU'],
  required: ['accessToken', 'publicKey', 'webhookSecret'],
  optional: ['apiBase', 'sdkUrl'],
  // MercadoPago.js and what it loads: its Secure Fields frames (secure-fields, api-static as the fallback) and the
  // API hosts it calls. A stand-in sdkUrl (the browser tests) is allowed alone.
  clientSdk(config) {
    if (config.sdkUrl && config.sdkUrl !== SDK_URL) {
      const o = originOf(config.sdkUrl);
      return o ? { script: [o], frame: [o], connect: [o] } : { script: [], frame: [], connect: [] };
    }
    return {
      script: ['https://sdk.mercadopago.com', 'https://http2.mlstatic.com'],
      frame: [
        'https://secure-fields.mercadopago.com',
        'https://api-static.mercadopago.com',
        'https://www.mercadopago.com',
      ],
      connect: [
        'https://api.mercadopago.com',
        'https://secure-fields.mercadopago.com',
        'https://api-static.mercadopago.com',
        'https://events.mercadopago.com',
        'https://api.mercadolibre.com',
        'https://http2.mlstatic.com',
      ],
    };
  },
  // Mercado Pago's test cards (test credentials only; each site lists its own numbers): CVV 123 (Amex 1234), expiry
  // 11/30; the cardholder name picks the outcome (with CPF 12345678909 in Brazil).
  testValues: [
    { value: '5031 4332 1540 6351', outcome: 'succeeds', note: 'Mastercard (Brazil), CVV 123, 11/30, cardholder APRO' },
    { value: '4235 6477 2802 5682', outcome: 'succeeds', note: 'Visa (Brazil), CVV 123, 11/30, cardholder APRO' },
    { value: '4509 9535 6623 3704', outcome: 'succeeds', note: 'Visa (Argentina), CVV 123, 11/30, cardholder APRO' },
    { value: '5474 9254 3267 0366', outcome: 'succeeds', note: 'Mastercard (Mexico), CVV 123, 11/30, cardholder APRO' },
    {
      value: '3711 803032 57522',
      outcome: 'succeeds',
      note: 'American Express (Argentina, Mexico), CVV 1234, 11/30, cardholder APRO',
    },
    { value: 'APRO', outcome: 'succeeds', note: 'cardholder name: approved' },
    { value: 'OTHE', outcome: 'declined', note: 'cardholder name: rejected, general error (cc_rejected_other_reason)' },
    {
      value: 'CALL',
      outcome: 'declined',
      note: 'cardholder name: rejected, call to authorise (cc_rejected_call_for_authorize)',
    },
    {
      value: 'FUND',
      outcome: 'insufficient_funds',
      note: 'cardholder name: rejected, insufficient amount (cc_rejected_insufficient_amount)',
    },
    { value: 'SECU', outcome: 'declined', note: 'cardholder name: rejected, invalid security code' },
    { value: 'EXPI', outcome: 'declined', note: 'cardholder name: rejected, expiration date' },
    { value: 'FORM', outcome: 'declined', note: 'cardholder name: rejected, form error' },
    { value: 'CONT', outcome: 'no_answer', note: 'cardholder name: pending (in_process, pending_contingency)' },
  ],
  create: (config, deps) => new MercadoPagoMethod(config, deps),
};
