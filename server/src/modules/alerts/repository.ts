// Alerts' SQL: rules, alerts (one open per rule and subject), deliveries; and the conditions the rules watch,
// read from the fleet's tables and the jobs (migrations/20261216120100_alerts.sql).
import type { Queryable } from '../../db/db.ts';

export type AlertKind =
  | 'cabinet_offline'
  | 'low_stock'
  | 'full'
  | 'dead_jobs'
  | 'low_charge'
  | 'slot_faults'
  | 'provider_errors'
  | 'failed_payouts';
export type AlertState = 'open' | 'acknowledged' | 'resolved';

export interface AlertRuleRow {
  id: string;
  agent_id: string;
  kind: AlertKind;
  threshold: number;
  emails: string[];
  phones: string[];
  webhook_url: string | null;
  webhook_secret: string | null;
  enabled: boolean;
  created_at: Date;
}

export interface AlertRow {
  id: string;
  rule_id: string;
  kind: AlertKind;
  agent_id: string;
  subject: string;
  detail: Record<string, unknown>;
  state: AlertState;
  opened_at: Date;
  acknowledged_at: Date | null;
  acknowledged_by: string | null;
  resolved_at: Date | null;
  resolved_by: string | null;
}

export interface DeliveryRow {
  id: string;
  alert_id: string;
  event: 'opened' | 'resolved';
  channel: 'email' | 'sms' | 'webhook';
  target: string;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  last_error: string | null;
  created_at: Date;
  delivered_at: Date | null;
}

/** A subject in the rule's condition now: what it is and who it belongs to. */
export interface Subject {
  subject: string;
  agent_id: string;
  detail: Record<string, unknown>;
}

const ids = <T extends { id: unknown }>(r: T) => ({ ...r, id: String(r.id) });
const AGENT = `coalesce(v.agent_id, 'powerly')`;

export class AlertsRepository {
  constructor(private readonly db: Queryable) {}

  async insertRule(r: Omit<AlertRuleRow, 'id' | 'enabled'>) {
    const { rows } = await this.db.query<AlertRuleRow>(
      `insert into alert_rules (agent_id, kind, threshold, emails, phones, webhook_url, webhook_secret, created_at)
       values ($1, $2, $3, $4, $5, $6, $7, $8) returning *`,
      [r.agent_id, r.kind, r.threshold, r.emails, r.phones, r.webhook_url, r.webhook_secret, r.created_at],
    );
    return ids(rows[0]!);
  }

  async rules(agents: string[] | null) {
    const { rows } = await this.db.query<AlertRuleRow>(
      `select * from alert_rules where enabled and ($1::text[] is null or agent_id = any($1::text[])) order by id`,
      [agents],
    );
    return rows.map(ids);
  }

  async rule(id: string) {
    const { rows } = await this.db.query<AlertRuleRow>('select * from alert_rules where id = $1', [id]);
    return rows[0] && ids(rows[0]);
  }

  // ---- conditions -----------------------------------------------------------------------------------------

  /** Cabinets (of `agent`; '*': all) not live now and not heard from since `before`. */
  async offlineCabinets(agent: string, liveSince: Date, before: Date): Promise<Subject[]> {
    const { rows } = await this.db.query<{ id: string; agent_id: string; last_seen_at: Date | null }>(
      `select c.id, ${AGENT} as agent_id, c.last_seen_at from cabinets c join venues v on v.id = c.venue_id
        where ($1 = '*' or ${AGENT} = $1) and not (c.online and c.last_seen_at >= $2)
          and coalesce(c.last_seen_at, '-infinity'::timestamptz) < $3`,
      [agent, liveSince, before],
    );
    return rows.map((r) => ({
      subject: r.id,
      agent_id: r.agent_id,
      detail: { lastSeenAt: r.last_seen_at ? new Date(r.last_seen_at).toISOString() : null },
    }));
  }

  /** Per cabinet (of `agent`; '*': all) with a venue: its slots and the power banks in them. */
  async stock(agent: string) {
    const { rows } = await this.db.query<{ id: string; agent_id: string; slots: number; banks: number }>(
      `select c.id, ${AGENT} as agent_id, c.slot_count as slots, count(p.id)::int as banks
         from cabinets c join venues v on v.id = c.venue_id left join powerbanks p on p.cabinet_id = c.id and p.state = 'in_cabinet'
        where $1 = '*' or ${AGENT} = $1 group by c.id, v.agent_id, c.slot_count`,
      [agent],
    );
    return rows.map((r) => ({ ...r, slots: Number(r.slots), banks: Number(r.banks) }));
  }

  /**
   * Per cabinet (of `agent`; '*': all) whose inventory reports power banks with a battery level: how many, the highest
   * level and the slots reporting a fault (the cabinet's last heartbeat).
   */
  async charge(agent: string) {
    const { rows } = await this.db.query<{
      id: string;
      agent_id: string;
      banks: number;
      highest: number | null;
      faulty: number[] | null;
    }>(
      `select c.id, ${AGENT} as agent_id,
          count(*) filter (where s->>'powerbankId' is not null and jsonb_typeof(s->'battery') = 'number')::int as banks,
          max((s->>'battery')::numeric) filter (where s->>'powerbankId' is not null and jsonb_typeof(s->'battery') = 'number')::int as highest,
          array_agg((s->>'slot')::int order by (s->>'slot')::int)
            filter (where jsonb_typeof(s->'faults') = 'array' and jsonb_array_length(s->'faults') > 0) as faulty
         from cabinets c join venues v on v.id = c.venue_id
         cross join lateral jsonb_array_elements(case when jsonb_typeof(c.inventory) = 'array' then c.inventory else '[]'::jsonb end) s
        where $1 = '*' or ${AGENT} = $1 group by c.id, v.agent_id`,
      [agent],
    );
    return rows.map((r) => ({ ...r, banks: Number(r.banks), faulty: r.faulty ?? [] }));
  }

