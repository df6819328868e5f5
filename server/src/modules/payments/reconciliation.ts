// The daily reconciliation of each payment provider's settlements against the ledger (docs/payments.md
// "Reconciliation"). For a day (UTC) and a provider: the provider's own records from its API (Stripe: the balance
// transactions; the sandbox: its intents' totals; a provider whose API has none: "unavailable"), grouped by the
// order each payment pays, against what the ledger moved through that provider's clearing accounts for the order
// (captured in, refunded out) and the provider fee it recorded. Every difference is listed: a payment the ledger
// does not have, ledger money the provider does not, an amount or a fee that differs. A recurring job runs the day
// before for every provider; a run replaces that provider's day (idempotent per provider and day, and crash-safe: the
// job stays due until its one upsert is written).
import type { Mismatch, ReconciliationShape } from '#contract/ops/money.ts';
import type { Queryable } from '../../db/db.ts';
import type { JobRunner } from '../../jobs/runner.ts';
import type { Clock } from '../../lib/clock.ts';
import { notFound } from '../../lib/errors.ts';
import type { PaymentProvider, SettlementLine } from './provider.ts';
import { LedgerHistoryRepository } from '../ledger/history-repository.ts';
import { ReconciliationRepository, type ReconciliationRow } from './reconciliation-repository.ts';

export const JOB_RECONCILE = 'payments.reconcile-daily';
const DAY_MS = 86_400_000;
/** The daily run's hour (UTC): late enough for the providers to have the day's movements. */
const RUN_HOUR = 3;

type Side = Mismatch['provider'];
interface LedgerSums {
  clearingByOrder(provider: string, f: { window: [Date, Date] } | { orders: string[] }): Promise<Array<{ orderId: string; currency: string } & Side>>;
}

export interface ReconciliationDeps {
  clock: Clock;
  jobs: JobRunner;
  repo: ReconciliationRepository;
  providers: () => PaymentProvider[];
  ledger: LedgerSums;
}

/** The reconciliation over the database's payments and ledger and every provider `payments` has registered. */
export const reconciliationOf = (db: Queryable, clock: Clock, jobs: JobRunner, payments: { allProviders(): PaymentProvider[] }) =>
  new Reconciliation({ clock, jobs, repo: new ReconciliationRepository(db), providers: () => payments.allProviders(), ledger: new LedgerHistoryRepository(db) });

export const dayOf = (d: Date) => d.toISOString().slice(0, 10);

export class Reconciliation {
  constructor(private readonly d: ReconciliationDeps) {
    d.jobs.register(JOB_RECONCILE, async (_p, job) => {
      const yesterday = dayOf(new Date(this.d.clock.now().getTime() - DAY_MS));
      for (const p of this.d.providers()) await this.run(p.id, yesterday);
      await this.d.jobs.ensurePending(JOB_RECONCILE, this.nextRun(), job.id);
    });
  }

  /** The next daily run (at start-up; a no-op when one is scheduled). */
  async schedule() {
    await this.d.jobs.ensurePending(JOB_RECONCILE, this.nextRun());
  }

  private nextRun() {
    const now = this.d.clock.now();
    const at = new Date(`${dayOf(now)}T${String(RUN_HOUR).padStart(2, '0')}:00:00Z`);
    return at > now ? at : new Date(at.getTime() + DAY_MS);
  }

  list(from: string, to: string): Promise<ReconciliationShape[]> {
    return this.d.repo.list(from, to).then((rows) => rows.map(shape));
  }

  /** Reconciles every provider's `day` now. */
  async runAll(day: string): Promise<ReconciliationShape[]> {
    const out: ReconciliationShape[] = [];
    for (const p of this.d.providers()) out.push(shape(await this.run(p.id, day)));
    return out;
  }

