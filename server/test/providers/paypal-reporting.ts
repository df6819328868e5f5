// The PayPal test server's Transaction Search (test tree only), as PayPal's API reference describes it:
//   GET /v1/reporting/transactions?start_date=<ISO>&end_date=<ISO>&fields=all&page_size=<≤500>&page=<n>
//   → { transaction_details: [{ transaction_info: { transaction_id, paypal_reference_id, transaction_event_code,
//       transaction_initiation_date, transaction_updated_date, transaction_amount, fee_amount, transaction_status,
//       invoice_id, custom_field } }], account_number, start_date, end_date, last_refreshed_datetime, page,
//       total_items, total_pages, links }
// A capture is a T0006 event (Checkout APIs) with PayPal's fee (3.49% + 0.49, negative: kept from the merchant); a
// refund a T1107 event (negative amount, no fee given back) carrying its payment's invoice_id and custom_field.
// PayPal lists a transaction up to three hours after it happened: `lagMs` holds last_refreshed_datetime that far
// behind the server's clock. start_date and end_date are required, at most 31 days apart (else 400 INVALID_REQUEST).
type Money = { currency_code: string; value: string };

export interface ReportEntry {
  app: string;
  id: string;
  reference?: string;
  code: 'T0006' | 'T1107';
  time: string;
  amountCents: number;
  feeCents: number;
  currency: string;
  invoice_id?: string;
  custom_field?: string;
}

const money = (cents: number, currency: string): Money => ({
  currency_code: currency,
  value: `${cents < 0 ? '-' : ''}${(Math.abs(cents) / 100).toFixed(2)}`,
});
const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, '+0000');

export class PaypalReporting {
  readonly entries: ReportEntry[] = [];
  /** How far PayPal's listing runs behind its clock (ms). */
  lagMs = 0;
  constructor(private readonly now: () => number) {}

  captured(app: string, id: string, amount: Money, unit: { invoice_id?: string; custom_id?: string }) {
    const cents = Math.round(Number(amount.value) * 100);
    this.entries.push({
      app,
      id,
      code: 'T0006',
      time: iso(this.now()),
      amountCents: cents,
      feeCents: -(Math.round(cents * 0.0349) + 49),
      currency: amount.currency_code,
      invoice_id: unit.invoice_id,
      custom_field: unit.custom_id,
    });
  }

  refunded(
    app: string,
    id: string,
    captureId: string,
    amount: Money,
    unit: { invoice_id?: string; custom_id?: string },
  ) {
    this.entries.push({
      app,
      id,
      reference: captureId,
      code: 'T1107',
      time: iso(this.now()),
      amountCents: -Math.round(Number(amount.value) * 100),
      feeCents: 0,
      currency: amount.currency_code,
      invoice_id: unit.invoice_id,
      custom_field: unit.custom_id,
    });
  }

  list(app: string, q: URLSearchParams): [number, unknown] {
    const bad = (field: string) =>
      [
        400,
        {
          name: 'INVALID_REQUEST',
          message: 'Request is not well-formed, syntactically incorrect, or violates schema.',
          details: [{ field, issue: 'INVALID_PARAMETER_SYNTAX' }],
        },
      ] as [number, unknown];
    const start = Date.parse(q.get('start_date') ?? '');
    const end = Date.parse(q.get('end_date') ?? '');
    if (Number.isNaN(start)) return bad('start_date');
    if (Number.isNaN(end) || end < start || end - start > 31 * 86_400_000) return bad('end_date');
    const size = Number(q.get('page_size') ?? 100);
    const page = Number(q.get('page') ?? 1);
    if (!(size >= 1 && size <= 500)) return bad('page_size');
    if (!(page >= 1)) return bad('page');
    const refreshed = this.now() - this.lagMs;
    const hits = this.entries.filter(
      (e) =>
        e.app === app && Date.parse(e.time) >= start && Date.parse(e.time) <= end && Date.parse(e.time) <= refreshed,
    );
    const details = hits.slice((page - 1) * size, page * size).map((e) => ({
      transaction_info: {
        transaction_id: e.id,
        ...(e.reference ? { paypal_reference_id: e.reference, paypal_reference_id_type: 'TXN' } : {}),
        transaction_event_code: e.code,
        transaction_initiation_date: e.time,
        transaction_updated_date: e.time,
        transaction_amount: money(e.amountCents, e.currency),
        fee_amount: money(e.feeCents, e.currency),
        transaction_status: 'S',
        ...(e.invoice_id ? { invoice_id: e.invoice_id } : {}),
        ...(e.custom_field ? { custom_field: e.custom_field } : {}),
      },
    }));
    return [
      200,
      {
        transaction_details: details,
        account_number: 'FAKEMERCHANT1',
        start_date: iso(start),
        end_date: iso(end),
        last_refreshed_datetime: iso(refreshed),
        page,
        total_items: hits.length,
        total_pages: Math.max(1, Math.ceil(hits.length / size)),
        links: [],
      },
    ];
  }
}
