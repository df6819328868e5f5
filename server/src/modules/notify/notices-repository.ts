// rental_notices, notice_deliveries, notice_prefs, push_subscriptions, agent_return_settings (owned by notify).
import type { Queryable } from '../../db/db.ts';
import type { NoticeKind } from './notice-steps.ts';

export interface NoticeRow {
  id: number;
  order_id: string;
  user_id: number;
  kind: NoticeKind;
  step: string;
  due_at: Date;
  event_at: Date;
  amount: number;
  state: 'scheduled' | 'sent' | 'skipped' | 'cancelled';
  reason: string | null;
  job_id: number | null;
  sent_at: Date | null;
}

export interface PrefsRow {
  user_id: number;
  channels: string[];
  kinds_off: string[];
  email: string | null;
  phone: string | null;
  locale: string;
  time_zone: string;
  quiet_from: number | null;
  quiet_to: number | null;
}

export interface PushSubscriptionRow {
  id: number;
  user_id: number;
  endpoint: string;
  p256dh: string;
  auth: string;
}

/** A power bank returned within this many days after its buy-out gets the buy-out back, less the rent (default). */
export const DEFAULT_BUY_OUT_REVERSAL_DAYS = 30;

/** An agent's return settings (agent_return_settings); absent: the defaults below and the column defaults. */
export interface AgentReturnSettings {
  buy_out_leads: number[];
  step_lead: number;
  buy_out_reversal_days: number;
  grace_radius_m: number;
  grace_minutes: number;
  grace_max_minutes: number;
  time_zone: string;
}

const notice = (r: NoticeRow): NoticeRow => ({
  ...r,
  id: Number(r.id),
  user_id: Number(r.user_id),
  amount: Number(r.amount),
  job_id: r.job_id == null ? null : Number(r.job_id),
});

export class NoticesRepository {
  constructor(private readonly db: Queryable) {}

  /** Inserts the notices not stored yet (unique per order and step), each with its job; returns the new ones. */
  async insertMany(
    rows: {
      orderId: string;
      userId: number;
      kind: string;
      step: string;
      dueAt: Date;
      eventAt: Date;
      amount: number;
      jobId: number;
    }[],
    at: Date,
  ) {
    if (!rows.length) return [];
    const { rows: out } = await this.db.query<NoticeRow>(
      `insert into rental_notices (order_id, user_id, kind, step, due_at, event_at, amount, created_at, job_id)
       select o, u, k, s, d, e, a, $8, j from unnest($1::text[], $2::bigint[], $3::text[], $4::text[], $5::timestamptz[], $6::timestamptz[], $7::bigint[], $9::bigint[]) as x(o, u, k, s, d, e, a, j)
       on conflict (order_id, step) do nothing returning *`,
      [
        rows.map((r) => r.orderId),
        rows.map((r) => r.userId),
        rows.map((r) => r.kind),
        rows.map((r) => r.step),
        rows.map((r) => r.dueAt.toISOString()),
        rows.map((r) => r.eventAt.toISOString()),
        rows.map((r) => r.amount),
        at,
        rows.map((r) => r.jobId),
      ],
    );
    return out.map(notice);
  }

  /** The agent of a venue (null: the platform's own), for its settings. */
  /** The return settings of a venue's agent (undefined: none set, or no agent), in one statement. */
  async agentSettingsOfVenue(venueId: string) {
    const { rows } = await this.db.query<AgentReturnSettings>(
      `select s.buy_out_leads, s.step_lead, s.buy_out_reversal_days, s.grace_radius_m, s.grace_minutes,
              s.grace_max_minutes, s.time_zone
         from venues v join agent_return_settings s on s.agent_id = v.agent_id where v.id = $1`,
      [venueId],
    );
    return rows[0];
  }

  /** An order's notice of `step` (unique). */
  async findStep(orderId: string, step: string) {
    const { rows } = await this.db.query<NoticeRow>('select * from rental_notices where order_id = $1 and step = $2', [
      orderId,
      step,
    ]);
    return rows[0] && notice(rows[0]);
  }

  async find(id: number, opts: { lock?: boolean } = {}) {
    const { rows } = await this.db.query<NoticeRow>(
      `select * from rental_notices where id = $1${opts.lock ? ' for update' : ''}`,
      [id],
    );
    return rows[0] && notice(rows[0]);
  }

  async ofOrder(orderId: string) {
    const { rows } = await this.db.query<NoticeRow>(
      'select * from rental_notices where order_id = $1 order by due_at, id',
      [orderId],
    );
    return rows.map(notice);
  }

  async close(id: number, state: 'sent' | 'skipped' | 'cancelled', reason: string | null, at: Date) {
    await this.db.query(
      `update rental_notices set state = $2, reason = $3, sent_at = case when $2 = 'sent' then $4 else sent_at end
      where id = $1 and state = 'scheduled'`,
      [id, state, reason, at],
    );
  }

