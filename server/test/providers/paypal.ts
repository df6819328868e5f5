// A PayPal REST test server (test tree only, never shipped): the part of PayPal's API the paypal adapter uses,
// modelled from PayPal's API reference and OpenAPI files (github.com/paypal/paypal-rest-api-specifications):
//   OAuth 2.0   POST /v1/oauth2/token: HTTP Basic client id:secret, grant_type=client_credentials → a bearer token
//               with expires_in; bad credentials → 401 {error: 'invalid_client', error_description}; an unknown or
//               expired bearer → 401 {error: 'invalid_token'}; no bearer → 401 AUTHENTICATION_FAILURE.
//   Errors      {name, message, debug_id, details: [{issue, description, field?}], links} with PayPal's statuses
//               (400 INVALID_REQUEST, 404 RESOURCE_NOT_FOUND, 422 UNPROCESSABLE_ENTITY + the issue).
//   Orders v2   CREATED | PAYER_ACTION_REQUIRED (payment_source.paypal.experience_context: the `payer-action` link)
//               → APPROVED (the buyer, approve()) → COMPLETED (capture | authorize); ORDER_NOT_APPROVED,
//               ORDER_ALREADY_CAPTURED / _AUTHORIZED, ACTION_DOES_NOT_MATCH_INTENT, DUPLICATE_INVOICE_ID, and the
//               buyer's decline (INSTRUMENT_DECLINED …) from negative testing: a PayPal-Mock-Response header
//               {"mock_application_codes": CODE} or a test buyer given to approve().
//   Payments v2 authorizations CREATED → CAPTURED (final_capture) | PARTIALLY_CAPTURED | VOIDED; captures ≤ 115 %
//               of the authorised amount (MAX_CAPTURE_AMOUNT_EXCEEDED); void 204 (PREVIOUSLY_VOIDED,
//               PREVIOUSLY_CAPTURED); refunds ≤ what is left (REFUND_AMOUNT_EXCEEDED, CAPTURE_FULLY_REFUNDED);
//               capture COMPLETED → PARTIALLY_REFUNDED → REFUNDED.
//   Idempotency PayPal-Request-Id: the same id on the same call → the first answer again (200 instead of 201).
//   Payouts v1  POST /v1/payments/payouts → batch PENDING; a sender_batch_id used before → 400 USER_BUSINESS_ERROR
//               with a link to the original batch; the Payouts test values in items[0].note (ERRPYO002, ERRPYO005…);
//               settlePayout() finishes an item and gives its PAYMENT.PAYOUTS-ITEM.* webhook.
//   Webhooks    deliveries signed as PayPal signs them (SHA256withRSA over
//               `<transmission id>|<transmission time>|<webhook id>|<CRC32 of the body>`, a cert URL to fetch the key
//               from); POST /v1/notifications/verify-webhook-signature checks the signature against the event bytes
import { randomBytes, sign, verify } from 'node:crypto';
import { PaypalPayments } from './paypal/payments.ts';
import {
  crc32,
  debugId,
  notFound,
  parseMoney,
  PAYOUT_TEST_VALUES,
  PaypalApiError,
  topLevelSpans,
  type PayoutBatch,
  type PayoutItem,
} from './paypal/model.ts';

export { crc32, PaypalApiError } from './paypal/model.ts';

