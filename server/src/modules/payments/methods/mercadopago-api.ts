// Mercado Pago's API as MercadoPagoMethod (mercadopago.ts) calls it: the authenticated call with Mercado Pago's
// errors, a payment's state, the card payment, and the customers and cards of saved cards.
import { ProviderError, type AdapterDeps, type StatusResult, type ProviderCall, type PaymentFacts } from './adapter.ts';
import { httpClient, type HttpRequest } from './http.ts';
import type { MercadoPagoConfig } from './mercadopago.ts';
import {
  type MpPayment,
  type MpCustomer,
  type MpCard,
  toMajor,
  toMinor,
  type PayCard,
  failureCode,
  stateOf,
} from './mercadopago-wire.ts';

/** The provider's API as MercadoPagoMethod calls it: the connection and the helpers its wire operations share. */
export function mercadopagoWire(config: MercadoPagoConfig, deps: AdapterDeps) {
  const base = (config.apiBase || 'https://api.mercadopago.com').replace(/\/+$/, '');

  const http = httpClient('mercadopago', deps);

  async function call<T>(method: string, path: string, body?: unknown, idempotencyKey?: string): Promise<T> {
    const headers: Record<string, string> = {
      authorization: `Bearer ${config.accessToken}`,
      accept: 'application/json',
    };
    if (idempotencyKey) headers['x-idempotency-key'] = idempotencyKey;
    const res = await http.json<unknown>({
      method: method as HttpRequest['method'],
      url: `${base}${path}`,
      headers,
      ...(body === undefined ? {} : { json: body }),
    });
    const json = res.body;
    if (!res.ok) {
      // {message, error, status, cause: [{code, description}]}
      const e = (json ?? {}) as {
        message?: string;
        error?: string;
        cause?: { code?: string | number; description?: string }[];
      };
      const cause = Array.isArray(e.cause) ? e.cause[0] : undefined;
      const code = cause?.code !== undefined ? String(cause.code) : e.error || `http_${res.status}`;
      throw new ProviderError(
        code,
        `mercadopago: ${e.message ?? cause?.description ?? `HTTP ${res.status}`}`,
        res.status,
      );
    }
    return json as T;
  }

  const getPayment = (ref: string) => call<MpPayment>('GET', `/v1/payments/${encodeURIComponent(ref)}`);

  async function status(ref: string, outTradeNo: string): Promise<StatusResult> {
    if (ref) return result(await getPayment(ref));
    const q = new URLSearchParams({ external_reference: outTradeNo, sort: 'date_created', criteria: 'desc' });
    const found = await call<{ results?: MpPayment[] }>('GET', `/v1/payments/search?${q}`);
    const p = found.results?.[0];
    return p ? result(p) : { ref: '', state: 'pending' };
  }

  /** POST /v1/payments with a card token (of a saved card: with its customer). */
  function pay(payment: PaymentFacts, outTradeNo: string, card: PayCard, idempotencyKey: string) {
    const body: Record<string, unknown> = {
      transaction_amount: toMajor(payment.amount, payment.currency),
      token: card.token,
      installments: card.installments ?? 1,
      description: payment.description,
      external_reference: outTradeNo,
      notification_url: payment.notifyUrl,
      capture: payment.capture === 'automatic',
      payer: {
        ...(payment.customerRef ? { type: 'customer', id: payment.customerRef } : {}),
        ...(card.email ? { email: card.email } : {}),
        ...(card.identificationType && card.identificationNumber
          ? { identification: { type: card.identificationType, number: card.identificationNumber } }
          : {}),
      },
    };
    if (card.paymentMethodId) body.payment_method_id = card.paymentMethodId;
    if (card.issuerId) body.issuer_id = /^\d+$/.test(card.issuerId) ? Number(card.issuerId) : card.issuerId;
    // transaction_amount carries no currency: the account's site decides it (the answer's currency_id, which
    // status() reports). Only a currency of the definition's list is accepted before anything is sent.
    return call<MpPayment>('POST', '/v1/payments', body, idempotencyKey);
  }

  async function findCustomer(email: string) {
    const r = await call<{ results?: MpCustomer[] }>('GET', `/v1/customers/search?${new URLSearchParams({ email })}`);
    return r.results?.[0] ?? null;
  }

  function createCustomer(email: string, c: ProviderCall) {
    return call<MpCustomer>('POST', '/v1/customers', { email }, c.idempotencyKey);
  }

  function addCard(
    customerId: string,
    card: { token: string; paymentMethodId?: string; issuerId?: string },
    c: ProviderCall,
  ) {
    const body: Record<string, unknown> = { token: card.token };
    if (card.paymentMethodId) body.payment_method_id = card.paymentMethodId;
    if (card.issuerId) body.issuer_id = /^\d+$/.test(card.issuerId) ? Number(card.issuerId) : card.issuerId;
    return call<MpCard>('POST', `/v1/customers/${encodeURIComponent(customerId)}/cards`, body, c.idempotencyKey);
  }

  function result(p: MpPayment): StatusResult {
    const state = stateOf(p);
    return {
      ref: String(p.id),
      state,
      amount: toMinor(p.transaction_amount, p.currency_id),
      currency: p.currency_id,
      ...(state === 'failed' ? { failureCode: failureCode(p.status_detail) } : {}),
    };
  }

  return { base, http, call, getPayment, status, pay, findCustomer, createCustomer, addCard, result };
}
