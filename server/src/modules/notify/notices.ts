// Rental notices: a receipt right after the cabinet reports the return, and reminders before each charge step of an
// open rental (free minutes ending, the daily cap, a new day, a tier, the buy-out 24 h and 1 h before by default
// (per agent), a card hold expiring). Each is a row (unique per order and step: never twice) and a job at its time
// (in the database: it survives restarts, and any process runs it once under its lease). Rows are written in the
// unit of work of the order's transition (RentalsService.changed). The job sends on the rider's channels (Web Push,
// e-mail, SMS, the embed's host page) in the rider's language and time zone, skips a kind the rider turned off, and
// records each channel's delivery, so a retry sends only where it did not go yet.
import { formatDuration } from '#core/duration.ts';
import { formatMoney } from '#core/money.ts';
import { allOf } from '../../db/db.ts';
import type { Clock } from '../../lib/clock.ts';
import { pickLocale, t, type Locale } from '../../lib/i18n.ts';
import type { JobRunner } from '../../jobs/runner.ts';
import type { Logger } from '../cabinets/link.ts';
import type { PaymentsService } from '../payments/service.ts';
import { Zujie } from '../rentals/order-state.ts';
import type { OrderRow } from '../rentals/service.ts';
import { pausesOf } from '#core/pricing.ts';
import { beforeQuiet, DEFAULT_STEP_SETTINGS, inQuietHours, noticeSteps } from './notice-steps.ts';
import type { NoticeRow, NoticesRepository, PrefsRow } from './notices-repository.ts';

export const JOB_NOTICE = 'notify.rental-notice';

/** One way to reach a rider. `send` answers a reference, or throws (the job retries the channels left). */
export interface NoticeChannel {
  readonly id: 'push' | 'email' | 'sms' | 'host';
  send(to: { userId: number; prefs: PrefsRow }, n: ComposedNotice): Promise<string | null>;
}

export interface ComposedNotice {
  noticeId: number;
  orderId: string;
  kind: string;
  /** The same for a retried delivery: a push service replaces, a service worker re-shows under one tag. */
  tag: string;
  title: string;
  body: string;
  /** The app route that shows it (the order). */
  path: string;
}

export const DEFAULT_PREFS = (userId: number): PrefsRow => ({
  user_id: userId,
  channels: ['push', 'host'],
  kinds_off: [],
  email: null,
  phone: null,
  locale: 'en-US',
  time_zone: 'UTC',
  quiet_from: null,
  quiet_to: null,
});

export interface NoticeDeps {
  clock: Clock;
  log: Logger;
  jobs: JobRunner;
  repo: NoticesRepository;
  /** An order by id (the rentals module's). */
  orders: { find(id: string): Promise<OrderRow | undefined> };
  payments: PaymentsService;
  channels: NoticeChannel[];
}

export class NoticeService {
  constructor(private readonly d: NoticeDeps) {
    d.jobs.register(JOB_NOTICE, (p, job) => this.send(p, job.id));
  }

  async prefsOf(userId: number) {
    return (await this.d.repo.prefs(userId)) ?? DEFAULT_PREFS(userId);
  }

  /**
   * An order changed state (in its unit of work): schedule its reminders, or its receipt, or cancel what is left.
   * `order`: the order as it now is, when the caller has it in hand (else it is read).
   */
  async changed(orderId: string, state: number, order?: OrderRow) {
    if (state === Zujie.renting) return this.started(orderId, order);
    if (state === Zujie.returned || state === Zujie.overtimeReturn) return this.ended(orderId, true);
    if (state !== Zujie.pending && state !== Zujie.fault) return this.ended(orderId, false);
  }

  private async started(orderId: string, known?: OrderRow) {
    const order = known ?? (await this.d.orders.find(orderId));
    if (!order?.borrowed_at) return;
    await this.schedule(order, await this.stepsOf(order));
  }

  /** The order's steps as they stand (its grace periods counted), each moved out of the rider's quiet hours. */
  private async stepsOf(order: OrderRow) {
    const now = this.d.clock.now();
    // Independent reads, sent together.
    const [agent, pay, prefs] = await allOf([
      this.d.repo.agentSettingsOfVenue(order.venue_id),
      order.payment_id ? this.d.payments.find(order.payment_id) : undefined,
      this.prefsOf(order.user_id),
    ]);
    const settings = agent
      ? { stepLead: agent.step_lead, buyOutLeads: agent.buy_out_leads.map(Number) }
      : DEFAULT_STEP_SETTINGS;
    const quiet = { from: prefs.quiet_from, to: prefs.quiet_to, timeZone: prefs.time_zone };
    const steps = noticeSteps(
      order.plan,
      new Date(order.borrowed_at!),
      settings,
      pay?.capture_before ?? null,
      pausesOf(order.grace),
    );
    return steps.map((s) => ({ ...s, dueAt: beforeQuiet(s.dueAt, quiet, now) }));
  }

  /**
   * A grace period was granted (in its unit of work): every reminder not sent yet moves to its step's new time (its
   * job cancelled and made again for that time); one already sent is never sent again.
   */
  async rescheduled(orderId: string) {
    const order = await this.d.orders.find(orderId);
    if (!order?.borrowed_at) return;
    const steps = new Map((await this.stepsOf(order)).map((s) => [s.step, s]));
    for (const n of await this.d.repo.ofOrder(orderId)) {
      if (n.state !== 'scheduled' || n.kind === 'receipt') continue;
      const s = steps.get(n.step);
      if (
        s &&
        s.dueAt.getTime() === new Date(n.due_at).getTime() &&
        s.eventAt.getTime() === new Date(n.event_at).getTime()
      )
        continue;
      if (n.job_id != null) await this.d.jobs.cancelById(n.job_id);
      if (!s) {
        await this.d.repo.close(n.id, 'cancelled', 'step moved', this.d.clock.now());
        continue;
      }
      const job = await this.d.jobs.enqueue(JOB_NOTICE, { orderId, step: n.step }, s.dueAt);
      await this.d.repo.move(n.id, s.dueAt, s.eventAt, job);
    }
  }

