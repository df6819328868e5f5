// A Mercado Pago test server (test tree only, never shipped): the part of the Checkout API the mercadopago adapter
// uses, modelled from Mercado Pago's API reference —
//   POST /v1/card_tokens?public_key=…   what MercadoPago.js does in the browser: card fields → single-use token
//   POST /v1/payments                   Bearer access token; X-Idempotency-Key required (same key + same body → the
//                                       first answer again; same key + another body → 409); capture:false → authorized
//   GET  /v1/payments/{id}, GET /v1/payments/search?external_reference=
//   PUT  /v1/payments/{id}              {capture:true, transaction_amount ≤ authorised} | {status:'cancelled'}
//   POST /v1/payments/{id}/refunds      {amount?} partial; over the refundable amount → 400
//   POST /v1/customers, GET /v1/customers/search?email=, POST /v1/customers/{id}/cards {token},
//   DELETE /v1/customers/{id}/cards/{card_id}
//   Saved cards: POST /v1/card_tokens {card_id, security_code} (MercadoPago.js createCardToken({cardId})) makes a
//   token of a saved card; a payment with it must name the card's customer (payer {type: 'customer', id}), else 400
//   (2034 "Invalid users involved"); a payment naming a customer takes the customer's e-mail.
// Errors use Mercado Pago's envelope {message, error, status, cause: [{code, description}]}.
// Test cards: 5031 4332 1540 6351 / 4235 6477 2802 5682 (Brazil), 4509 9535 6623 3704 (Argentina), 5474 9254 3267
// 0366 (Mexico), 3711 803032 57522 (Amex); the
// cardholder name picks the outcome: APRO approved, OTHE / CALL / SECU / EXPI / FORM rejected, FUND insufficient
// amount, CONT pending (in_process; `settle` decides it later).
// `webhook` produces a delivery signed as Mercado Pago does (x-signature ts/v1 over the id/request-id/ts manifest).
// For the browser tests it also serves a stand-in of MercadoPago.js (mercadopago-js.ts): GET /js/v2 and its Secure
// Fields' frames GET /secure-fields/<field>; /v1/card_tokens answers the browser (CORS), as Mercado Pago's does.
// Its parts: mercadopago/model.ts (test cards, records, errors), mercadopago/core.ts (the HTTP side: keys,
// idempotency, card tokens, webhooks, the browser's side), mercadopago/customers.ts (customers, saved cards); the
// payments are here.
import { MercadoPagoCustomers } from './mercadopago/customers.ts';
import { ApiError, OUTCOMES, round2, TEST_CARDS, type FakePayment } from './mercadopago/model.ts';
import { searchPayments } from './mercadopago-search.ts';

export type { FakePayment } from './mercadopago/model.ts';

export class FakeMercadoPago extends MercadoPagoCustomers {
  /** Decides a pending (CONT) payment, as Mercado Pago's review does later; returns the webhook it sends. */
  settle(id: number | string, outcome: 'approved' | 'rejected') {
    const p = this.payment(String(id));
    if (p.status !== 'in_process') throw new Error(`payment ${p.id} is ${p.status}`);
    p.status = outcome;
    p.status_detail = outcome === 'approved' ? 'accredited' : 'cc_rejected_other_reason';
    return this.webhook(p.id, 'payment.updated');
  }

  protected route(method: string, url: URL, b: Record<string, unknown>): [number, unknown] {
    const path = url.pathname;
    if (path === '/v1/payments' && method === 'POST') return [201, this.createPayment(b)];
    if (path === '/v1/payments/search' && method === 'GET')
      return searchPayments([...this.payments.values()], url.searchParams);
    let m = /^\/v1\/payments\/([^/]+)$/.exec(path);
    if (m && method === 'GET') return [200, this.payment(m[1]!)];
    if (m && method === 'PUT') return [200, this.updatePayment(this.payment(m[1]!), b)];
    m = /^\/v1\/payments\/([^/]+)\/refunds$/.exec(path);
    if (m && method === 'POST') return [201, this.refund(this.payment(m[1]!), b)];
    const customers = this.customersRoute(method, url, b);
    if (customers) return customers;
    throw new ApiError(404, 'not_found', `resource ${method} ${path} not found`);
  }

