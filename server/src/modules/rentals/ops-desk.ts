// The support desk over rentals (docs/operations.md "Support desk"): search inside the caller's agents and venues
// (keyset pages; a CSV export page by page, never the whole result in memory), and one timeline per rental: the
// order's own steps, every cabinet command and event (the cabinet's own timestamps), every payment change and
// provider notification, every ledger entry, every receipt sent and every staff action, in order, with the fee
// worked out step by step from the rental's price plan.
import { buyOutAt, countedMs, explainFee, pausesOf } from '#core/pricing.ts';
import type { Scope } from '#core/opsAccess.ts';
import type {
  RentalExportQuery,
  RentalListQuery,
  RentalSummary,
  RentalTimeline,
  TimelineEntry,
} from '#contract/ops/rentals.ts';
import type { Clock } from '../../lib/clock.ts';
import { notFound } from '../../lib/errors.ts';
import { decodeCursor, pageOf, type RidersNamed } from '../../lib/ops-query.ts';
import { csvPages } from '../../lib/csv.ts';
import { inOrder, iso, orderEntries as timelineEntries } from '../../lib/order-timeline.ts';
import type { AuditService } from '../audit/service.ts';
import type { RidersRepository } from '../auth/riders-repository.ts';
import type { CabinetHistoryRepository } from '../cabinets/history-repository.ts';
import type { LedgerHistoryRepository, OrderTransferRow } from '../ledger/history-repository.ts';
import type { PaymentsHistoryRepository } from '../payments/history-repository.ts';
import type { PaymentsService } from '../payments/service.ts';
import { PLATFORM } from '../ledger/service.ts';
import type { RentalListRow, RentalScope, RentalSearch, RentalsOpsRepository } from './ops-repository.ts';

export interface DeskReads {
  clock: Clock;
  repo: RentalsOpsRepository;
  riders: RidersRepository;
  /** The riders a search's phone, e-mail and rider id name (desk.ts `ridersNamed`, the one rule of every search). */
  named: RidersNamed;
  cabinets: CabinetHistoryRepository;
  ledger: LedgerHistoryRepository;
  payments: Pick<PaymentsService, 'timeline'>;
  paymentsHistory: PaymentsHistoryRepository;
  /** The messages sent to the rider about an order (the notify module's history read model). */
  notify: { ofOrder(orderId: string): Promise<{ email: string; message_id: string; sent_at: Date }[]> };
  audit: Pick<AuditService, 'list'>;
}

/** Order ids are not numbers (PO…): the search's cursors carry them as they are. */
export const ORDER_ID = /^[\w-]{1,100}$/;
const REVENUE = `${PLATFORM.type}/${PLATFORM.id}`;

export const RENTAL_CSV_COLUMNS = [
  'id',
  'created_at',
  'state',
  'settled',
  'rider_id',
  'rider_phone',
  'rider_email',
  'agent_id',
  'venue_id',
  'venue_name',
  'cabinet_id',
  'powerbank_id',
  'borrowed_at',
  'returned_at',
  'fee',
  'deposit',
  'currency',
] as const;

/** The permission's scope as the search's WHERE (nothing for 'none'). */
export function rentalScope(s: Scope): RentalScope {
  if (s.kind === 'all') return { agents: null, limitedAgents: [], venues: [] };
  if (s.kind === 'none') return { agents: [], limitedAgents: [], venues: [] };
  return { agents: s.agents, limitedAgents: Object.keys(s.venues), venues: Object.values(s.venues).flat() };
}

/** What the rider was charged for an order (the platform's revenue credited), what was given back, and the rest. */
export function moneyOf(transfers: OrderTransferRow[]) {
  let charged = 0;
  let refunded = 0;
  for (const t of transfers) {
    if (t.flag !== 'posted' && t.flag !== 'post_pending') continue;
    if (t.credit_owner === REVENUE && t.credit_kind === 'revenue') charged += t.amount;
    if (t.debit_owner === REVENUE && t.debit_kind === 'revenue') refunded += t.amount;
  }
  return { charged, refunded, refundable: Math.max(0, charged - refunded) };
}

