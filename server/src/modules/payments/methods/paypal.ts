// PayPal (pay type `paypal`): PayPal Checkout through the REST APIs, as PayPal documents them
// (developer.paypal.com/api/rest, the OpenAPI files of github.com/paypal/paypal-rest-api-specifications):
//
//   OAuth 2.0     POST /v1/oauth2/token (HTTP Basic clientId:clientSecret, grant_type=client_credentials); the
//                 bearer token is kept until shortly before `expires_in` runs out, fetched again on a 401.
//   Orders v2     POST /v2/checkout/orders (intent CAPTURE: pay now; AUTHORIZE: the deposit hold) with
//                 payment_source.paypal.experience_context → status PAYER_ACTION_REQUIRED and the `payer-action`
//                 link the customer is sent to; back on return_url with ?token=<order id>&PayerID=…;
//                 POST /v2/checkout/orders/{id}/capture | /authorize; GET /v2/checkout/orders/{id}.
//   Payments v2   GET /v2/payments/authorizations/{id}, POST …/{id}/capture {amount, final_capture},
//                 POST …/{id}/void; GET /v2/payments/captures/{id}, POST …/{id}/refund {amount}.
//   Payouts v1    POST /v1/payments/payouts (sender_batch_id: our idempotency key; PayPal refuses to pay a
//                 sender_batch_id twice within 30 days).
//   Webhooks v1   POST /v1/notifications/verify-webhook-signature with the PAYPAL-* transmission headers, our
//                 webhook id and the event exactly as received → verification_status SUCCESS.
//
// Every POST carries `PayPal-Request-Id` (our idempotency key): PayPal answers a repeated request with the first
// one's result instead of acting twice. Our outTradeNo is the purchase unit's reference_id, invoice_id and
// custom_id (PayPal can refuse a second payment with the same invoice_id: DUPLICATE_INVOICE_ID).
//
// The ref an adapter call returns names what it points at, because PayPal's ids do not: `order:<id>` (after
// start), `capture:<id>` (paid), `auth:<id>` (a hold), `payout:<batch id>`. Every method accepts each of them.
import type {
  AdapterDefinition,
  AdapterDeps,
  Notification,
  NotificationRequest,
  StartInput,
  StartResult,
  StatusResult,
} from './adapter.ts';
import { ProviderError, type ProviderCall } from './adapter.ts';
import { MethodProvider } from './external.ts';
import { paypalSettlements } from '../settlements/paypal.ts';
import type { PayoutInput, Settlements } from '../provider.ts';
import {
  PAYPAL_CURRENCIES,
  PAYPAL_TEST_VALUES,
  DECLINES,
  toPaypalValue,
  type Order,
  type Capture,
  PaypalError,
  parseRef,
  header,
} from './paypal-wire.ts';
import { paypalWire } from './paypal-api.ts';
import { readEvent } from './paypal-events.ts';
export { PAYPAL_LIVE, PAYPAL_SANDBOX, PAYPAL_CURRENCIES, toPaypalValue, fromPaypalValue } from './paypal-wire.ts';

export type PaypalConfig = {
  /** The REST app's client id (Developer Dashboard → Apps & Credentials). */
  clientId: string;
  clientSecret: string;
  /** The id of the webhook registered for our notify URL (Developer Dashboard → the app → Webhooks). */
  webhookId: string;
  /** API root; default live https://api-m.paypal.com, sandbox https://api-m.sandbox.paypal.com. */
  apiBase?: string;
};

export class PaypalMethod extends MethodProvider {
  private readonly w: ReturnType<typeof paypalWire>;

  constructor(
    private readonly config: PaypalConfig,
    deps: AdapterDeps,
  ) {
    super(paypalDefinition, deps);
    this.w = paypalWire(config, deps);
  }

  /** Its Transaction Search of [from, to) (settlements/paypal.ts). */
  override settlements(from: Date, to: Date): Promise<Settlements> {
    return paypalSettlements((path) => this.w.api('GET', path), from, to);
  }

  status(ref: string, _outTradeNo?: string): Promise<StatusResult> {
    return this.w.status(ref);
  }

