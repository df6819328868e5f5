// PayPal's settlement report for the reconciliation (reconciliation.ts): the day's movements (not cumulative), from
// the Transaction Search API with the adapter's OAuth token (methods/paypal.ts passes its own GET call; the REST app
// needs the Transaction Search permission):
//
//   GET /v1/reporting/transactions?start_date=<ISO>&end_date=<ISO>&fields=all&page_size=500&page=<n>
//       → { transaction_details: [{ transaction_info: { transaction_id, transaction_event_code, transaction_status,
//           transaction_amount: { currency_code, value }, fee_amount, invoice_id, custom_field } }],
//           page, total_pages, last_refreshed_datetime }
//
// Payments are the T00nn events of money received (T0006 Checkout, T0003 pre-approved, T0005 direct, …), refunds
// T1107; only completed ones (status S, or V: a payment later reversed). Our reference is the invoice_id (our
// outTradeNo; custom_field where it is absent). PayPal's fee_amount is negative on a payment (the fee it kept) and
// positive on a refund (the fee it gave back). PayPal takes up to three hours to list a transaction: while its
// last_refreshed_datetime is before the day's end the report is not complete (SettlementsNotReady; tried later).
import { SettlementsNotReady, type SettlementLine, type Settlements } from '../provider.ts';
import { ProviderError } from '../methods/adapter.ts';
import { fromPaypalValue } from '../methods/paypal-wire.ts';

const PAGE_SIZE = 500;
const PAYMENTS = new Set(['T0000', 'T0002', 'T0003', 'T0004', 'T0005', 'T0006', 'T0007', 'T0011', 'T0012', 'T0013']);
const REFUNDS = new Set(['T1107']);

interface Money {
  currency_code?: string;
  value?: string;
}
export interface PaypalReportTx {
  transaction_info?: {
    transaction_id?: string;
    transaction_event_code?: string;
    transaction_status?: string;
    transaction_amount?: Money;
    fee_amount?: Money;
    invoice_id?: string;
    custom_field?: string;
  };
}
interface Page {
  transaction_details?: PaypalReportTx[];
  page?: number;
  total_pages?: number;
  last_refreshed_datetime?: string;
}

type Get = (path: string) => Promise<{ body: unknown }>;

export function paypalSettlements(get: Get, from: Date, to: Date): Promise<Settlements> {
  return Promise.resolve({ cumulative: false, pages: pages(get, from, to) });
}

/** PayPal's time: seconds, an offset (+0000 or +00:00). */
const parseTime = (s: string) => Date.parse(s.replace(/([+-]\d{2})(\d{2})$/, '$1:$2'));

async function* pages(get: Get, from: Date, to: Date): AsyncGenerator<SettlementLine[]> {
  for (let page = 1; ; page++) {
    const q = new URLSearchParams({
      start_date: from.toISOString(),
      end_date: new Date(to.getTime() - 1).toISOString(),
      fields: 'all',
      page_size: String(PAGE_SIZE),
      page: String(page),
    });
    const body = (await get(`/v1/reporting/transactions?${q}`)).body as Page;
    if (page === 1) {
      const refreshed = body.last_refreshed_datetime ? parseTime(body.last_refreshed_datetime) : NaN;
      if (!(refreshed >= to.getTime()))
        throw new SettlementsNotReady(
          'paypal',
          `transactions listed up to ${body.last_refreshed_datetime ?? 'an unknown time'}, before the day's end`,
        );
    }
    yield (body.transaction_details ?? []).flatMap(lineOf);
    if (page >= Number(body.total_pages ?? 1)) return;
  }
}

/** A signed PayPal amount ("-10.00") in minor units. */
function signed(m: Money | undefined, currency: string): number {
  const v = String(m?.value ?? '0');
  const minor = fromPaypalValue(v.replace(/^[-+]/, ''), currency);
  return v.startsWith('-') ? -minor : minor;
}

export function lineOf(t: PaypalReportTx): SettlementLine[] {
  const i = t.transaction_info;
  const code = i?.transaction_event_code ?? '';
  const type = PAYMENTS.has(code) ? 'charge' : REFUNDS.has(code) ? 'refund' : null;
  if (!i || !type || !(i.transaction_status === 'S' || (type === 'charge' && i.transaction_status === 'V'))) return [];
  const currency = String(i.transaction_amount?.currency_code ?? '').toUpperCase();
  if (!currency || !i.transaction_id)
    throw new ProviderError('bad_response', `PayPal: transaction ${i.transaction_id ?? '?'} without an amount`);
  const amount = signed(i.transaction_amount, currency);
  return [
    {
      ref: i.invoice_id || i.custom_field || null,
      source: i.transaction_id,
      type,
      amount: type === 'charge' ? Math.abs(amount) : -Math.abs(amount),
      fee: -signed(i.fee_amount, currency),
      currency,
    },
  ];
}