export class FakePaypal extends PaypalPayments {
  protected route(
    app: string,
    method: string,
    path: string,
    b: Record<string, unknown>,
    raw: string,
    full: boolean,
    mock?: string,
  ): [number, unknown] {
    const seg = path.split('/').filter(Boolean);
    if (path === '/v2/checkout/orders' && method === 'POST') return [201, this.createOrder(app, b)];
    if (seg[0] === 'v2' && seg[1] === 'checkout' && seg[2] === 'orders' && seg[3]) {
      const order = this.orders.get(seg[3]);
      if (!order || order.app !== app) throw notFound(seg[3]);
      if (method === 'GET' && !seg[4]) return [200, this.orderView(order)];
      if (method === 'POST' && (seg[4] === 'capture' || seg[4] === 'authorize'))
        return [201, this.completeOrder(order, seg[4], mock)];
    }
    if (seg[0] === 'v2' && seg[1] === 'payments' && seg[3]) {
      const id = seg[3];
      if (seg[2] === 'authorizations') {
        const a = this.authorizations.get(id);
        if (!a || a.app !== app) throw notFound(id);
        if (method === 'GET' && !seg[4]) return [200, this.authorizationView(a)];
        if (method === 'POST' && seg[4] === 'capture') return [201, this.captureAuthorization(a, b, mock)];
        if (method === 'POST' && seg[4] === 'void') {
          this.voidAuthorization(a, mock);
          return full ? [200, this.authorizationView(a)] : [204, undefined];
        }
      }
      if (seg[2] === 'captures') {
        const c = this.captures.get(id);
        if (!c || c.app !== app) throw notFound(id);
        if (method === 'GET' && !seg[4]) return [200, this.captureView(c)];
        if (method === 'POST' && seg[4] === 'refund') return [201, this.refund(c, b, mock)];
      }
      if (seg[2] === 'refunds' && method === 'GET') {
        const r = this.refunds.get(id);
        if (!r || r.app !== app) throw notFound(id);
        return [200, this.refundView(r)];
      }
    }
    if (path === '/v1/payments/payouts' && method === 'POST') return [201, this.createPayout(app, b)];
    if (seg[0] === 'v1' && seg[1] === 'payments' && seg[2] === 'payouts' && seg[3] && method === 'GET') {
      const batch = this.batches.get(seg[3]);
      if (!batch || batch.app !== app) throw notFound(seg[3]);
      return [200, this.batchView(batch)];
    }
    if (path === '/v1/notifications/verify-webhook-signature' && method === 'POST')
      return [200, this.verifyWebhook(app, b, raw)];
    throw new PaypalApiError(404, {
      name: 'RESOURCE_NOT_FOUND',
      message: `The specified resource does not exist: ${method} ${path}`,
      debug_id: debugId(),
    });
  }

  private createPayout(app: string, b: Record<string, unknown>) {
    const header = b.sender_batch_header as Record<string, unknown> | undefined;
    const items = b.items as Record<string, unknown>[] | undefined;
    if (!header || !Array.isArray(items) || items.length === 0) {
      throw new PaypalApiError(400, {
        name: 'VALIDATION_ERROR',
        message: 'Invalid request - see details',
        debug_id: debugId(),
        details: [
          { field: items ? 'sender_batch_header' : 'items', location: 'body', issue: 'Required field is missing' },
        ],
      });
    }
    const senderBatchId = String(header.sender_batch_id ?? '');
    for (const other of this.batches.values()) {
      if (other.app === app && senderBatchId && other.header.sender_batch_id === senderBatchId) {
        throw new PaypalApiError(400, {
          name: 'USER_BUSINESS_ERROR',
          message: 'User business error.',
          debug_id: debugId(),
          information_link: 'https://developer.paypal.com/docs/api/payments.payouts-batch/#errors',
          details: [
            { field: 'SENDER_BATCH_ID', location: 'body', issue: `Batch with given sender_batch_id already exists` },
          ],
          links: [
            {
              href: `${this.url}/v1/payments/payouts/${other.id}`,
              rel: 'self',
              method: 'GET',
              encType: 'application/json',
            },
          ],
        });
      }
    }
    const test = PAYOUT_TEST_VALUES[String(items[0]!.note ?? '')];
    if (test)
      throw new PaypalApiError(test[0], {
        name: test[1],
        message: test[2],
        debug_id: debugId(),
        information_link: 'https://developer.paypal.com/docs/api/payments.payouts-batch/v1/#errors',
      });
    const batch: PayoutBatch = { id: this.id().slice(0, 13), app, status: 'PENDING', header: { ...header }, items: [] };
    for (const item of items) {
      if (
        !['EMAIL', 'PHONE', 'PAYPAL_ID'].includes(String(item.recipient_type ?? header.recipient_type)) ||
        !item.receiver
      ) {
        throw new PaypalApiError(400, {
          name: 'VALIDATION_ERROR',
          message: 'Invalid request - see details',
          debug_id: debugId(),
          details: [
            { field: 'items[0].receiver', location: 'body', issue: 'Receiver is invalid or does not match with type' },
          ],
        });
      }
      parseMoney(item.amount, 'items[0].amount', 'currency');
      batch.items.push({
        payout_item_id: this.id().slice(0, 13),
        transaction_status: 'PENDING',
        payout_batch_id: batch.id,
        payout_item: { ...item } as PayoutItem['payout_item'],
      });
    }
    this.batches.set(batch.id, batch);
    return {
      batch_header: { payout_batch_id: batch.id, batch_status: batch.status, sender_batch_header: batch.header },
      links: [
        {
          href: `${this.url}/v1/payments/payouts/${batch.id}`,
          rel: 'self',
          method: 'GET',
          encType: 'application/json',
        },
      ],
    };
  }

