// Flutterwave's settlement report for the reconciliation (reconciliation.ts): the day's movements (not cumulative),
// from the v3 API with the adapter's secret key (methods/flutterwave.ts passes its own GET call, which throws on an
// answer whose status is not `success`):
//
//   GET /v3/transactions?from=<YYYY-MM-DD>&to=<YYYY-MM-DD>&status=successful&page=<n>
//       → { data: [{ id, tx_ref, amount, currency, app_fee, status, created_at }], meta: { page_info: { total,
//         current_page, total_pages } } }      charges: tx_ref is our outTradeNo, app_fee the fee Flutterwave kept
//   GET /v3/refunds?from=&to=&page=<n>     → { data: [{ id, tx_id, amount_refunded, status, created_at }], meta }
//   GET /v3/transactions/{tx_id}/verify    a refund names its charge by id only: its tx_ref and currency
//
// Flutterwave's dates are whole days: `from` and `to` are the day itself. A refund that failed is not money moved.
// Amounts on the wire are major units; ours are integer minor units.
import type { SettlementLine, Settlements } from '../provider.ts';
import { toMinor } from '../methods/flutterwave-wire.ts';

interface Page<T> {
  data?: T[] | null;
  meta?: { page_info?: { total?: number; current_page?: number; total_pages?: number } } | null;
}
export interface FlwReportTx {
  id: number | string;
  tx_ref?: string;
  amount?: number;
  currency?: string;
  app_fee?: number;
  status?: string;
}
export interface FlwReportRefund {
  id: number | string;
  tx_id?: number | string;
  amount_refunded?: number;
  status?: string;
}

type Get = (path: string) => Promise<unknown>;

export function flutterwaveSettlements(get: Get, from: Date, _to: Date): Promise<Settlements> {
  return Promise.resolve({ cumulative: false, pages: pages(get, from.toISOString().slice(0, 10)) });
}

async function* pages(get: Get, day: string): AsyncGenerator<SettlementLine[]> {
  const q = (page: number, more: Record<string, string> = {}) =>
    new URLSearchParams({ from: day, to: day, ...more, page: String(page) });
  for (let page = 1; ; page++) {
    const body = (await get(`/v3/transactions?${q(page, { status: 'successful' })}`)) as Page<FlwReportTx>;
    const txs = body.data ?? [];
    yield txs
      .filter((t) => t.status === 'successful' && t.currency)
      .map((t) => {
        const currency = String(t.currency).toUpperCase();
        return {
          ref: t.tx_ref ?? null,
          source: String(t.id),
          type: 'charge' as const,
          amount: toMinor(t.amount ?? 0, currency),
          fee: toMinor(t.app_fee ?? 0, currency),
          currency,
        };
      });
    if (!txs.length || page >= Number(body.meta?.page_info?.total_pages ?? page)) break;
  }
  for (let page = 1; ; page++) {
    const body = (await get(`/v3/refunds?${q(page)}`)) as Page<FlwReportRefund>;
    const refunds = body.data ?? [];
    const lines: SettlementLine[] = [];
    for (const r of refunds) {
      if (r.status === 'failed' || r.tx_id === undefined) continue;
      const tx = (
        (await get(`/v3/transactions/${encodeURIComponent(String(r.tx_id))}/verify`)) as { data?: FlwReportTx }
      ).data;
      const currency = String(tx?.currency ?? '').toUpperCase();
      if (!currency)
        throw Object.assign(new Error(`flutterwave: refund ${r.id} of an unknown transaction`), {
          code: 'bad_response',
        });
      lines.push({
        ref: tx?.tx_ref ?? null,
        source: `refund:${r.id}`,
        type: 'refund',
        amount: -toMinor(r.amount_refunded ?? 0, currency),
        fee: 0,
        currency,
      });
    }
    yield lines;
    if (!refunds.length || page >= Number(body.meta?.page_info?.total_pages ?? page)) break;
  }
}
