// Alerts (docs/operations.md "Alerts"): a recurring job evaluates every enabled rule, opens one alert per rule and
// subject in its condition (never a second while it is unresolved: a unique index) and resolves those whose
// condition ended; each opening and resolution is delivered to the rule's e-mails (the mailer), phones (the SMS
// gateway) and webhook (HMAC-signed), each delivery a durable job retried with backoff and logged.
import { createHmac } from 'node:crypto';
import type { Db } from '../../db/db.ts';
import type { JobRunner } from '../../jobs/runner.ts';
import type { Clock } from '../../lib/clock.ts';
import { t } from '../../lib/i18n.ts';
import type { Liveness } from '../cabinets/liveness.ts';
import type { Mailer } from '../notify/mailer.ts';
import type { SmsGateway } from '../auth/adapters.ts';
import type { AlertRow, AlertRuleRow, AlertsRepository, Subject } from './repository.ts';

export const JOB_EVALUATE = 'alerts.evaluate';
export const JOB_DELIVER = 'alerts.deliver';
/** How often the rules are evaluated. */
export const EVALUATE_EVERY_MS = 60_000;
const WEBHOOK_TIMEOUT_MS = 10_000;
/** A provider's error rate is over the payments of the last hour, and only with this many of them. */
export const PROVIDER_WINDOW_MS = 3_600_000;
export const PROVIDER_MIN_PAYMENTS = 10;
/** Failed payouts are counted over the last day. */
export const PAYOUT_WINDOW_MS = 86_400_000;

export interface AlertsDeps {
  db: Db;
  clock: Clock;
  repo: AlertsRepository;
  jobs: JobRunner;
  liveness: Liveness;
  mailer: Mailer;
  sms: SmsGateway;
  fetch?: typeof fetch;
}

/** The webhook's signature header: `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>" with the rule's secret>`. */
export function webhookSignature(secret: string, unixSeconds: number, body: string) {
  return `t=${unixSeconds},v1=${createHmac('sha256', secret).update(`${unixSeconds}.${body}`).digest('hex')}`;
}

export class AlertsService {
  /** The alerts' repository (the back office's admin and the tests). */
  readonly repo: AlertsRepository;

  constructor(private readonly d: AlertsDeps) {
    this.repo = d.repo;
    d.jobs.register(JOB_EVALUATE, async (_p, job) => {
      await this.evaluate();
      await this.d.jobs.ensurePending(JOB_EVALUATE, new Date(this.d.clock.now().getTime() + EVALUATE_EVERY_MS), job.id);
    });
    d.jobs.register(JOB_DELIVER, (p) => this.deliver(String(p.deliveryId)));
  }

  /** Starts the recurring evaluation (once per installation: a pending one is kept). */
  schedule() {
    return this.d.jobs.ensurePending(JOB_EVALUATE, this.d.clock.now());
  }

  /** The subjects in the rule's condition now. */
  private async condition(rule: AlertRuleRow): Promise<Subject[]> {
    const now = this.d.clock.now().getTime();
    switch (rule.kind) {
      case 'cabinet_offline':
        return this.d.repo.offlineCabinets(
          rule.agent_id,
          this.d.liveness.since(),
          new Date(now - rule.threshold * 60_000),
        );
      case 'low_stock':
        return (await this.d.repo.stock(rule.agent_id))
          .filter((c) => c.banks < rule.threshold)
          .map((c) => ({ subject: c.id, agent_id: c.agent_id, detail: { powerbanks: c.banks } }));
      case 'full':
        return (await this.d.repo.stock(rule.agent_id))
          .filter((c) => c.banks >= c.slots)
          .map((c) => ({ subject: c.id, agent_id: c.agent_id, detail: { powerbanks: c.banks, slots: c.slots } }));
      case 'dead_jobs': {
        const dead = await this.d.repo.deadJobs();
        return rule.agent_id === '*' && dead >= Math.max(1, rule.threshold)
          ? [{ subject: 'jobs', agent_id: '*', detail: { dead } }]
          : [];
      }
      case 'low_charge':
        return (await this.d.repo.charge(rule.agent_id))
          .filter((c) => c.banks > 0 && (c.highest ?? 0) < rule.threshold)
          .map((c) => ({
            subject: c.id,
            agent_id: c.agent_id,
            detail: { powerbanks: c.banks, highestCharge: c.highest },
          }));
      case 'slot_faults':
        return (await this.d.repo.charge(rule.agent_id))
          .filter((c) => c.faulty.length >= Math.max(1, rule.threshold))
          .map((c) => ({ subject: c.id, agent_id: c.agent_id, detail: { slots: c.faulty } }));
      case 'provider_errors': {
        if (rule.agent_id !== '*') return [];
        const outcomes = await this.d.repo.providerOutcomes(new Date(now - PROVIDER_WINDOW_MS));
        return outcomes
          .filter((p) => p.total >= PROVIDER_MIN_PAYMENTS && p.declined * 100 >= rule.threshold * p.total)
          .map((p) => ({ subject: p.provider, agent_id: '*', detail: { payments: p.total, declined: p.declined } }));
      }
      case 'failed_payouts':
        return (await this.d.repo.failedPayouts(rule.agent_id, new Date(now - PAYOUT_WINDOW_MS)))
          .filter((a) => a.failed >= Math.max(1, rule.threshold))
          .map((a) => ({ subject: `payouts:${a.agent_id}`, agent_id: a.agent_id, detail: { failed: a.failed } }));
    }
  }

