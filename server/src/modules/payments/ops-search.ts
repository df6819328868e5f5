// The support desk's search of payments (docs/operations.md "Support desk"): by id, provider reference or order,
// the rider (id, phone, e-mail, card last 4), provider, purpose, state, the rental's power bank, cabinet and venue,
// and a date range; newest first in keyset pages, the CSV export page by page (ops-repository.ts: the scope).
import type { PaymentExportQuery, PaymentListQuery, PaymentSummary } from '#contract/ops/search.ts';
import type { Scope } from '#core/opsAccess.ts';
import { csvPages } from '../../lib/csv.ts';
import { decodeCursor, pageOf, scopeParams, type RidersNamed } from '../../lib/ops-query.ts';
import type { PaymentSearch, PaymentSearchRow, PaymentsOpsRepository } from './ops-repository.ts';

export const PAYMENT_CSV_COLUMNS = [
  'id',
  'created_at',
  'updated_at',
  'provider',
  'provider_ref',
  'purpose',
  'state',
  'amount',
  'captured',
  'refunded',
  'currency',
  'card_brand',
  'card_last4',
  'order_id',
  'rider_id',
  'rider_phone',
  'rider_email',
  'agent_id',
  'cabinet_id',
] as const;
/** Payment ids are not numbers: the cursors carry them as they are. */
const PAYMENT_ID = /^[\w:.-]{1,200}$/;
const cursorOf = (r: PaymentSearchRow): [string, string] => [new Date(r.created_at).toISOString(), r.id];

export interface PaymentSearchDeps {
  repo: PaymentsOpsRepository;
  named: RidersNamed;
  /** The riders' phone and e-mail (the auth module's read model). */
  contacts: (ids: number[]) => Promise<Array<{ id: number; mobile: string | null; email: string | null }>>;
}

export class PaymentSearchService {
  constructor(private readonly d: PaymentSearchDeps) {}

  private async searchOf(scope: Scope, q: PaymentExportQuery): Promise<PaymentSearch> {
    const s = scopeParams(scope);
    return {
      agents: s.agents,
      pairs: s.pairs,
      q: q.q?.trim() || undefined,
      userIds: await this.d.named({ phone: q.phone, email: q.email, riderId: q.riderId }),
      cardLast4: q.cardLast4,
      provider: q.provider,
      purpose: q.purpose,
      status: q.state,
      powerbankId: q.powerbankId,
      cabinetId: q.cabinetId,
      venueId: q.venueId,
      ...(q.from ? { from: new Date(q.from) } : {}),
      ...(q.to ? { to: new Date(q.to) } : {}),
    };
  }

  private async summaries(rows: PaymentSearchRow[]): Promise<PaymentSummary[]> {
    const contacts = new Map((await this.d.contacts([...new Set(rows.map((r) => r.user_id))])).map((c) => [c.id, c]));
    return rows.map((r) => {
      const c = contacts.get(r.user_id);
      return {
        id: r.id,
        provider: r.provider,
        ...(r.provider_ref ? { providerRef: r.provider_ref } : {}),
        purpose: r.purpose,
        state: r.status,
        amount: { amount: r.amount, currency: r.currency },
        captured: r.captured_amount,
        refunded: r.refunded_amount,
        ...(r.card_brand ? { cardBrand: r.card_brand } : {}),
        ...(r.card_last4 ? { cardLast4: r.card_last4 } : {}),
        ...(r.order_id ? { orderId: r.order_id } : {}),
        riderId: String(r.user_id),
        ...(c?.mobile ? { riderPhone: c.mobile } : {}),
        ...(c?.email ? { riderEmail: c.email } : {}),
        ...(r.agent_id ? { agentId: r.agent_id } : {}),
        ...(r.cabinet_id ? { cabinetId: r.cabinet_id } : {}),
        createdAt: new Date(r.created_at).toISOString(),
        updatedAt: new Date(r.updated_at).toISOString(),
      };
    });
  }

  async list(scope: Scope, q: PaymentListQuery) {
    const limit = q.limit ?? 50;
    const rows = await this.d.repo.search(await this.searchOf(scope, q), decodeCursor(q.cursor, PAYMENT_ID), limit + 1);
    const page = pageOf(rows, limit, cursorOf, (r) => r);
    return { items: await this.summaries(page.items), ...(page.next ? { next: page.next } : {}) };
  }

  async csv(scope: Scope, q: PaymentExportQuery) {
    const search = await this.searchOf(scope, q);
    return csvPages({
      columns: PAYMENT_CSV_COLUMNS,
      page: (after, limit) => this.d.repo.search(search, after, limit),
      cursorOf,
      records: async (rows) =>
        (await this.summaries(rows)).map((p) => [
          p.id,
          p.createdAt,
          p.updatedAt,
          p.provider,
          p.providerRef,
          p.purpose,
          p.state,
          p.amount.amount,
          p.captured,
          p.refunded,
          p.amount.currency,
          p.cardBrand,
          p.cardLast4,
          p.orderId,
          p.riderId,
          p.riderPhone,
          p.riderEmail,
          p.agentId,
          p.cabinetId,
        ]),
    });
  }
}
