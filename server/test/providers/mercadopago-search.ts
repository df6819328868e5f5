// The Mercado Pago test server's Payment Search (test tree only), as Mercado Pago's API reference describes it:
//   GET /v1/payments/search?external_reference=…                     our reference (newest first)
//   GET /v1/payments/search?range=date_created|date_approved|date_last_updated&begin_date=<ISO>&end_date=<ISO>
//       &sort=<field>&criteria=asc|desc&offset=<n>&limit=<n>          a period (both bounds inclusive), paged
// → { paging: { total, limit, offset }, results: [payment] }; a captured payment carries `fee_details` (Mercado
// Pago's processing fee, 4.99% here, paid by the collector). A limit above 1000 or a bad date is a 400.
import type { FakePayment } from './mercadopago/model.ts';

const FEE_RATE = 0.0499;

export function searchPayments(all: FakePayment[], q: URLSearchParams): [number, unknown] {
  const ref = q.get('external_reference');
  const range = q.get('range') as 'date_created' | 'date_last_updated' | null;
  const bad = (message: string): [number, unknown] => [
    400,
    { message, error: 'bad_request', status: 400, cause: [{ code: 1000, description: message }] },
  ];
  let results = all.filter((p) => !ref || p.external_reference === ref);
  if (range) {
    if (range !== 'date_created' && range !== 'date_last_updated') return bad(`invalid range: ${range}`);
    const begin = Date.parse(q.get('begin_date') ?? '');
    const end = Date.parse(q.get('end_date') ?? '');
    if (Number.isNaN(begin) || Number.isNaN(end)) return bad('begin_date and end_date must be dates');
    results = results.filter((p) => Date.parse(p[range]) >= begin && Date.parse(p[range]) <= end);
  }
  const sort = (q.get('sort') ?? 'date_created') as 'date_created' | 'date_last_updated';
  results.sort((a, b) => Date.parse(a[sort]) - Date.parse(b[sort]) || a.id - b.id);
  if (q.get('criteria') !== 'asc') results.reverse();
  const offset = Number(q.get('offset') ?? 0);
  const limit = Number(q.get('limit') ?? 30);
  if (!(limit > 0 && limit <= 1000) || !(offset >= 0)) return bad('invalid offset or limit');
  const page = results.slice(offset, offset + limit).map((p) => ({
    ...p,
    fee_details:
      p.captured && p.status !== 'rejected'
        ? [
            {
              type: 'mercadopago_fee',
              amount: Math.round(p.transaction_amount * FEE_RATE * 100) / 100,
              fee_payer: 'collector',
            },
          ]
        : [],
  }));
  return [200, { paging: { total: results.length, limit, offset }, results: page }];
}