  /** Evaluates every enabled rule: opens and resolves alerts, and schedules their deliveries, rule by rule. */
  async evaluate() {
    for (const rule of await this.d.repo.rules(null)) {
      await this.d.db.tx(async () => {
        const now = this.d.clock.now();
        const subjects = await this.condition(rule);
        const open = await this.d.repo.unresolved(rule.id);
        const inCondition = new Set(subjects.map((s) => s.subject));
        for (const s of subjects) {
          if (open.some((a) => a.subject === s.subject)) continue;
          const alert = await this.d.repo.open(rule.id, rule.kind, s, now);
          if (alert) await this.notify(rule, alert, 'opened');
        }
        for (const a of open) {
          if (inCondition.has(a.subject)) continue;
          const resolved = await this.d.repo.resolve(a.id, 'system', now);
          if (resolved) await this.notify(rule, resolved, 'resolved');
        }
      });
    }
  }

  /** One delivery per channel target, each a durable job (in the caller's unit of work). */
  async notify(rule: AlertRuleRow, alert: AlertRow, event: 'opened' | 'resolved') {
    const now = this.d.clock.now();
    const targets = [
      ...rule.emails.map((target) => ({ channel: 'email' as const, target })),
      ...rule.phones.map((target) => ({ channel: 'sms' as const, target })),
      ...(rule.webhook_url ? [{ channel: 'webhook' as const, target: rule.webhook_url }] : []),
    ];
    for (const x of targets) {
      const id = await this.d.repo.insertDelivery({ alert_id: alert.id, event, ...x }, now);
      await this.d.jobs.enqueue(JOB_DELIVER, { deliveryId: id }, now);
    }
  }

  /** Sends one delivery; a failure is logged on it and thrown, so the job is retried with backoff. */
  async deliver(deliveryId: string) {
    const d = await this.d.repo.delivery(deliveryId);
    if (!d || d.status === 'delivered') return;
    const alert = (await this.d.repo.find(d.alert_id))!;
    const rule = (await this.d.repo.rule(alert.rule_id))!;
    try {
      const text = t('en-US', `alerts.${d.event}`, {
        kind: t('en-US', `alerts.kind.${alert.kind}`),
        subject: alert.subject,
      });
      if (d.channel === 'email')
        await this.d.mailer.send({ to: d.target, subject: text, text: `${text}\n\n${JSON.stringify(alert.detail)}` });
      else if (d.channel === 'sms') await this.d.sms.send(d.target, text);
      else await this.webhook(d.target, rule.webhook_secret ?? '', this.payload(alert, d.event));
      await this.d.repo.deliveryAttempt(d.id, true, null, this.d.clock.now());
    } catch (err) {
      await this.d.repo.deliveryAttempt(
        d.id,
        false,
        String(err instanceof Error ? err.message : err).slice(0, 500),
        this.d.clock.now(),
      );
      throw err;
    }
  }

  private payload(a: AlertRow, event: 'opened' | 'resolved') {
    return {
      id: a.id,
      event,
      kind: a.kind,
      agentId: a.agent_id,
      subject: a.subject,
      state: a.state,
      detail: a.detail,
      openedAt: new Date(a.opened_at).toISOString(),
      resolvedAt: a.resolved_at ? new Date(a.resolved_at).toISOString() : null,
    };
  }

  private async webhook(url: string, secret: string, payload: object) {
    const body = JSON.stringify(payload);
    const signature = webhookSignature(secret, Math.floor(this.d.clock.now().getTime() / 1000), body);
    const res = await (this.d.fetch ?? fetch)(url, {
      method: 'POST',
      body,
      headers: { 'content-type': 'application/json', 'x-powerly-signature': signature },
      signal: AbortSignal.timeout(WEBHOOK_TIMEOUT_MS),
    });
    if (!res.ok) throw new Error(`webhook answered ${res.status}`);
  }
}
