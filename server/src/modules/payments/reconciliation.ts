// The daily reconciliation of each payment provider's settlements against the ledger (docs/payments.md
// "Reconciliation"). For a day (UTC) and a provider: the provider's own records from its API (Stripe: the balance
// transactions; the sandbox: its intents' totals; Mercado Pago, Flutterwave, PayPal: their reports, settlements/;
// a provider whose API has none: "unavailable"), page by page into provider_settlement_lines, then compared in one
// statement (ReconciliationRepository.finish) with what the ledger moved through that provider's clearing accounts
// per order (captured in, refunded out) and the provider fee it recorded: a day of any size in constant memory. Every
// difference is listed: a payment the ledger does not have, ledger money the provider does not, an amount or a fee
// that differs. A report that cannot be read (the provider unreachable, its error, refused credentials, or its data
// not complete yet) stores nothing: the ops API answers 503 and the daily job tries that provider's day again later.
// A recurring job runs the day before for every provider; a run replaces that provider's day (idempotent per
// provider and day, and crash-safe: the job stays due until its one upsert is written).
import type { Mismatch, ReconciliationShape } from '#contract/ops/money.ts';
import type { Queryable } from '../../db/db.ts';
import type { JobRunner } from '../../jobs/runner.ts';
import type { Clock } from '../../lib/clock.ts';
import { AppError, notFound } from '../../lib/errors.ts';
import { randomToken } from '../../lib/ids.ts';
import { SettlementsNotReady, type PaymentProvider, type SettlementLine } from './provider.ts';
import { ReconciliationRepository, type ReconciliationRow } from './reconciliation-repository.ts';

export const JOB_RECONCILE = 'payments.reconcile-daily';
/** One provider's day again, after its report could not be read (payload: provider, day). */
export const JOB_RECONCILE_RETRY = 'payments.reconcile-retry';
const DAY_MS = 86_400_000;
/** The daily run's hour (UTC): late enough for the providers to have the day's movements. */
const RUN_HOUR = 3;
/** A day whose report could not be read is tried again this much later, for up to RETRY_FOR after the day. */
const RETRY_MS = 3_600_000;
const RETRY_FOR_MS = 7 * DAY_MS;

/** A provider's report of the day could not be read: nothing was stored (503; the job tries again later). */
export class SettlementsUnreadable extends AppError {
  constructor(
    readonly provider: string,
    cause: unknown,
  ) {
    const notReady = cause instanceof SettlementsNotReady;
    const reason = (cause as { code?: unknown } | null)?.code;
    super(503, notReady ? 'ops.error.settlementsNotReady' : 'ops.error.settlementsUnreadable', {
      provider,
      reason: typeof reason === 'string' ? reason : 'error',
    });
    this.name = 'SettlementsUnreadable';
    this.cause = cause;
  }
}

export interface ReconciliationDeps {
  clock: Clock;
  jobs: JobRunner;
  repo: ReconciliationRepository;
  providers: () => PaymentProvider[];
}

/** The reconciliation over the database's payments and ledger and every provider `payments` has registered. */
export const reconciliationOf = (
  db: Queryable,
  clock: Clock,
  jobs: JobRunner,
  payments: { allProviders(): PaymentProvider[] },
) =>
  new Reconciliation({ clock, jobs, repo: new ReconciliationRepository(db), providers: () => payments.allProviders() });

export const dayOf = (d: Date) => d.toISOString().slice(0, 10);

export class Reconciliation {
  constructor(private readonly d: ReconciliationDeps) {
    d.jobs.register(JOB_RECONCILE, async (_p, job) => {
      const yesterday = dayOf(new Date(this.d.clock.now().getTime() - DAY_MS));
      for (const p of this.d.providers()) await this.runOrRetry(p.id, yesterday);
      await this.d.jobs.ensurePending(JOB_RECONCILE, this.nextRun(), job.id);
    });
    d.jobs.register(JOB_RECONCILE_RETRY, async (p) => {
      const provider = String(p.provider);
      if (this.d.providers().some((x) => x.id === provider)) await this.runOrRetry(provider, String(p.day));
    });
  }

