// The PayPal test server's Orders v2 and Payments v2 (authorizations, captures, refunds); see ../paypal.ts.
import { PaypalCore } from './core.ts';
import {
  BUYER_DECLINES,
  fmt,
  invalidRequest,
  mockCode,
  parseMoney,
  unprocessable,
  type Authorization,
  type Capture,
  type Link,
  type Order,
  type Refund,
} from './model.ts';

export abstract class PaypalPayments extends PaypalCore {
  // ---- Orders v2 -------------------------------------------------------------------------------------------------

  protected createOrder(app: string, b: Record<string, unknown>) {
    if (b.intent !== 'CAPTURE' && b.intent !== 'AUTHORIZE')
      throw invalidRequest('/intent', 'INVALID_PARAMETER_VALUE', 'The value of a field is invalid.');
    const units = b.purchase_units as Record<string, unknown>[] | undefined;
    if (!Array.isArray(units) || units.length === 0)
      throw invalidRequest('/purchase_units', 'MISSING_REQUIRED_PARAMETER', 'A required field / parameter is missing.');
    const unit = units[0]!;
    parseMoney(unit.amount, "/purchase_units/@reference_id=='default'/amount");
    const paypal = (b.payment_source as { paypal?: { experience_context?: Record<string, string> } } | undefined)
      ?.paypal;
    const ctx = paypal?.experience_context;
    if (paypal && (!ctx?.return_url || !ctx.cancel_url))
      throw unprocessable(!ctx?.return_url ? 'RETURN_URL_REQUIRED' : 'CANCEL_URL_REQUIRED');
    const order: Order = {
      id: this.id(),
      app,
      intent: b.intent,
      status: paypal ? 'PAYER_ACTION_REQUIRED' : 'CREATED',
      unit: { reference_id: 'default', ...unit } as Order['unit'],
      returnUrl: ctx?.return_url,
      cancelUrl: ctx?.cancel_url,
      create_time: this.iso(),
      authorizations: [],
      captures: [],
    };
    this.orders.set(order.id, order);
    return this.orderView(order);
  }

  protected orderLinks(o: Order): Link[] {
    const self = { href: `${this.url}/v2/checkout/orders/${o.id}`, rel: 'self', method: 'GET' };
    const buyer = `${this.url}/checkoutnow?token=${o.id}`;
    if (o.status === 'PAYER_ACTION_REQUIRED') return [self, { href: buyer, rel: 'payer-action', method: 'GET' }];
    if (o.status === 'CREATED')
      return [
        self,
        { href: buyer, rel: 'approve', method: 'GET' },
        { href: self.href, rel: 'update', method: 'PATCH' },
      ];
    if (o.status === 'APPROVED')
      return [
        self,
        { href: self.href, rel: 'update', method: 'PATCH' },
        {
          href: `${self.href}/${o.intent === 'CAPTURE' ? 'capture' : 'authorize'}`,
          rel: o.intent === 'CAPTURE' ? 'capture' : 'authorize',
          method: 'POST',
        },
      ];
    return [self];
  }

  protected orderView(o: Order) {
    const payments =
      o.authorizations.length || o.captures.length
        ? {
            payments: {
              ...(o.authorizations.length
                ? { authorizations: o.authorizations.map((id) => this.authorizationView(this.authorizations.get(id)!)) }
                : {}),
              ...(o.captures.length
                ? { captures: o.captures.map((id) => this.captureView(this.captures.get(id)!)) }
                : {}),
            },
          }
        : {};
    return {
      id: o.id,
      intent: o.intent,
      status: o.status,
      payment_source: {
        paypal: o.payer
          ? { email_address: o.payer.email_address, account_id: o.payer.payer_id, account_status: 'VERIFIED' }
          : {},
      },
      purchase_units: [
        { ...o.unit, payee: { merchant_id: 'MERCHANT7Q2X9', email_address: 'merchant@example.com' }, ...payments },
      ],
      ...(o.payer ? { payer: { payer_id: o.payer.payer_id, email_address: o.payer.email_address } } : {}),
      create_time: o.create_time,
      links: this.orderLinks(o),
    };
  }