  private batchView(batch: PayoutBatch) {
    return {
      batch_header: { payout_batch_id: batch.id, batch_status: batch.status, sender_batch_header: batch.header },
      items: batch.items.map((i) => ({ ...i, links: [] })),
      links: [{ href: `${this.url}/v1/payments/payouts/${batch.id}`, rel: 'self', method: 'GET' }],
    };
  }

  // ---- Webhooks --------------------------------------------------------------------------------------------------

  private verifyWebhook(app: string, b: Record<string, unknown>, raw: string) {
    const need = [
      'auth_algo',
      'cert_url',
      'transmission_id',
      'transmission_sig',
      'transmission_time',
      'webhook_id',
      'webhook_event',
    ];
    const missing = need.filter((k) => b[k] === undefined || b[k] === '');
    if (missing.length) {
      throw new PaypalApiError(400, {
        name: 'VALIDATION_ERROR',
        message: 'Invalid request - see details',
        debug_id: debugId(),
        details: missing.map((field) => ({ field, location: 'body', issue: 'Required field cannot be blank' })),
      });
    }
    const failure = { verification_status: 'FAILURE' };
    // Only the app's own webhooks verify, and only with PayPal's certificate.
    if (!this.apps.get(app)?.webhookIds.includes(String(b.webhook_id))) return failure;
    if (b.cert_url !== `${this.url}/v1/notifications/certs/${this.certId}` || b.auth_algo !== 'SHA256withRSA')
      return failure;
    // The event's bytes as the caller sent them back (not a re-serialisation).
    const eventBytes = topLevelSpans(raw).get('webhook_event') ?? '';
    const message = `${String(b.transmission_id)}|${String(b.transmission_time)}|${String(b.webhook_id)}|${crc32(eventBytes)}`;
    let ok: boolean;
    try {
      ok = verify(
        'sha256',
        Buffer.from(message),
        this.keys.publicKey,
        Buffer.from(String(b.transmission_sig), 'base64'),
      );
    } catch {
      ok = false;
    }
    return ok ? { verification_status: 'SUCCESS' } : failure;
  }

  /**
   * A webhook delivery as PayPal sends it: the event JSON and the PAYPAL-* headers signed for `webhookId`.
   * `redeliver` sends an earlier delivery again (same event id, a new transmission).
   */
  webhook(
    eventType: string,
    resource: Record<string, unknown>,
    webhookId: string,
    opts: { id?: string; raw?: string } = {},
  ) {
    const resourceType = eventType.startsWith('CHECKOUT.ORDER')
      ? 'checkout-order'
      : eventType.includes('PAYOUTS-ITEM')
        ? 'payouts_item'
        : eventType === 'PAYMENT.CAPTURE.REFUNDED'
          ? 'refund'
          : eventType.startsWith('PAYMENT.AUTHORIZATION')
            ? 'authorization'
            : 'capture';
    const rawBody =
      opts.raw ??
      JSON.stringify({
        id:
          opts.id ??
          `WH-${randomBytes(8).toString('hex').toUpperCase()}-${randomBytes(8).toString('hex').toUpperCase()}`,
        event_version: '1.0',
        create_time: this.iso(),
        resource_type: resourceType,
        resource_version: '2.0',
        event_type: eventType,
        summary: `${eventType} event`,
        resource,
        links: [{ href: `${this.url}/v1/notifications/webhooks-events/x`, rel: 'self', method: 'GET' }],
      });
    return { rawBody, headers: this.sign(rawBody, webhookId) };
  }