export class RentalsDesk {
  constructor(private readonly d: DeskReads) {}

  /** The query's filters as the repository's search (riders by phone, e-mail or id; orders by card). */
  private async searchOf(scope: Scope, q: RentalExportQuery): Promise<RentalSearch> {
    // A card names the rentals it paid (not every rental of the riders who ever used it).
    const userIds = await this.d.named({ phone: q.phone, email: q.email, riderId: q.riderId });
    return {
      ...rentalScope(scope),
      q: q.q?.trim(),
      qUsers: q.q ? await this.d.riders.matching({ any: q.q }) : [],
      userIds,
      orderIds: q.cardLast4 ? await this.d.paymentsHistory.ordersOfCard(q.cardLast4) : null,
      powerbankId: q.powerbankId,
      cabinetId: q.cabinetId,
      venueId: q.venueId,
      state: q.state,
      from: q.from ? new Date(q.from) : undefined,
      to: q.to ? new Date(q.to) : undefined,
    };
  }

  private async summaries(rows: RentalListRow[]): Promise<RentalSummary[]> {
    const contacts = new Map(
      (await this.d.riders.contacts([...new Set(rows.map((r) => r.user_id))])).map((c) => [c.id, c]),
    );
    return rows.map((r) => toSummary(r, contacts.get(r.user_id)));
  }

  async list(scope: Scope, q: RentalListQuery) {
    const limit = q.limit ?? 50;
    const rows = await this.d.repo.search(await this.searchOf(scope, q), decodeCursor(q.cursor, ORDER_ID), limit + 1);
    const page = pageOf(
      rows,
      limit,
      (r) => [new Date(r.created_at).toISOString(), r.id],
      (r) => r,
    );
    return { items: await this.summaries(page.items), ...(page.next ? { next: page.next } : {}) };
  }

  /** The CSV export, page by page. */
  async csv(scope: Scope, q: RentalExportQuery): Promise<AsyncGenerator<string>> {
    const search = await this.searchOf(scope, q);
    return csvPages({
      columns: RENTAL_CSV_COLUMNS,
      page: (after, limit) => this.d.repo.search(search, after, limit),
      cursorOf: (r) => [new Date(r.created_at).toISOString(), r.id],
      records: async (rows) => (await this.summaries(rows)).map(csvRow),
    });
  }

  /** A rental inside the scope, else 404 (the same answer as a rental that does not exist). */
  async find(scope: Scope, id: string) {
    const row = await this.d.repo.inScope(id, rentalScope(scope));
    if (!row) throw notFound('ops.error.notFound');
    return row;
  }

  /** The number of corrections made to the rental: its version (If-Match of a correction). */
  async version(id: string) {
    return (await this.d.repo.corrections(id)).length;
  }

  async timeline(scope: Scope, id: string): Promise<RentalTimeline> {
    const o = await this.find(scope, id);
    const [contact] = await this.d.riders.contacts([o.user_id]);
    const now = this.d.clock.now();
    const { entries: more, transfers } = await timelineEntries(this.d, {
      orderIds: [id],
      powerbankId: o.powerbank_id,
      entity: 'rental',
      entityId: id,
      since: new Date(new Date(o.created_at).getTime() - 3_600_000),
      until: new Date((o.returned_at ? new Date(o.returned_at) : now).getTime() + 3_600_000),
    });
    const sorted = inOrder([...orderEntries(o), ...more]);
    const start = o.borrowed_at ? new Date(o.borrowed_at).getTime() : undefined;
    const endAt = o.returned_at
      ? new Date(o.returned_at)
      : o.fault_at && new Date(o.fault_at) < now
        ? new Date(o.fault_at)
        : now;
    const pauses = pausesOf(o.grace);
    const stop = Math.min(endAt.getTime(), o.fault_at ? new Date(o.fault_at).getTime() : Infinity);
    const elapsed = start === undefined ? 0 : countedMs(start, Math.max(start, stop), pauses);
    const overtime = start !== undefined && stop > buyOutAt(o.plan, new Date(start), pauses).getTime();
    const fee = explainFee(o.plan, elapsed, { overtime: overtime || o.bought_out_at != null });
    return {
      rental: toSummary(o, contact),
      fee: { steps: fee.steps, total: fee.total, currency: o.currency.trim(), until: endAt.toISOString() },
      money: { ...moneyOf(transfers), currency: o.currency.trim() },
      entries: sorted,
      version: await this.version(id),
    };
  }
}

