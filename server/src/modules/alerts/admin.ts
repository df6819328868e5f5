// The back office's alerts (ops API, modules/alerts/ops-routes.ts): rules, the alerts list, acknowledging and
// resolving, each scoped to the caller's agents (outside: 404; '*' rules and platform alerts: platform only) and
// every write audited with its reason.
import { inScope, type Scope } from '#core/opsAccess.ts';
import type { Db } from '../../db/db.ts';
import type { Clock } from '../../lib/clock.ts';
import { badRequest, conflict, notFound } from '../../lib/errors.ts';
import type { Actor, AuditService } from '../audit/service.ts';
import type { AlertKind, AlertRow, AlertRuleRow, AlertsRepository, AlertState } from './repository.ts';
import type { AlertsService } from './service.ts';

const iso = (d: Date | null) => (d ? new Date(d).toISOString() : undefined);
export const toAlertRule = (r: AlertRuleRow) => ({
  id: r.id,
  agentId: r.agent_id,
  kind: r.kind,
  threshold: Number(r.threshold),
  emails: r.emails,
  phones: r.phones,
  webhookUrl: r.webhook_url ?? undefined,
});
export const toAlert = (a: AlertRow) => ({
  id: a.id,
  ruleId: String(a.rule_id),
  kind: a.kind,
  agentId: a.agent_id,
  subject: a.subject,
  detail: a.detail,
  state: a.state,
  openedAt: iso(a.opened_at)!,
  acknowledgedAt: iso(a.acknowledged_at),
  resolvedAt: iso(a.resolved_at),
});
const agentsOf = (scope: Scope) => (scope.kind === 'all' ? null : scope.kind === 'agents' ? scope.agents : []);
const sees = (scope: Scope, agentId: string) => (agentId === '*' ? scope.kind === 'all' : inScope(scope, agentId));

export interface RuleInput {
  agentId: string;
  kind: AlertKind;
  threshold: number;
  emails: string[];
  phones: string[];
  webhookUrl?: string;
  webhookSecret?: string;
}

export class AlertsAdmin {
  constructor(
    private readonly d: { db: Db; clock: Clock; repo: AlertsRepository; alerts: AlertsService; audit: AuditService },
  ) {}

  async rules(scope: Scope) {
    return (await this.d.repo.rules(null)).filter((r) => sees(scope, r.agent_id)).map(toAlertRule);
  }

  async addRule(scope: Scope, actor: Actor, input: RuleInput) {
    if (!sees(scope, input.agentId)) throw notFound('error.fleet.notFound', { id: input.agentId });
    if (Boolean(input.webhookUrl) !== Boolean(input.webhookSecret)) throw badRequest('error.alerts.webhookSecret');
    if ((input.kind === 'dead_jobs' || input.kind === 'provider_errors') && input.agentId !== '*')
      throw badRequest('error.alerts.platformOnly');
    return this.d.db.tx(async () => {
      const row = await this.d.repo.insertRule({
        agent_id: input.agentId,
        kind: input.kind,
        threshold: input.threshold,
        emails: input.emails,
        phones: input.phones,
        webhook_url: input.webhookUrl ?? null,
        webhook_secret: input.webhookSecret ?? null,
        created_at: this.d.clock.now(),
      });
      await this.d.audit.record(actor, {
        action: 'alert_rule.create',
        entity: 'alert_rule',
        entityId: row.id,
        agentId: input.agentId === '*' ? null : input.agentId,
        after: toAlertRule(row),
      });
      return toAlertRule(row);
    });
  }

  async list(scope: Scope, state: AlertState | undefined) {
    const rows = await this.d.repo.list({ agents: agentsOf(scope), state: state ?? null, limit: 200 });
    return rows.filter((a) => sees(scope, a.agent_id)).map(toAlert);
  }

  private async inScope(scope: Scope, id: string) {
    const a = await this.d.repo.find(id);
    if (!a || !sees(scope, a.agent_id)) throw notFound('error.notFound');
    return a;
  }

  /** Someone is on it: the alert stays until its condition ends (or it is resolved by hand). */
  async acknowledge(scope: Scope, actor: Actor, id: string) {
    const before = await this.inScope(scope, id);
    return this.d.db.tx(async () => {
      const after = await this.d.repo.acknowledge(id, actor.email ?? actor.staffId ?? 'staff', this.d.clock.now());
      if (!after) throw conflict('error.alerts.notOpen');
      await this.d.audit.record(actor, {
        action: 'alert.acknowledge',
        entity: 'alert',
        entityId: id,
        agentId: before.agent_id === '*' ? null : before.agent_id,
        before: toAlert(before),
        after: toAlert(after),
      });
      return toAlert(after);
    });
  }

  /** Resolved by hand: a condition still true raises a new alert at the next evaluation. */
  async resolve(scope: Scope, actor: Actor, id: string) {
    const before = await this.inScope(scope, id);
    return this.d.db.tx(async () => {
      const after = await this.d.repo.resolve(id, actor.email ?? actor.staffId ?? 'staff', this.d.clock.now());
      if (!after) throw conflict('error.alerts.notOpen');
      const rule = await this.d.repo.rule(after.rule_id);
      if (rule) await this.d.alerts.notify(rule, after, 'resolved');
      await this.d.audit.record(actor, {
        action: 'alert.resolve',
        entity: 'alert',
        entityId: id,
        agentId: before.agent_id === '*' ? null : before.agent_id,
        before: toAlert(before),
        after: toAlert(after),
      });
      return toAlert(after);
    });
  }

  async deliveries(scope: Scope, id: string) {
    await this.inScope(scope, id);
    return (await this.d.repo.deliveries(id)).map((x) => ({
      id: x.id,
      event: x.event,
      channel: x.channel,
      target: x.target,
      status: x.status,
      attempts: x.attempts,
      lastError: x.last_error ?? undefined,
      deliveredAt: iso(x.delivered_at),
    }));
  }
}