  /** The order's reminders still to send: cancelled (the rental ended); their job ids, to cancel them too. */
  async cancelOpen(orderId: string, reason: string) {
    const { rows } = await this.db.query<{ job_id: number | null }>(
      `update rental_notices set state = 'cancelled', reason = $2 where order_id = $1 and state = 'scheduled' and kind <> 'receipt' returning job_id`,
      [orderId, reason],
    );
    return rows
      .map((r) => r.job_id)
      .filter((j): j is number => j != null)
      .map(Number);
  }

  /** A reminder not sent yet moves to a new time, with its new job. */
  async move(id: number, dueAt: Date, eventAt: Date, jobId: number) {
    await this.db.query(
      `update rental_notices set due_at = $2, event_at = $3, job_id = $4 where id = $1 and state = 'scheduled'`,
      [id, dueAt, eventAt, jobId],
    );
  }

  async delivered(noticeId: number) {
    const { rows } = await this.db.query<{ channel: string }>(
      'select channel from notice_deliveries where notice_id = $1',
      [noticeId],
    );
    return new Set(rows.map((r) => r.channel));
  }

  async recordDelivery(noticeId: number, channel: string, ref: string | null, at: Date) {
    await this.db.query(
      'insert into notice_deliveries (notice_id, channel, at, ref) values ($1, $2, $3, $4) on conflict do nothing',
      [noticeId, channel, at, ref],
    );
  }

  async prefs(userId: number) {
    const { rows } = await this.db.query<PrefsRow>('select * from notice_prefs where user_id = $1', [userId]);
    const r = rows[0];
    return r && { ...r, user_id: Number(r.user_id) };
  }

  async savePrefs(p: PrefsRow, at: Date) {
    await this.db.query(
      `insert into notice_prefs (user_id, channels, kinds_off, email, phone, locale, time_zone, quiet_from, quiet_to, updated_at)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
       on conflict (user_id) do update set channels = $2, kinds_off = $3, email = $4, phone = $5, locale = $6, time_zone = $7,
         quiet_from = $8, quiet_to = $9, updated_at = $10`,
      [p.user_id, p.channels, p.kinds_off, p.email, p.phone, p.locale, p.time_zone, p.quiet_from, p.quiet_to, at],
    );
  }

  async subscribe(userId: number, s: { endpoint: string; p256dh: string; auth: string }, at: Date) {
    await this.db.query(
      `insert into push_subscriptions (user_id, endpoint, p256dh, auth, created_at) values ($1, $2, $3, $4, $5)
       on conflict (endpoint) do update set user_id = $1, p256dh = $3, auth = $4, gone_at = null`,
      [userId, s.endpoint, s.p256dh, s.auth, at],
    );
  }

  async unsubscribe(userId: number, endpoint: string, at: Date) {
    await this.db.query(
      'update push_subscriptions set gone_at = $3 where user_id = $1 and endpoint = $2 and gone_at is null',
      [userId, endpoint, at],
    );
  }

  async subscriptions(userId: number) {
    const { rows } = await this.db.query<PushSubscriptionRow>(
      'select id, user_id, endpoint, p256dh, auth from push_subscriptions where user_id = $1 and gone_at is null order by id',
      [userId],
    );
    return rows.map((r) => ({ ...r, id: Number(r.id), user_id: Number(r.user_id) }));
  }

  async gone(id: number, at: Date) {
    await this.db.query('update push_subscriptions set gone_at = $2 where id = $1', [id, at]);
  }

  async agentSettings(agentId: string | null) {
    if (!agentId) return undefined;
    const { rows } = await this.db.query<AgentReturnSettings>(
      `select buy_out_leads, step_lead, buy_out_reversal_days, grace_radius_m, grace_minutes, grace_max_minutes, time_zone
         from agent_return_settings where agent_id = $1`,
      [agentId],
    );
    return rows[0];
  }

  /** How many days after a buy-out a returned power bank still gets the buy-out back, for a venue's agent. */
  async buyOutReversalDays(venueId: string) {
    return (await this.agentSettingsOfVenue(venueId))?.buy_out_reversal_days ?? DEFAULT_BUY_OUT_REVERSAL_DAYS;
  }

  async saveAgentSettings(
    agentId: string,
    s: { buyOutLeads: number[]; stepLead: number; buyOutReversalDays: number },
    at: Date,
  ) {
    await this.db.query(
      `insert into agent_return_settings (agent_id, buy_out_leads, step_lead, buy_out_reversal_days, updated_at) values ($1, $2, $3, $4, $5)
       on conflict (agent_id) do update set buy_out_leads = $2, step_lead = $3, buy_out_reversal_days = $4, updated_at = $5`,
      [agentId, s.buyOutLeads, s.stepLead, s.buyOutReversalDays, at],
    );
  }
}