  /** Reconciles a provider's day; a report that cannot be read is tried again later (until RETRY_FOR after the day). */
  private async runOrRetry(provider: string, day: string) {
    try {
      await this.run(provider, day);
    } catch (err) {
      if (!(err instanceof SettlementsUnreadable)) throw err;
      const at = new Date(this.d.clock.now().getTime() + RETRY_MS);
      if (at.getTime() < Date.parse(`${day}T00:00:00Z`) + RETRY_FOR_MS)
        await this.d.jobs.enqueue(JOB_RECONCILE_RETRY, { provider, day }, at);
    }
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

  /**
   * Reconciles every provider's `day` now. A provider whose report cannot be read keeps its earlier result (if any);
   * the others are stored, then the first such provider's SettlementsUnreadable is thrown (503).
   */
  async runAll(day: string): Promise<{ items: ReconciliationShape[]; unreadable?: SettlementsUnreadable }> {
    const items: ReconciliationShape[] = [];
    let unreadable: SettlementsUnreadable | undefined;
    for (const p of this.d.providers()) {
      try {
        items.push(shape(await this.run(p.id, day)));
      } catch (err) {
        if (!(err instanceof SettlementsUnreadable)) throw err;
        unreadable ??= err;
      }
    }
    return unreadable ? { items, unreadable } : { items };
  }

  /** Reconciles one provider's day and stores the result (replacing an earlier run's). */
  async run(providerId: string, day: string): Promise<ReconciliationRow> {
    const provider = this.d.providers().find((p) => p.id === providerId);
    if (!provider) throw notFound('error.notFound');
    const from = new Date(`${day}T00:00:00Z`);
    const to = new Date(from.getTime() + DAY_MS);
    const run = { id: randomToken(12), provider: providerId, day };
    let settlements;
    try {
      settlements = await provider.settlements(from, to);
    } catch (err) {
      throw new SettlementsUnreadable(providerId, err);
    }
    if (!settlements) {
      const row: ReconciliationRow = {
        provider: providerId,
        day,
        status: 'unavailable',
        lines: 0,
        mismatches: [],
        ran_at: this.d.clock.now(),
      };
      await this.d.repo.save(row);
      return row;
    }
    // Each page is stored before the next is asked for: only one page is held at a time.
    const pages = settlements.pages[Symbol.asyncIterator]();
    let lines = 0;
    try {
      for (;;) {
        let next: IteratorResult<SettlementLine[]>;
        try {
          next = await pages.next();
          if (!next.done) next.value.forEach(checkLine);
        } catch (err) {
          throw new SettlementsUnreadable(providerId, err);
        }
        if (next.done) break;
        await this.d.repo.addLines(run, lines, next.value);
        lines += next.value.length;
      }
    } catch (err) {
      await pages.return?.();
      await this.d.repo.dropRun(run.id);
      throw err;
    }
    const row = await this.d.repo.finish({
      ...run,
      from,
      to,
      cumulative: settlements.cumulative,
      lines,
      at: this.d.clock.now(),
    });
    // A newer run of the day replaced this one's lines meanwhile: its result is the day's.
    return row ?? (await this.d.repo.get(providerId, day))!;
  }
}

/** A line as the table keeps it: integer minor units, a currency code, a source; else the report is not readable. */
function checkLine(l: SettlementLine) {
  const ok =
    Number.isSafeInteger(l.amount) &&
    Number.isSafeInteger(l.fee) &&
    /^[A-Z]{3}$/.test(l.currency) &&
    typeof l.source === 'string' &&
    l.source !== '' &&
    (l.type === 'charge' || l.type === 'refund') &&
    (l.ref === null || typeof l.ref === 'string');
  if (!ok)
    throw Object.assign(new Error(`a settlement line that is not one: ${JSON.stringify(l)}`), { code: 'bad_response' });
}

function shape(r: ReconciliationRow): ReconciliationShape {
  return {
    provider: r.provider,
    day: r.day,
    status: r.status,
    lines: r.lines,
    mismatches: r.mismatches as Mismatch[],
    ranAt: new Date(r.ran_at).toISOString(),
  };
}