  /** Reconciles one provider's day and stores the result (replacing an earlier run's). */
  async run(providerId: string, day: string): Promise<ReconciliationRow> {
    const provider = this.d.providers().find((p) => p.id === providerId);
    if (!provider) throw notFound('error.notFound');
    const from = new Date(`${day}T00:00:00Z`);
    const to = new Date(from.getTime() + DAY_MS);
    let settlements = await provider.settlements(from, to);
    // Every page read before anything is compared. A report that cannot be read (WeChat Pay's and Alipay's bill of
    // a day exist only from the morning after, China time) leaves the day unavailable: run it again later.
    const lines: SettlementLine[] = [];
    try {
      if (settlements) for await (const page of settlements.pages) lines.push(...page);
    } catch {
      settlements = null;
    }
    const row: ReconciliationRow = settlements
      ? { provider: providerId, day, ...(await this.compare(providerId, from, to, { cumulative: settlements.cumulative, lines })) }
      : { provider: providerId, day, status: 'unavailable', lines: 0, mismatches: [], ran_at: this.d.clock.now() };
    await this.d.repo.save(row);
    return row;
  }

  private async compare(providerId: string, from: Date, to: Date, s: { cumulative: boolean; lines: SettlementLine[] }) {
    const orderOf = await this.d.repo.ordersOfRefs(providerId, [...new Set(s.lines.flatMap((l) => (l.ref ? [l.ref] : [])))]);
    // The provider's side per order (a payment we do not know: per its own reference) and currency.
    const byKey = new Map<string, { orderId?: string; refs: Set<string>; currency: string } & Side>();
    for (const l of s.lines) {
      const orderId = (l.ref && orderOf.get(l.ref)) || undefined;
      const key = `${orderId ?? `?${l.ref ?? l.source}`}|${l.currency}`;
      const e = byKey.get(key) ?? { ...(orderId ? { orderId } : {}), refs: new Set<string>(), currency: l.currency, charged: 0, refunded: 0, fee: 0 };
      if (l.ref) e.refs.add(l.ref);
      if (l.type === 'charge') e.charged += l.amount;
      else e.refunded += -l.amount;
      e.fee += l.fee;
      byKey.set(key, e);
    }
    const known = [...new Set([...byKey.values()].flatMap((e) => (e.orderId ? [e.orderId] : [])))];
    // The ledger's side: the day's movements; for a provider that keeps totals (cumulative), those orders' totals.
    const moved = await this.d.ledger.clearingByOrder(providerId, { window: [from, to] });
    const totals = s.cumulative ? await this.d.ledger.clearingByOrder(providerId, { orders: known }) : moved;
    const ledger = new Map(totals.map((t) => [`${t.orderId}|${t.currency}`, t]));
    const none: Side = { charged: 0, refunded: 0, fee: 0 };
    const mismatches: Mismatch[] = [];
    for (const [key, p] of byKey) {
      const l = ledger.get(key);
      const provider = { charged: p.charged, refunded: p.refunded, fee: p.fee };
      const base = { ...(p.orderId ? { orderId: p.orderId } : {}), refs: [...p.refs], currency: p.currency, provider };
      if (!l || (l.charged === 0 && l.refunded === 0)) mismatches.push({ kind: 'missing_in_ledger', ...base, ledger: l ? side(l) : none });
      else if (l.charged !== p.charged || l.refunded !== p.refunded) mismatches.push({ kind: 'amount_differs', ...base, ledger: side(l) });
      // The ledger's provider fee is an estimate recorded with a rental's shares: compared when it recorded one.
      else if (l.fee !== 0 && l.fee !== p.fee) mismatches.push({ kind: 'fee_differs', ...base, ledger: side(l) });
    }
    const missing = moved.filter((m) => !byKey.has(`${m.orderId}|${m.currency}`) && (m.charged !== 0 || m.refunded !== 0));
    const refs = await this.d.repo.refsOfOrders(providerId, missing.map((m) => m.orderId));
    for (const m of missing) mismatches.push({ kind: 'missing_at_provider', orderId: m.orderId, refs: refs.get(m.orderId) ?? [], currency: m.currency, provider: none, ledger: side(m) });
    return { status: mismatches.length ? 'mismatched' as const : 'matched' as const, lines: s.lines.length, mismatches, ran_at: this.d.clock.now() };
  }
}

const side = (s: Side): Side => ({ charged: s.charged, refunded: s.refunded, fee: s.fee });

function shape(r: ReconciliationRow): ReconciliationShape {
  return { provider: r.provider, day: r.day, status: r.status, lines: r.lines, mismatches: r.mismatches as Mismatch[], ranAt: new Date(r.ran_at).toISOString() };
}
