// The Flutterwave test server's lists (test tree only), as Flutterwave's v3 API reference describes them:
//   GET /v3/transactions?from=<YYYY-MM-DD>&to=<YYYY-MM-DD>&status=&tx_ref=&page=<n>   10 a page, newest first
//   GET /v3/refunds?from=<YYYY-MM-DD>&to=<YYYY-MM-DD>&page=<n>                         10 a page, newest first
// Both days are inclusive (the created_at's day, UTC); the answer's meta.page_info is { total, current_page,
// total_pages }.
export interface FlwRefund {
  id: number;
  tx_id: number;
  amount_refunded: number;
  status: string;
  created_at: string;
}

const PAGE = 10;

function paged<T extends { created_at: string }>(all: T[], q: URLSearchParams, keep: (x: T) => boolean) {
  const from = q.get('from');
  const to = q.get('to');
  const page = Math.max(1, Number(q.get('page') ?? 1) || 1);
  const hits = all
    .filter((x) => keep(x) && (!from || x.created_at.slice(0, 10) >= from) && (!to || x.created_at.slice(0, 10) <= to))
    .reverse();
  const data = hits.slice((page - 1) * PAGE, page * PAGE);
  return {
    message: 'Fetched',
    meta: {
      page_info: { total: hits.length, current_page: page, total_pages: Math.max(1, Math.ceil(hits.length / PAGE)) },
    },
    data,
  };
}

export function listTransactions(
  txs: (Record<string, unknown> & { created_at: string; status: string; tx_ref?: string })[],
  q: URLSearchParams,
) {
  const status = q.get('status');
  const ref = q.get('tx_ref');
  return paged(txs, q, (t) => (!status || t.status === status) && (!ref || t.tx_ref === ref));
}

export function listRefunds(refunds: FlwRefund[], q: URLSearchParams) {
  return paged(refunds, q, () => true);
}