  private createPayment(b: Record<string, unknown>): FakePayment {
    const amount = b.transaction_amount;
    if (typeof amount !== 'number' || !(amount > 0))
      throw new ApiError(400, 'bad_request', 'Invalid transaction_amount', [
        { code: 4037, description: 'Invalid transaction_amount' },
      ]);
    if (this.currency === 'CLP' && !Number.isInteger(amount))
      throw new ApiError(400, 'bad_request', 'Invalid transaction_amount', [
        { code: 4037, description: 'Invalid transaction_amount' },
      ]);
    const payer = (b.payer ?? {}) as { email?: string; type?: string; id?: string };
    const customer = payer.type === 'customer' ? this.customers.get(String(payer.id ?? '')) : undefined;
    if (payer.type === 'customer' && !customer)
      throw new ApiError(404, 'not_found', 'Customer not found', [
        { code: 'not_found', description: 'Customer not found' },
      ]);
    const email = payer.email ?? customer?.email;
    if (!email)
      throw new ApiError(400, 'bad_request', 'payer.email must be a valid email', [
        { code: 4050, description: 'payer.email must be a valid email' },
      ]);
    const tok = this.tokens.get(String(b.token ?? ''));
    // A saved card's token pays only for the card's own customer.
    if (tok?.customer && tok.customer !== customer?.id)
      throw new ApiError(400, 'bad_request', 'Invalid users involved', [
        { code: 2034, description: 'Invalid users involved' },
      ]);
    const t = this.useToken(String(b.token ?? ''));
    const [status0, detail] = OUTCOMES[t.holder.toUpperCase()] ?? OUTCOMES.APRO!;
    const hold = b.capture === false;
    const approved = status0 === 'approved';
    const p: FakePayment = {
      id: ++this.seq,
      status: approved && hold ? 'authorized' : status0,
      status_detail: approved && hold ? 'pending_capture' : detail,
      transaction_amount: round2(amount),
      transaction_amount_refunded: 0,
      currency_id: this.currency,
      captured: !hold,
      external_reference: (b.external_reference as string | undefined) ?? null,
      description: String(b.description ?? ''),
      payment_method_id: String(b.payment_method_id ?? TEST_CARDS[t.card]!.brand),
      installments: Number(b.installments ?? 1),
      payer: { email },
      notification_url: (b.notification_url as string | undefined) ?? null,
      date_created: this.now().toISOString(),
      date_last_updated: this.now().toISOString(),
      card: {
        first_six_digits: t.card.slice(0, 6),
        last_four_digits: t.card.slice(-4),
        cardholder: { name: t.holder },
      },
      refunds: [],
    };
    this.payments.set(p.id, p);
    return p;
  }

  private updatePayment(p: FakePayment, b: Record<string, unknown>): FakePayment {
    p.date_last_updated = this.now().toISOString();
    if (b.capture === true) {
      if (p.status !== 'authorized')
        throw new ApiError(400, 'bad_request', `Payment can't be captured in status ${p.status}`, [
          { code: 4305, description: 'Payment cannot be captured' },
        ]);
      const amount = b.transaction_amount === undefined ? p.transaction_amount : Number(b.transaction_amount);
      if (!(amount > 0) || amount > p.transaction_amount) {
        throw new ApiError(
          400,
          'bad_request',
          'transaction_amount must be less than or equal to the authorized amount',
          [{ code: 4041, description: 'Invalid capture amount' }],
        );
      }
      Object.assign(p, {
        status: 'approved',
        status_detail: 'accredited',
        captured: true,
        transaction_amount: round2(amount),
      });
      return p;
    }
    if (b.status === 'cancelled') {
      if (!['authorized', 'pending', 'in_process'].includes(p.status)) {
        throw new ApiError(400, 'bad_request', `Payment can't be cancelled in status ${p.status}`, [
          { code: 4306, description: 'Payment cannot be cancelled' },
        ]);
      }
      Object.assign(p, { status: 'cancelled', status_detail: 'by_collector' });
      return p;
    }
    throw new ApiError(400, 'bad_request', 'Nothing to update', [{ code: 4000, description: 'invalid update' }]);
  }

  private refund(p: FakePayment, b: Record<string, unknown>) {
    if (!(p.status === 'approved' && p.captured) && p.status !== 'refunded') {
      throw new ApiError(400, 'bad_request', `Payment can't be refunded in status ${p.status}`, [
        { code: 2063, description: 'The action requested is not valid for the current payment state' },
      ]);
    }
    const left = round2(p.transaction_amount - p.transaction_amount_refunded);
    const amount = b.amount === undefined ? left : Number(b.amount);
    if (!(amount > 0) || amount > left + 1e-9) {
      throw new ApiError(400, 'bad_request', 'Invalid refund amount: it exceeds the available amount', [
        { code: 2085, description: 'Invalid refund amount' },
      ]);
    }
    p.transaction_amount_refunded = round2(p.transaction_amount_refunded + amount);
    p.date_last_updated = this.now().toISOString();
    if (p.transaction_amount_refunded >= p.transaction_amount)
      Object.assign(p, { status: 'refunded', status_detail: 'refunded' });
    else p.status_detail = 'partially_refunded';
    const r = { id: ++this.seq, payment_id: p.id, amount, status: 'approved' };
    p.refunds.push(r);
    return r;
  }
}