  private async ended(orderId: string, receipt: boolean) {
    const jobs = await this.d.repo.cancelOpen(orderId, 'rental ended');
    for (const id of jobs) await this.d.jobs.cancelById(id);
    if (!receipt) return;
    const order = await this.d.orders.find(orderId);
    if (!order?.returned_at) return;
    await this.schedule(order, [
      {
        kind: 'receipt',
        step: 'receipt',
        eventAt: new Date(order.returned_at),
        dueAt: this.d.clock.now(),
        amount: Number(order.fee ?? 0),
      },
    ]);
  }

  private async schedule(
    order: OrderRow,
    steps: { kind: string; step: string; dueAt: Date; eventAt: Date; amount: number }[],
  ) {
    if (!steps.length) return;
    // Each notice's job first, naming it by order and step, then the notices with their jobs: two statements. A
    // step already stored keeps its notice and job; the job made for it is not that notice's, and does nothing.
    const ids = await this.d.jobs.enqueueMany(
      steps.map((s) => ({ kind: JOB_NOTICE, payload: { orderId: order.id, step: s.step }, runAt: s.dueAt })),
    );
    await this.d.repo.insertMany(
      steps.map((s, i) => ({ ...s, orderId: order.id, userId: order.user_id, jobId: ids[i]! })),
      this.d.clock.now(),
    );
  }

  /**
   * The job: sends the notice on each chosen channel not delivered yet, once. Its notice by order and step, and only
   * while this job is the notice's; by id for a job queued before jobs named their notice so.
   */
  private async send(p: Record<string, unknown>, jobId: number) {
    const n =
      p.noticeId !== undefined
        ? await this.d.repo.find(Number(p.noticeId))
        : await this.d.repo.findStep(String(p.orderId), String(p.step));
    if (n?.state !== 'scheduled' || (p.noticeId === undefined && n.job_id !== jobId)) return;
    const noticeId = n.id;
    const now = this.d.clock.now();
    const order = await this.d.orders.find(n.order_id);
    if (!order) return;
    const prefs = await this.prefsOf(n.user_id);
    if (prefs.kinds_off.includes(n.kind)) return this.d.repo.close(n.id, 'skipped', 'turned off', now);
    if (n.kind !== 'receipt') {
      if (order.settled || (order.zujie !== Zujie.renting && order.zujie !== Zujie.fault))
        return this.d.repo.close(n.id, 'cancelled', 'rental ended', now);
      // A faulty power bank stops accruing at the report: only the buy-out and the hold still come.
      if (order.fault_at && n.kind !== 'buyout' && n.kind !== 'hold')
        return this.d.repo.close(n.id, 'cancelled', 'fault reported', now);
      if (inQuietHours(now, { from: prefs.quiet_from, to: prefs.quiet_to, timeZone: prefs.time_zone }))
        return this.d.repo.close(n.id, 'skipped', 'quiet hours', now);
    }
    const composed = compose(n, order, prefs);
    const done = await this.d.repo.delivered(n.id);
    const failed: unknown[] = [];
    for (const ch of this.d.channels) {
      if (!prefs.channels.includes(ch.id) || done.has(ch.id)) continue;
      try {
        const ref = await ch.send({ userId: n.user_id, prefs }, composed);
        await this.d.repo.recordDelivery(n.id, ch.id, ref, this.d.clock.now());
      } catch (err) {
        this.d.log.warn({ err, noticeId, channel: ch.id }, 'notice delivery failed');
        failed.push(err);
      }
    }
    if (failed.length) throw failed[0];
    await this.d.repo.close(n.id, 'sent', null, this.d.clock.now());
  }

  /** The rider's notices of one order (their own; the caller checked). */
  ofOrder(orderId: string) {
    return this.d.repo.ofOrder(orderId);
  }
}

/** The notice's title and text in the rider's language, times in the rider's time zone. */
export function compose(n: NoticeRow, order: OrderRow, prefs: PrefsRow): ComposedNotice {
  const lang: Locale = pickLocale(prefs.locale);
  const money = (minor: number) => formatMoney(minor, order.currency, lang);
  const time = (d: Date) =>
    new Intl.DateTimeFormat(lang, {
      dateStyle: 'medium',
      timeStyle: 'short',
      timeZone: safeZone(prefs.time_zone),
    }).format(d);
  const borrowedAt = order.borrowed_at ? new Date(order.borrowed_at) : new Date(n.event_at);
  const params = {
    amount: money(n.amount),
    time: time(new Date(n.event_at)),
    duration: formatDuration(new Date(n.event_at).getTime() - borrowedAt.getTime(), lang),
    place: order.return_venue_name ?? '',
    deposit: money(Number(order.deposit)),
  };
  return {
    noticeId: n.id,
    orderId: order.id,
    kind: n.kind,
    tag: `${order.id}:${n.step}`,
    title: t(lang, `notice.${n.kind}.title`, params),
    body: t(lang, `notice.${n.kind}.body`, params),
    path: `/orderDetail?orderId=${encodeURIComponent(order.id)}`,
  };
}

function safeZone(tz: string) {
  try {
    new Intl.DateTimeFormat('en', { timeZone: tz });
    return tz;
  } catch {
    return 'UTC';
  }
}