  protected completeOrder(o: Order, action: 'capture' | 'authorize', mockHeader?: string) {
    if (o.status === 'COMPLETED')
      throw unprocessable(o.intent === 'CAPTURE' ? 'ORDER_ALREADY_CAPTURED' : 'ORDER_ALREADY_AUTHORIZED');
    if ((action === 'capture') !== (o.intent === 'CAPTURE')) throw unprocessable('ACTION_DOES_NOT_MATCH_INTENT');
    if (o.status !== 'APPROVED') throw unprocessable('ORDER_NOT_APPROVED');
    const mock = mockCode(mockHeader) ?? o.mock;
    if (mock && BUYER_DECLINES.has(mock)) {
      // "INSTRUMENT_DECLINED: redirect the payer to choose another funding source": the order goes back to the buyer.
      o.status = 'PAYER_ACTION_REQUIRED';
      o.mock = undefined;
      throw unprocessable(mock, [{ href: `${this.url}/checkoutnow?token=${o.id}`, rel: 'redirect', method: 'GET' }]);
    }
    // Any other negative-testing code is answered as that error, the order unchanged.
    if (mock) throw unprocessable(mock);
    const invoice = o.unit.invoice_id;
    if (invoice) {
      for (const other of this.orders.values()) {
        if (other !== o && other.app === o.app && other.status === 'COMPLETED' && other.unit.invoice_id === invoice)
          throw unprocessable('DUPLICATE_INVOICE_ID');
      }
    }
    const { cents, currency } = parseMoney(o.unit.amount, 'amount');
    if (action === 'capture') {
      const c: Capture = {
        id: this.id(),
        app: o.app,
        order: o.id,
        status: 'COMPLETED',
        amount: { currency_code: currency, value: fmt(cents, currency) },
        refunded: 0,
        final_capture: true,
        refunds: [],
      };
      this.captures.set(c.id, c);
      this.reporting.captured(c.app, c.id, c.amount, o.unit);
      o.captures.push(c.id);
    } else {
      const a: Authorization = {
        id: this.id(),
        app: o.app,
        order: o.id,
        status: 'CREATED',
        amount: { currency_code: currency, value: fmt(cents, currency) },
        captured: 0,
        expiration_time: this.iso(29 * 86_400_000),
        captures: [],
      };
      this.authorizations.set(a.id, a);
      o.authorizations.push(a.id);
    }
    o.status = 'COMPLETED';
    return this.orderView(o);
  }

  // ---- Payments v2 -----------------------------------------------------------------------------------------------

  protected authorizationView(a: Authorization) {
    const o = this.orders.get(a.order)!;
    const self = `${this.url}/v2/payments/authorizations/${a.id}`;
    return {
      id: a.id,
      status: a.status,
      amount: a.amount,
      invoice_id: o.unit.invoice_id,
      custom_id: o.unit.custom_id,
      seller_protection: { status: 'ELIGIBLE' },
      expiration_time: a.expiration_time,
      supplementary_data: { related_ids: { order_id: a.order } },
      links: [
        { href: self, rel: 'self', method: 'GET' },
        ...(a.status === 'CREATED' || a.status === 'PARTIALLY_CAPTURED'
          ? [
              { href: `${self}/capture`, rel: 'capture', method: 'POST' },
              { href: `${self}/void`, rel: 'void', method: 'POST' },
            ]
          : []),
        { href: `${this.url}/v2/checkout/orders/${a.order}`, rel: 'up', method: 'GET' },
      ],
    };
  }

  protected captureView(c: Capture) {
    const o = this.orders.get(c.order)!;
    const self = `${this.url}/v2/payments/captures/${c.id}`;
    return {
      id: c.id,
      status: c.status,
      amount: c.amount,
      final_capture: c.final_capture,
      invoice_id: o.unit.invoice_id,
      custom_id: o.unit.custom_id,
      seller_protection: { status: 'ELIGIBLE' },
      supplementary_data: {
        related_ids: { order_id: c.order, ...(c.authorization ? { authorization_id: c.authorization } : {}) },
      },
      links: [
        { href: self, rel: 'self', method: 'GET' },
        { href: `${self}/refund`, rel: 'refund', method: 'POST' },
        c.authorization
          ? { href: `${this.url}/v2/payments/authorizations/${c.authorization}`, rel: 'up', method: 'GET' }
          : { href: `${this.url}/v2/checkout/orders/${c.order}`, rel: 'up', method: 'GET' },
      ],
    };
  }