  /** The same event delivered again: a new transmission id, time and signature over the same body. */
  redeliver(delivery: { rawBody: string }, webhookId: string) {
    return { rawBody: delivery.rawBody, headers: this.sign(delivery.rawBody, webhookId) };
  }

  private sign(rawBody: string, webhookId: string): Record<string, string> {
    const transmissionId = `${randomBytes(4).toString('hex')}-${randomBytes(2).toString('hex')}-11f0-${randomBytes(2).toString('hex')}-${randomBytes(6).toString('hex')}`;
    const time = this.iso();
    const sig = sign(
      'sha256',
      Buffer.from(`${transmissionId}|${time}|${webhookId}|${crc32(rawBody)}`),
      this.keys.privateKey,
    ).toString('base64');
    return {
      'paypal-auth-algo': 'SHA256withRSA',
      'paypal-auth-version': 'v2',
      'paypal-cert-url': `${this.url}/v1/notifications/certs/${this.certId}`,
      'paypal-transmission-id': transmissionId,
      'paypal-transmission-sig': sig,
      'paypal-transmission-time': time,
      'content-type': 'application/json',
    };
  }

  // ---- What happens outside our calls (the buyer, PayPal's back office) ------------------------------------------

  /**
   * The buyer signs in at the payer-action link and approves; returns where PayPal sends them (return_url with
   * token and PayerID). `mock` is a test buyer that will be declined when the order is captured or authorised.
   */
  approve(orderId: string, opts: { mock?: string; email?: string } = {}) {
    const o = this.orders.get(orderId);
    if (!o) throw new Error(`no order ${orderId}`);
    if (o.status !== 'PAYER_ACTION_REQUIRED' && o.status !== 'CREATED')
      throw new Error(`order ${orderId} is ${o.status}`);
    o.status = 'APPROVED';
    o.payer = { payer_id: 'QYR5Z8XDVJNXQ', email_address: opts.email ?? 'sb-buyer@personal.example.com' };
    o.mock = opts.mock;
    const back = new URL(o.returnUrl ?? 'https://example.invalid/return');
    back.searchParams.set('token', o.id);
    back.searchParams.set('PayerID', o.payer.payer_id);
    return back.toString();
  }

  /** The buyer cancels on PayPal's page: back to cancel_url with the token; the order stays unapproved. */
  cancel(orderId: string) {
    const o = this.orders.get(orderId)!;
    const back = new URL(o.cancelUrl ?? 'https://example.invalid/cancel');
    back.searchParams.set('token', o.id);
    return back.toString();
  }

  /** A payout batch is processed: its item succeeds or fails; returns the item's webhook for `webhookId`. */
  settlePayout(batchId: string, outcome: 'SUCCESS' | 'FAILED' | 'UNCLAIMED', webhookId: string) {
    const batch = this.batches.get(batchId);
    if (!batch) throw new Error(`no payout batch ${batchId}`);
    batch.status = 'SUCCESS';
    const item = batch.items[0]!;
    item.transaction_status = outcome;
    item.transaction_id = this.id();
    if (outcome === 'FAILED') item.errors = { name: 'RECEIVER_UNREGISTERED', message: 'Receiver is unregistered' };
    const type =
      outcome === 'SUCCESS'
        ? 'PAYMENT.PAYOUTS-ITEM.SUCCEEDED'
        : outcome === 'FAILED'
          ? 'PAYMENT.PAYOUTS-ITEM.FAILED'
          : 'PAYMENT.PAYOUTS-ITEM.UNCLAIMED';
    return this.webhook(type, { ...item, sender_batch_id: batch.header.sender_batch_id }, webhookId);
  }

  /** The resources as PayPal shows them (tests read state and build webhook resources). */
  order(id: string) {
    const o = this.orders.get(id);
    return o && this.orderView(o);
  }
  capture(id: string) {
    const c = this.captures.get(id);
    return c && this.captureView(c);
  }
  authorization(id: string) {
    const a = this.authorizations.get(id);
    return a && this.authorizationView(a);
  }
  refundsOf(captureId: string) {
    return (this.captures.get(captureId)?.refunds ?? []).map((id) => this.refundView(this.refunds.get(id)!));
  }
  payoutBatch(id: string) {
    const b = this.batches.get(id);
    return b && this.batchView(b);
  }
}