  async start(input: StartInput): Promise<StartResult> {
    const { api } = this.w;
    const intent = input.capture === 'manual' ? 'AUTHORIZE' : 'CAPTURE';
    const { body } = await api<Order>('POST', '/v2/checkout/orders', {
      requestId: input.idempotencyKey,
      body: {
        intent,
        purchase_units: [
          {
            reference_id: input.outTradeNo,
            invoice_id: input.outTradeNo,
            custom_id: input.outTradeNo,
            description: input.description.slice(0, 127),
            amount: { currency_code: input.currency, value: toPaypalValue(input.amount, input.currency) },
          },
        ],
        payment_source: {
          paypal: {
            ...(input.payer.email ? { email_address: input.payer.email } : {}),
            experience_context: {
              return_url: input.returnUrl,
              cancel_url: input.cancelUrl,
              user_action: 'PAY_NOW',
              shipping_preference: 'NO_SHIPPING',
            },
          },
        },
      },
    });
    const link = body.links?.find((l) => l.rel === 'payer-action') ?? body.links?.find((l) => l.rel === 'approve');
    if (!body.id || !link)
      throw new ProviderError('bad_response', 'PayPal created an order without a payer-action link');
    return { ref: `order:${body.id}`, state: 'pending', action: { kind: 'redirect', url: link.href } };
  }

  override async complete(
    ref: string,
    _outTradeNo: string,
    params: Record<string, string>,
    call: ProviderCall,
  ): Promise<StatusResult> {
    const { api, getOrder, fromOrder, status } = this.w;
    const { kind, id } = parseRef(ref);
    // Already moved on (a second return, a retry after the answer was lost): the payment's state as it is.
    if (kind !== 'order') return status(ref);
    if (params.token !== undefined && params.token !== id) {
      throw new ProviderError('TOKEN_MISMATCH', `PayPal returned token ${params.token} for order ${id}`, 400);
    }
    const order = await getOrder(id);
    if (order.status === 'COMPLETED' || order.status === 'VOIDED') return fromOrder(order);
    if (order.status !== 'APPROVED') return { ref, state: 'pending' };
    const action = order.intent === 'AUTHORIZE' ? 'authorize' : 'capture';
    try {
      const { body } = await api<Order>('POST', `/v2/checkout/orders/${encodeURIComponent(id)}/${action}`, {
        requestId: call.idempotencyKey,
        body: {},
      });
      return await fromOrder(body);
    } catch (err) {
      if (!(err instanceof ProviderError)) throw err;
      if (err.code === 'ORDER_ALREADY_CAPTURED' || err.code === 'ORDER_ALREADY_AUTHORIZED')
        return fromOrder(await getOrder(id));
      if (err.code === 'ORDER_NOT_APPROVED' || err.code === 'PAYER_ACTION_REQUIRED') return { ref, state: 'pending' };
      if (DECLINES.has(err.code)) return { ref, state: 'failed', failureCode: err.code };
      throw err;
    }
  }

  override async capturePayment(ref: string, amount: number, call: ProviderCall): Promise<void> {
    const { api, authorizationOf, voidAuthorization } = this.w;
    const a = await authorizationOf(ref);
    // Nothing to take: the hold is released (PayPal refuses a zero capture: CANNOT_BE_ZERO_OR_NEGATIVE).
    if (amount <= 0) return voidAuthorization(a.id, call.idempotencyKey);
    const currency = a.amount?.currency_code;
    if (!currency) throw new ProviderError('bad_response', `authorization ${a.id} has no amount`);
    try {
      await api<Capture>('POST', `/v2/payments/authorizations/${encodeURIComponent(a.id)}/capture`, {
        requestId: call.idempotencyKey,
        body: { amount: { currency_code: currency, value: toPaypalValue(amount, currency) }, final_capture: true },
      });
    } catch (err) {
      // Captured before (a retry under another key after the first answer was lost): the same capture stands.
      if (err instanceof ProviderError && err.code === 'AUTHORIZATION_ALREADY_CAPTURED') return;
      throw err;
    }
  }

  override async voidPayment(ref: string, call: ProviderCall): Promise<void> {
    const { authorizationOf, voidAuthorization } = this.w;
    const a = await authorizationOf(ref);
    await voidAuthorization(a.id, call.idempotencyKey);
  }

  async refundPayment(ref: string, amount: number, call: ProviderCall): Promise<void> {
    const { api, captureOf } = this.w;
    const c = await captureOf(ref);
    const currency = c.amount?.currency_code;
    if (!currency) throw new ProviderError('bad_response', `capture ${c.id} has no amount`);
    await api('POST', `/v2/payments/captures/${encodeURIComponent(c.id)}/refund`, {
      requestId: call.idempotencyKey,
      body: { amount: { currency_code: currency, value: toPaypalValue(amount, currency) } },
    });
  }