/** The order's own steps: created, popped, faulty, bought out, returned. */
function orderEntries(o: RentalListRow): TimelineEntry[] {
  const out: TimelineEntry[] = [
    {
      at: iso(o.created_at)!,
      source: 'order',
      what: 'order.created',
      detail: { cabinetId: o.cabinet_id, deposit: Number(o.deposit) },
    },
  ];
  if (o.borrowed_at)
    out.push({
      at: iso(o.borrowed_at)!,
      source: 'order',
      what: 'order.borrowed',
      detail: { powerbankId: o.powerbank_id ?? undefined, slot: o.slot ?? undefined },
    });
  if (o.fault_at)
    out.push({ at: iso(o.fault_at)!, source: 'order', what: 'order.fault', detail: { note: o.note ?? undefined } });
  if (o.bought_out_at) out.push({ at: iso(o.bought_out_at)!, source: 'order', what: 'order.boughtOut' });
  // Each grace period: granted (with what was checked nearby) and when it ends; the fee above leaves it out.
  for (const g of o.grace ?? []) {
    out.push({
      at: g.at,
      source: 'order',
      what: 'order.grace',
      detail: { from: g.from, until: g.until, reason: g.reason, radiusM: g.radiusM, nearest: g.nearest ?? undefined },
    });
  }
  if (o.returned_at)
    out.push({
      at: iso(o.returned_at)!,
      source: 'order',
      what: 'order.returned',
      detail: { cabinetId: o.return_cabinet_id ?? undefined, minutes: o.use_minutes ?? undefined },
    });
  return out;
}

function toSummary(r: RentalListRow, c: { mobile: string | null; email: string | null } | undefined): RentalSummary {
  const currency = r.currency.trim();
  return {
    id: r.id,
    state: r.zujie,
    settled: r.settled,
    riderId: String(r.user_id),
    ...(c?.mobile ? { riderPhone: c.mobile } : {}),
    ...(c?.email ? { riderEmail: c.email } : {}),
    ...(r.agent_id ? { agentId: r.agent_id } : {}),
    venueId: r.venue_id,
    venueName: r.venue_name ?? '',
    cabinetId: r.cabinet_id,
    ...(r.powerbank_id ? { powerbankId: r.powerbank_id } : {}),
    createdAt: iso(r.created_at)!,
    ...(r.borrowed_at ? { borrowedAt: iso(r.borrowed_at) } : {}),
    ...(r.returned_at ? { returnedAt: iso(r.returned_at) } : {}),
    ...(r.fee != null ? { fee: { amount: Number(r.fee), currency } } : {}),
    deposit: { amount: Number(r.deposit), currency },
  };
}

function csvRow(s: RentalSummary): unknown[] {
  return [
    s.id,
    s.createdAt,
    s.state,
    s.settled,
    s.riderId,
    s.riderPhone,
    s.riderEmail,
    s.agentId,
    s.venueId,
    s.venueName,
    s.cabinetId,
    s.powerbankId,
    s.borrowedAt,
    s.returnedAt,
    s.fee?.amount,
    s.deposit.amount,
    s.deposit.currency,
  ];
}
