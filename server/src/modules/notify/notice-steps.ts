// The charge steps of an open rental, from its plan (src/core/pricing.ts, the one fee rule) and start: each with the
// moment it happens, what it charges, and when to remind the rider before it. Pure: the notice service stores them.
import {
  buyOutAt,
  buyOutFee,
  DAY_MINUTES,
  MINUTE_MS,
  momentAt,
  overtimeMinutes,
  type Pause,
  type PricePlan,
} from '#core/pricing.ts';

export type NoticeKind = 'receipt' | 'free_end' | 'cap' | 'day' | 'tier' | 'buyout' | 'hold';
export const NOTICE_KINDS: readonly NoticeKind[] = ['receipt', 'free_end', 'cap', 'day', 'tier', 'buyout', 'hold'];

export interface NoticeStep {
  kind: NoticeKind;
  /** Unique per order ('day:2', 'buyout:60'). */
  step: string;
  /** When the step happens. */
  eventAt: Date;
  /** When the rider is told. */
  dueAt: Date;
  /** What the step charges, minor units (the rate from then on, the day's cap, the buy-out, the hold). */
  amount: number;
}

export interface StepSettings {
  /** Minutes before a charge step (free minutes ending, the cap, a new day, a tier). */
  stepLead: number;
  /** Minutes before the buy-out, each a reminder (default 24 h and 1 h). */
  buyOutLeads: readonly number[];
}

export const DEFAULT_STEP_SETTINGS: StepSettings = { stepLead: 5, buyOutLeads: [1440, 60] };

/**
 * The reminders of a rental that started at `borrowedAt`: only steps inside the overtime period (past it the order
 * is bought out), each reminded `stepLead` minutes before (never before the start). A grace period (`pauses`) moves
 * every step after it later by its length, as the fee rule counts (src/core/pricing.ts countedMs); a card hold's
 * expiry is the provider's and does not move.
 */
export function noticeSteps(
  plan: PricePlan,
  borrowedAt: Date,
  s: StepSettings,
  holdExpiresAt?: Date | null,
  pauses: readonly Pause[] = [],
): NoticeStep[] {
  const start = borrowedAt.getTime();
  const end = buyOutAt(plan, borrowedAt, pauses).getTime();
  const at = (minute: number) => new Date(momentAt(start, minute * MINUTE_MS, pauses));
  const out: NoticeStep[] = [];
  const step = (kind: NoticeKind, key: string, minute: number, amount: number, lead = s.stepLead) => {
    const eventAt = at(minute);
    if (eventAt.getTime() <= start || eventAt.getTime() >= end) return;
    out.push({
      kind,
      step: key,
      eventAt,
      dueAt: new Date(Math.max(start, eventAt.getTime() - lead * MINUTE_MS)),
      amount,
    });
  };
  if (plan.kind === 'tiered') {
    // Each row boundary: from then on the next row's fee.
    plan.tiers.forEach((t, i) => {
      if (t.startMinute > 0) step('tier', `tier:${i}`, t.startMinute, t.totalFee);
    });
  } else {
    if (plan.freeMinutes > 0) step('free_end', 'free_end', plan.freeMinutes, plan.unitPrice);
    const days = Math.ceil(overtimeMinutes(plan) / DAY_MINUTES);
    for (let d = 0; d < days; d++) {
      const dayStart = d * DAY_MINUTES;
      if (d > 0)
        step(
          'day',
          `day:${d + 1}`,
          dayStart,
          Math.min(plan.unitPrice, plan.dailyCap > 0 ? plan.dailyCap : plan.unitPrice),
        );
      if (plan.dailyCap > 0 && plan.unitPrice > 0) {
        // The unit whose start brings the day's rent to the cap: from then on the day costs nothing more.
        const units = Math.ceil(plan.dailyCap / plan.unitPrice);
        const capMinute = dayStart + Math.max(d === 0 ? plan.freeMinutes : 0, (units - 1) * plan.unitMinutes);
        if (units > 1 && capMinute < dayStart + DAY_MINUTES) step('cap', `cap:${d + 1}`, capMinute, plan.dailyCap);
      }
    }
  }
  for (const lead of s.buyOutLeads) {
    const eventAt = new Date(end);
    const dueAt = new Date(end - lead * MINUTE_MS);
    if (dueAt.getTime() > start)
      out.push({ kind: 'buyout', step: `buyout:${lead}`, eventAt, dueAt, amount: buyOutFee(plan) });
  }
  if (holdExpiresAt && holdExpiresAt.getTime() > start && holdExpiresAt.getTime() < end) {
    const dueAt = new Date(Math.max(start, holdExpiresAt.getTime() - 60 * MINUTE_MS - 24 * 60 * MINUTE_MS));
    out.push({ kind: 'hold', step: 'hold', eventAt: holdExpiresAt, dueAt, amount: plan.deposit });
  }
  return out.sort((a, b) => a.dueAt.getTime() - b.dueAt.getTime());
}

/**
 * Quiet hours in the rider's time zone: a reminder due inside them is sent at their start instead (earlier, never
 * after the step). `from`/`to` are minutes after local midnight (from > to: across midnight). Returns the new time.
 */
export function beforeQuiet(
  dueAt: Date,
  q: { from: number | null; to: number | null; timeZone: string },
  notBefore: Date,
): Date {
  if (q.from == null || q.to == null || q.from === q.to) return dueAt;
  const local = localMinute(dueAt, q.timeZone);
  const inQuiet = q.from < q.to ? local >= q.from && local < q.to : local >= q.from || local < q.to;
  if (!inQuiet) return dueAt;
  // Minutes since quiet hours began (wrapping over midnight).
  const since = (local - q.from + DAY_MINUTES) % DAY_MINUTES;
  const moved = new Date(dueAt.getTime() - (since + 1) * MINUTE_MS);
  return moved.getTime() < notBefore.getTime() ? dueAt : moved;
}

/** Whether `at` falls in the quiet hours. */
export function inQuietHours(at: Date, q: { from: number | null; to: number | null; timeZone: string }) {
  return beforeQuiet(at, q, new Date(0)).getTime() !== at.getTime();
}

function localMinute(at: Date, timeZone: string) {
  const parts = new Intl.DateTimeFormat('en-GB', {
    timeZone,
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).formatToParts(at);
  const n = (type: string) => Number(parts.find((p) => p.type === type)?.value ?? 0);
  return n('hour') * 60 + n('minute');
}