  /** Per payment provider, the payments started since `since` and how many of them were declined. */
  async providerOutcomes(since: Date) {
    const { rows } = await this.db.query<{ provider: string; total: number; declined: number }>(
      `select provider, count(*)::int as total, count(*) filter (where status = 'declined')::int as declined
         from payments where created_at >= $1 group by provider`,
      [since],
    );
    return rows.map((r) => ({ ...r, total: Number(r.total), declined: Number(r.declined) }));
  }

  /** Per agent (or only `agent`), the withdrawals whose payout the provider or bank refused since `since` (not a person's rejection). */
  async failedPayouts(agent: string, since: Date) {
    const { rows } = await this.db.query<{ agent_id: string; failed: number }>(
      `select agent_id, count(*)::int as failed from withdrawals
        where status = 'rejected' and (settled_by is null or settled_by = provider) and updated_at >= $2 and ($1 = '*' or agent_id = $1)
        group by agent_id`,
      [agent, since],
    );
    return rows.map((r) => ({ ...r, failed: Number(r.failed) }));
  }

  async deadJobs() {
    const { rows } = await this.db.query<{ n: number }>(
      'select count(*)::int as n from jobs where dead_at is not null and done_at is null',
    );
    return Number(rows[0]?.n ?? 0);
  }

  // ---- alerts ---------------------------------------------------------------------------------------------

  async unresolved(ruleId: string) {
    const { rows } = await this.db.query<AlertRow>(`select * from alerts where rule_id = $1 and state <> 'resolved'`, [
      ruleId,
    ]);
    return rows.map(ids);
  }

  /** Opens an alert unless one is open for the rule and subject (then undefined: never a second one). */
  async open(ruleId: string, kind: AlertKind, s: Subject, at: Date) {
    const { rows } = await this.db.query<AlertRow>(
      `insert into alerts (rule_id, kind, agent_id, subject, detail, state, opened_at) values ($1, $2, $3, $4, $5, 'open', $6)
       on conflict (rule_id, subject) where state <> 'resolved' do nothing returning *`,
      [ruleId, kind, s.agent_id, s.subject, JSON.stringify(s.detail), at],
    );
    return rows[0] && ids(rows[0]);
  }

  async find(id: string) {
    const { rows } = await this.db.query<AlertRow>('select * from alerts where id = $1', [id]);
    return rows[0] && ids(rows[0]);
  }

  async acknowledge(id: string, by: string, at: Date) {
    const { rows } = await this.db.query<AlertRow>(
      `update alerts set state = 'acknowledged', acknowledged_at = $3, acknowledged_by = $2 where id = $1 and state = 'open' returning *`,
      [id, by, at],
    );
    return rows[0] && ids(rows[0]);
  }

  async resolve(id: string, by: string, at: Date) {
    const { rows } = await this.db.query<AlertRow>(
      `update alerts set state = 'resolved', resolved_at = $3, resolved_by = $2 where id = $1 and state <> 'resolved' returning *`,
      [id, by, at],
    );
    return rows[0] && ids(rows[0]);
  }

  async list(f: { agents: string[] | null; state: AlertState | null; limit: number }) {
    const { rows } = await this.db.query<AlertRow>(
      `select * from alerts where ($1::text[] is null or agent_id = any($1::text[])) and ($2::text is null or state = $2)
        order by opened_at desc, id desc limit $3`,
      [f.agents, f.state, f.limit],
    );
    return rows.map(ids);
  }

  // ---- deliveries -----------------------------------------------------------------------------------------

  async insertDelivery(d: Pick<DeliveryRow, 'alert_id' | 'event' | 'channel' | 'target'>, at: Date) {
    const { rows } = await this.db.query<{ id: string }>(
      `insert into alert_deliveries (alert_id, event, channel, target, status, created_at) values ($1, $2, $3, $4, 'pending', $5) returning id`,
      [d.alert_id, d.event, d.channel, d.target, at],
    );
    return String(rows[0]!.id);
  }

  async delivery(id: string) {
    const { rows } = await this.db.query<DeliveryRow>('select * from alert_deliveries where id = $1', [id]);
    return rows[0] && ids(rows[0]);
  }

  async deliveryAttempt(id: string, ok: boolean, error: string | null, at: Date) {
    await this.db.query(
      `update alert_deliveries set attempts = attempts + 1, status = $2::text, last_error = $3::text,
              delivered_at = case when $2::text = 'delivered' then $4::timestamptz else null end
        where id = $1`,
      [id, ok ? 'delivered' : 'failed', error, at],
    );
  }

  async deliveries(alertId: string) {
    const { rows } = await this.db.query<DeliveryRow>(
      'select * from alert_deliveries where alert_id = $1 order by id',
      [alertId],
    );
    return rows.map((r) => ({ ...ids(r), attempts: Number(r.attempts) }));
  }
}