  override async payout(input: PayoutInput): Promise<{ ref: string }> {
    const { api } = this.w;
    if (input.destination.kind !== 'channel')
      throw new ProviderError('unsupported', 'PayPal pays out to a PayPal account (email, phone or PayPal id) only');
    const acc = input.destination.account;
    const recipient = acc.email
      ? { recipient_type: 'EMAIL', receiver: acc.email }
      : acc.phone
        ? { recipient_type: 'PHONE', receiver: acc.phone.startsWith('+') ? acc.phone : `+${acc.phone}` }
        : acc.paypalId
          ? { recipient_type: 'PAYPAL_ID', receiver: acc.paypalId }
          : null;
    if (!recipient)
      throw new ProviderError(
        'INVALID_RECEIVER',
        'a PayPal payout needs the account field email, phone or paypalId',
        400,
      );
    const request = {
      sender_batch_header: { sender_batch_id: input.idempotencyKey, email_subject: 'You have a payout' },
      items: [
        {
          ...recipient,
          amount: { value: toPaypalValue(input.amount, input.currency), currency: input.currency },
          sender_item_id: input.idempotencyKey.slice(0, 63),
          ...(acc.note ? { note: acc.note } : {}),
        },
      ],
    };
    try {
      const { body } = await api<{ batch_header?: { payout_batch_id?: string } }>('POST', '/v1/payments/payouts', {
        requestId: input.idempotencyKey,
        body: request,
      });
      const id = body.batch_header?.payout_batch_id;
      if (!id) throw new ProviderError('bad_response', 'PayPal accepted a payout without a payout_batch_id');
      return { ref: `payout:${id}` };
    } catch (err) {
      // "If you specify a sender_batch_id that was used in the last 30 days, the API rejects the request with an
      // error message that shows the duplicate sender_batch_id and includes a HATEOAS link to the original payout."
      if (err instanceof PaypalError && err.status === 400) {
        const original = err.body.links
          ?.map((l) => /\/v1\/payments\/payouts\/([A-Za-z0-9]+)$/.exec(l.href)?.[1])
          .find(Boolean);
        if (original) return { ref: `payout:${original}` };
      }
      throw err;
    }
  }

  async readNotification(req: NotificationRequest): Promise<Notification | null> {
    const { api } = this.w;
    const { config } = this;
    const fields = {
      auth_algo: header(req.headers, 'paypal-auth-algo'),
      cert_url: header(req.headers, 'paypal-cert-url'),
      transmission_id: header(req.headers, 'paypal-transmission-id'),
      transmission_sig: header(req.headers, 'paypal-transmission-sig'),
      transmission_time: header(req.headers, 'paypal-transmission-time'),
    };
    if (Object.values(fields).some((v) => !v)) return null;
    let event: { id?: string; event_type?: string; resource?: Record<string, unknown> };
    try {
      event = JSON.parse(req.rawBody) as typeof event;
    } catch {
      return null;
    }
    if (!event || typeof event !== 'object' || typeof event.id !== 'string' || typeof event.event_type !== 'string')
      return null;
    // The event goes back to PayPal byte for byte: its signature covers the CRC32 of the body as delivered, and a
    // re-serialised object (another key order, 1.10 written as 1.1) would not verify.
    const rawBody = `${JSON.stringify({ ...fields, webhook_id: config.webhookId }).slice(0, -1)},"webhook_event":${req.rawBody}}`;
    const { body } = await api<{ verification_status?: string }>('POST', '/v1/notifications/verify-webhook-signature', {
      rawBody,
    });
    if (body.verification_status !== 'SUCCESS') return null;
    return {
      eventId: event.id,
      ...readEvent(event.event_type, event.resource ?? {}),
      ack: { status: 200, contentType: 'text/plain', body: '' },
    };
  }
}

export const paypalDefinition: AdapterDefinition<PaypalConfig, PaypalMethod> = {
  payoutChannel: { label: 'PayPal', fields: ['email'] },
  id: 'paypal',
  payTypes: [{ type: 'paypal', kind: 'redirect', label: 'PayPal', platforms: ['web'] }],
  capabilities: { hold: true, partialCapture: true, offSession: false, refund: true, payout: true, webhook: true },
  currencies: PAYPAL_CURRENCIES,
  required: ['clientId', 'clientSecret', 'webhookId'],
  optional: ['apiBase'],
  testValues: PAYPAL_TEST_VALUES,
  create: (config, deps) => new PaypalMethod(config, deps),
};
