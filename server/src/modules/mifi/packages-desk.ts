// The support desk over riders' Wi-Fi packages (docs/operations.md "Support desk"): the search (by package, order or
// box, the rider's id, phone, e-mail and card last 4, cabinet, venue, state and dates; keyset pages; the CSV export
// page by page) and one package's timeline, read like a rental's (lib/order-timeline.ts): the package's own steps,
// the box's eject command and cabinet events, its order's payments and provider notifications, ledger entries,
// messages and staff actions, in order. A package outside the caller's scope is a 404.
import type { PackageExportQuery, PackageListQuery, PackageSummary, PackageTimeline } from '#contract/ops/search.ts';
import type { TimelineEntry } from '#contract/ops/rentals.ts';
import type { Scope } from '#core/opsAccess.ts';
import type { Clock } from '../../lib/clock.ts';
import { csvPages } from '../../lib/csv.ts';
import { notFound } from '../../lib/errors.ts';
import { inOrder, iso, orderEntries, type TimelineSources } from '../../lib/order-timeline.ts';
import { decodeCursor, pageOf, scopeParams, type RidersNamed } from '../../lib/ops-query.ts';
import type { PackageOpsRow, PackageSearch, PackagesOpsRepository } from './packages-ops-repository.ts';

export const PACKAGE_CSV_COLUMNS = [
  'id',
  'created_at',
  'order_id',
  'state',
  'name',
  'country',
  'days',
  'price',
  'deposit',
  'refunded',
  'currency',
  'device_sn',
  'cabinet_id',
  'venue_id',
  'agent_id',
  'rider_id',
  'rider_phone',
  'rider_email',
  'card_last4',
  'start_at',
  'end_at',
] as const;
const PACKAGE_ID = /^[\w-]{1,100}$/;
const cursorOf = (r: PackageOpsRow): [string, string] => [new Date(r.created_at).toISOString(), r.id];
const HOUR = 3_600_000;

export interface PackagesDeskDeps extends TimelineSources {
  clock: Clock;
  repo: PackagesOpsRepository;
  named: RidersNamed;
  contacts: (ids: number[]) => Promise<Array<{ id: number; mobile: string | null; email: string | null }>>;
}

export class PackagesDesk {
  constructor(private readonly d: PackagesDeskDeps) {}

  private async searchOf(scope: Scope, q: PackageExportQuery): Promise<PackageSearch> {
    const s = scopeParams(scope);
    return {
      agents: s.agents,
      pairs: s.pairs,
      q: q.q?.trim() || undefined,
      userIds: await this.d.named({ phone: q.phone, email: q.email, riderId: q.riderId }),
      cardLast4: q.cardLast4,
      deviceSn: q.powerbankId,
      cabinetId: q.cabinetId,
      venueId: q.venueId,
      status: q.state,
      ...(q.from ? { from: new Date(q.from) } : {}),
      ...(q.to ? { to: new Date(q.to) } : {}),
    };
  }

  private async summaries(rows: PackageOpsRow[]): Promise<PackageSummary[]> {
    const contacts = new Map((await this.d.contacts([...new Set(rows.map((r) => r.user_id))])).map((c) => [c.id, c]));
    return rows.map((r) => toSummary(r, contacts.get(r.user_id)));
  }

  async list(scope: Scope, q: PackageListQuery) {
    const limit = q.limit ?? 50;
    const rows = await this.d.repo.search(await this.searchOf(scope, q), decodeCursor(q.cursor, PACKAGE_ID), limit + 1);
    const page = pageOf(rows, limit, cursorOf, (r) => r);
    return { items: await this.summaries(page.items), ...(page.next ? { next: page.next } : {}) };
  }

  async csv(scope: Scope, q: PackageExportQuery) {
    const search = await this.searchOf(scope, q);
    return csvPages({
      columns: PACKAGE_CSV_COLUMNS,
      page: (after, limit) => this.d.repo.search(search, after, limit),
      cursorOf,
      records: async (rows) =>
        (await this.summaries(rows)).map((p) => [
          p.id,
          p.createdAt,
          p.orderId,
          p.state,
          p.name,
          p.country,
          p.days,
          p.price.amount,
          p.deposit,
          p.refunded,
          p.price.currency,
          p.deviceSn,
          p.cabinetId,
          p.venueId,
          p.agentId,
          p.riderId,
          p.riderPhone,
          p.riderEmail,
          p.cardLast4,
          p.startAt,
          p.endAt,
        ]),
    });
  }

  async timeline(scope: Scope, id: string): Promise<PackageTimeline> {
    const k = await this.d.repo.inScope(id, scopeParams(scope));
    if (!k) throw notFound('ops.error.notFound');
    const [contact] = await this.d.contacts([k.user_id]);
    const last = k.ended_at ?? k.returned_at ?? this.d.clock.now();
    const { entries } = await orderEntries(this.d, {
      orderIds: [k.id, k.order_id],
      powerbankId: k.device_sn,
      entity: 'mifi-package',
      entityId: k.id,
      since: new Date(new Date(k.created_at).getTime() - HOUR),
      until: new Date(new Date(last).getTime() + HOUR),
    });
    return { package: toSummary(k, contact), entries: inOrder([...ownSteps(k), ...entries]) };
  }
}

/** The package's own steps: created, paid, the box handed over, activated, returned, ended. */
function ownSteps(k: PackageOpsRow): TimelineEntry[] {
  const step = (at: Date | null, what: string, detail?: Record<string, unknown>): TimelineEntry[] =>
    at ? [{ at: iso(at)!, source: 'order', what: `package.${what}`, ...(detail ? { detail } : {}) }] : [];
  return [
    ...step(k.created_at, 'created', { orderId: k.order_id, cabinetId: k.cabinet_id ?? undefined, days: k.days }),
    ...step(k.paid_at, 'paid'),
    ...step(k.bound_at, 'boxHandedOver', { deviceSn: k.device_sn ?? undefined }),
    ...step(k.activated_at, 'activated'),
    ...step(k.returned_at, 'boxReturned'),
    ...step(k.ended_at, 'ended'),
  ];
}

function toSummary(r: PackageOpsRow, c: { mobile: string | null; email: string | null } | undefined): PackageSummary {
  return {
    id: r.id,
    orderId: r.order_id,
    state: r.status,
    name: r.package_name,
    ...(r.country ? { country: r.country } : {}),
    days: r.days,
    price: { amount: r.price, currency: r.currency },
    deposit: r.deposit,
    refunded: r.refunded_amount,
    ...(r.device_sn ? { deviceSn: r.device_sn } : {}),
    ...(r.cabinet_id ? { cabinetId: r.cabinet_id } : {}),
    ...(r.venue_id ? { venueId: r.venue_id } : {}),
    ...(r.agent_id ? { agentId: r.agent_id } : {}),
    riderId: String(r.user_id),
    ...(c?.mobile ? { riderPhone: c.mobile } : {}),
    ...(c?.email ? { riderEmail: c.email } : {}),
    ...(r.card_last4 ? { cardLast4: r.card_last4 } : {}),
    startAt: iso(r.start_at)!,
    endAt: iso(r.end_at)!,
    createdAt: iso(r.created_at)!,
  };
}