  protected refundView(r: Refund) {
    const c = this.captures.get(r.capture)!;
    const o = this.orders.get(c.order)!;
    return {
      id: r.id,
      status: r.status,
      amount: r.amount,
      invoice_id: o.unit.invoice_id,
      custom_id: o.unit.custom_id,
      links: [
        { href: `${this.url}/v2/payments/refunds/${r.id}`, rel: 'self', method: 'GET' },
        { href: `${this.url}/v2/payments/captures/${r.capture}`, rel: 'up', method: 'GET' },
      ],
    };
  }

  protected captureAuthorization(a: Authorization, b: Record<string, unknown>, mockHeader?: string) {
    if (a.status === 'VOIDED') throw unprocessable('AUTHORIZATION_VOIDED');
    if (a.status === 'CAPTURED') throw unprocessable('AUTHORIZATION_ALREADY_CAPTURED');
    const mock = mockCode(mockHeader);
    if (mock) throw unprocessable(mock);
    const held = parseMoney(a.amount, 'amount');
    const want =
      b.amount === undefined
        ? { cents: held.cents - a.captured, currency: held.currency }
        : parseMoney(b.amount, '/amount');
    if (want.currency !== held.currency) throw unprocessable('AUTH_CAPTURE_CURRENCY_MISMATCH');
    // "The default overage limit is 115%, which allows the sum of all captures to be up to 115% of the order amount."
    if (a.captured + want.cents > Math.floor(held.cents * 1.15)) throw unprocessable('MAX_CAPTURE_AMOUNT_EXCEEDED');
    const final = b.final_capture === true;
    const c: Capture = {
      id: this.id(),
      app: a.app,
      order: a.order,
      authorization: a.id,
      status: 'COMPLETED',
      amount: { currency_code: want.currency, value: fmt(want.cents, want.currency) },
      refunded: 0,
      final_capture: final,
      refunds: [],
    };
    this.captures.set(c.id, c);
    this.reporting.captured(c.app, c.id, c.amount, this.orders.get(a.order)?.unit ?? {});
    a.captures.push(c.id);
    this.orders.get(a.order)!.captures.push(c.id);
    a.captured += want.cents;
    a.status = final || a.captured >= held.cents ? 'CAPTURED' : 'PARTIALLY_CAPTURED';
    return this.captureView(c);
  }

  protected voidAuthorization(a: Authorization, mockHeader?: string) {
    if (a.status === 'VOIDED') throw unprocessable('PREVIOUSLY_VOIDED');
    if (a.status === 'CAPTURED') throw unprocessable('PREVIOUSLY_CAPTURED');
    const mock = mockCode(mockHeader);
    if (mock) throw unprocessable(mock);
    a.status = 'VOIDED';
  }

  protected refund(c: Capture, b: Record<string, unknown>, mockHeader?: string) {
    if (c.status === 'REFUNDED') throw unprocessable('CAPTURE_FULLY_REFUNDED');
    const mock = mockCode(mockHeader);
    if (mock) throw unprocessable(mock);
    const captured = parseMoney(c.amount, 'amount');
    const left = captured.cents - c.refunded;
    const want =
      b.amount === undefined ? { cents: left, currency: captured.currency } : parseMoney(b.amount, '/amount');
    if (want.currency !== captured.currency) throw unprocessable('REFUND_CAPTURE_CURRENCY_MISMATCH');
    if (want.cents > left) throw unprocessable('REFUND_AMOUNT_EXCEEDED');
    const r: Refund = {
      id: this.id(),
      app: c.app,
      capture: c.id,
      status: 'COMPLETED',
      amount: { currency_code: want.currency, value: fmt(want.cents, want.currency) },
    };
    this.refunds.set(r.id, r);
    this.reporting.refunded(r.app, r.id, c.id, r.amount, this.orders.get(c.order)?.unit ?? {});
    c.refunds.push(r.id);
    c.refunded += want.cents;
    c.status = c.refunded >= captured.cents ? 'REFUNDED' : 'PARTIALLY_REFUNDED';
    return this.refundView(r);
  }

  // ---- Payouts v1 ------------------------------------------------------------------------------------------------
}
