// Mercado Pago's settlement report for the reconciliation (reconciliation.ts): the payments updated within the day,
// from the Payment Search API with the adapter's access token (methods/mercadopago.ts passes its own GET call):
//
//   GET /v1/payments/search?range=date_last_updated&begin_date=<ISO>&end_date=<ISO>&sort=date_last_updated
//       &criteria=asc&offset=<n>&limit=<n>   → { paging: { total, limit, offset }, results: [payment] }
//
// Each payment carries its totals so far (the report is `cumulative`): what was captured (transaction_amount of a
// captured payment that was approved, later refunded or charged back), what went back (its approved `refunds`, or
// `transaction_amount_refunded` where the list is absent) and the fees Mercado Pago kept from us (`fee_details`
// whose fee_payer is the collector). Our reference is the payment's external_reference (our outTradeNo).
// Amounts on the wire are major units; ours are integer minor units.
import type { SettlementLine, Settlements } from '../provider.ts';
import { toMinor } from '../methods/mercadopago-wire.ts';

/** Payments asked for per page of the search. */
const LIMIT = 100;
/** The statuses of a payment whose money was taken (a refund or a chargeback comes after the capture). */
const TAKEN = new Set(['approved', 'refunded', 'charged_back']);

export interface MpReportPayment {
  id: number | string;
  status?: string;
  captured?: boolean;
  currency_id?: string;
  transaction_amount?: number;
  transaction_amount_refunded?: number;
  external_reference?: string | null;
  refunds?: { id: number | string; amount?: number; status?: string }[];
  fee_details?: { type?: string; amount?: number; fee_payer?: string }[];
}

type Get = <T>(path: string) => Promise<T>;

export function mercadopagoSettlements(get: Get, from: Date, to: Date): Promise<Settlements> {
  return Promise.resolve({ cumulative: true, pages: pages(get, from, to) });
}

async function* pages(get: Get, from: Date, to: Date): AsyncGenerator<SettlementLine[]> {
  for (let offset = 0; ;) {
    const q = new URLSearchParams({
      range: 'date_last_updated',
      begin_date: from.toISOString(),
      end_date: new Date(to.getTime() - 1).toISOString(),
      sort: 'date_last_updated',
      criteria: 'asc',
      offset: String(offset),
      limit: String(LIMIT),
    });
    const page = await get<{ paging?: { total?: number }; results?: MpReportPayment[] }>(`/v1/payments/search?${q}`);
    const results = Array.isArray(page.results) ? page.results : [];
    yield results.flatMap(linesOf);
    offset += results.length;
    if (!results.length || offset >= Number(page.paging?.total ?? 0)) return;
  }
}

/** A payment's totals as settlement lines: its capture (with the fees) and what was refunded of it. */
export function linesOf(p: MpReportPayment): SettlementLine[] {
  const currency = String(p.currency_id ?? '').toUpperCase();
  const ref = p.external_reference || null;
  const out: SettlementLine[] = [];
  if (!currency || !TAKEN.has(String(p.status)) || p.captured === false) return out;
  const fee = (p.fee_details ?? [])
    .filter((f) => (f.fee_payer ?? 'collector') === 'collector')
    .reduce((s, f) => s + toMinor(Number(f.amount ?? 0), currency), 0);
  out.push({
    ref,
    source: String(p.id),
    type: 'charge',
    amount: toMinor(Number(p.transaction_amount ?? 0), currency),
    fee,
    currency,
  });
  const refunded = Array.isArray(p.refunds)
    ? p.refunds
        .filter((r) => (r.status ?? 'approved') === 'approved')
        .reduce((s, r) => s + toMinor(Number(r.amount ?? 0), currency), 0)
    : toMinor(Number(p.transaction_amount_refunded ?? 0), currency);
  if (refunded > 0) out.push({ ref, source: `${p.id}/refunds`, type: 'refund', amount: -refunded, fee: 0, currency });
  return out;
}
