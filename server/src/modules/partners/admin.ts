// The back office's partner operations (ops API, modules/partners/ops-routes.ts): share rules, tax and provider
// fee rates, statements and earnings, each scoped (a partner outside the caller's scope is not found) and every
// write audited with its reason in its own unit of work.
import { inScope, type Scope } from '#core/opsAccess.ts';
import type { Db } from '../../db/db.ts';
import type { Clock } from '../../lib/clock.ts';
import { conflict, notFound } from '../../lib/errors.ts';
import type { Actor, AuditService } from '../audit/service.ts';
import { DEFAULT_AGENT } from '../ledger/service.ts';
import type { PartnerType, PartnersRepository, RuleRow, StatementRow } from './repository.ts';
import { PARTNER_ACCOUNT } from './service.ts';
import type { StatementKey, StatementsService } from './statements.ts';

export const toRule = (r: RuleRow) => ({
  id: r.id,
  partnerType: r.partner_type,
  partnerId: r.partner_id,
  currency: r.currency.trim(),
  percentBps: r.percent_bps,
  monthlyFee: r.monthly_fee,
  effectiveFrom: new Date(r.effective_from).toISOString(),
});
export const toStatement = (s: StatementRow) => ({
  id: s.id,
  partnerType: s.partner_type,
  partnerId: s.partner_id,
  currency: s.currency.trim(),
  period: s.period,
  total: s.total,
  issuedAt: new Date(s.issued_at).toISOString(),
});

/** Whether the partner is inside the scope: an agent for its agent's staff, a venue also for its venue partners. */
export const partnerInScope = (scope: Scope, type: PartnerType, agentId: string, partnerId: string) =>
  inScope(scope, agentId, type === 'venue' ? partnerId : null);

export class PartnersAdmin {
  constructor(
    private readonly d: {
      db: Db;
      clock: Clock;
      repo: PartnersRepository;
      statements: StatementsService;
      audit: AuditService;
    },
  ) {}

  /** The partner's agent when it exists and is in scope; else not found. */
  private async inScopeOrNotFound(scope: Scope, type: PartnerType, id: string) {
    const place = await this.d.statements.place(type, id);
    if (!place || !partnerInScope(scope, type, place.agentId, id)) throw notFound('error.fleet.notFound', { id });
    return place;
  }

  async rules(scope: Scope, q: { partnerType?: PartnerType; partnerId?: string }) {
    const rows = await this.d.repo.rules({
      partnerType: q.partnerType,
      partnerIds: q.partnerId ? [q.partnerId] : null,
    });
    const out = [];
    for (const r of rows) {
      const place = await this.d.statements.place(r.partner_type, r.partner_id);
      if (place && partnerInScope(scope, r.partner_type, place.agentId, r.partner_id)) out.push(toRule(r));
    }
    return out;
  }

  /** A new rule from `effectiveFrom` on (now by default; never in the past: settled rentals keep their rates). */
  async addRule(
    scope: Scope,
    actor: Actor,
    input: {
      partnerType: PartnerType;
      partnerId: string;
      currency: string;
      percentBps: number;
      monthlyFee: number;
      effectiveFrom?: string;
    },
  ) {
    const place = await this.inScopeOrNotFound(scope, input.partnerType, input.partnerId);
    const now = this.d.clock.now();
    const from = input.effectiveFrom ? new Date(input.effectiveFrom) : now;
    if (from.getTime() < now.getTime() - 60_000) throw conflict('error.partners.pastRule');
    return this.d.db.tx(async () => {
      const row = await this.d.repo.insertRule({
        partner_type: input.partnerType,
        partner_id: input.partnerId,
        currency: input.currency,
        percent_bps: input.percentBps,
        monthly_fee: input.monthlyFee,
        effective_from: from,
        created_at: now,
      });
      if (!row) throw conflict('error.partners.ruleExists');
      await this.d.audit.record(actor, {
        action: 'share_rule.create',
        entity: 'revenue_share_rule',
        entityId: row.id,
        agentId: place.agentId,
        after: toRule(row),
      });
      return toRule(row);
    });
  }

  /** Platform-wide settings: only a platform-wide membership sees them (else not found). */
  private platformOnly(scope: Scope) {
    if (scope.kind !== 'all') throw notFound('error.notFound');
  }

  async rates(scope: Scope) {
    this.platformOnly(scope);
    return this.d.repo.rates();
  }

  setTaxRate(scope: Scope, actor: Actor, country: string, rateBps: number) {
    return this.setRate(
      scope,
      actor,
      { entity: 'country_tax_rate', action: 'tax_rate.set', id: country },
      rateBps,
      (at) => this.d.repo.setTaxRate(country, rateBps, at),
    );
  }

  setProviderFee(scope: Scope, actor: Actor, provider: string, rateBps: number) {
    return this.setRate(
      scope,
      actor,
      { entity: 'provider_fee_rate', action: 'provider_fee.set', id: provider },
      rateBps,
      (at) => this.d.repo.setProviderFee(provider, rateBps, at),
    );
  }

  /** Sets a platform-wide rate, audited with the one it replaced, in one unit of work. */
  private async setRate(
    scope: Scope,
    actor: Actor,
    what: { entity: string; action: string; id: string },
    rateBps: number,
    save: (at: Date) => Promise<number | null>,
  ) {
    this.platformOnly(scope);
    return this.d.db.tx(async () => {
      const before = await save(this.d.clock.now());
      await this.d.audit.record(actor, {
        action: what.action,
        entity: what.entity,
        entityId: what.id,
        before: before == null ? undefined : { rateBps: before },
        after: { rateBps },
      });
      return this.d.repo.rates();
    });
  }

  async issue(scope: Scope, actor: Actor, k: StatementKey) {
    await this.inScopeOrNotFound(scope, k.partnerType, k.partnerId);
    return toStatement(await this.d.statements.issue(k, actor));
  }

  async statements(scope: Scope, q: { partnerType?: PartnerType; partnerId?: string }) {
    const rows = await this.d.statements.list({
      partnerType: q.partnerType,
      partnerIds: q.partnerId ? [q.partnerId] : null,
      agents: scope.kind === 'all' ? null : scope.kind === 'agents' ? scope.agents : [],
    });
    return rows.filter((s) => partnerInScope(scope, s.partner_type, s.agent_id ?? '', s.partner_id)).map(toStatement);
  }

  /** A statement with its lines; not found outside the scope. */
  async statement(scope: Scope, id: string) {
    const found = await this.d.statements.get(id);
    if (
      !found ||
      !partnerInScope(scope, found.statement.partner_type, found.statement.agent_id ?? '', found.statement.partner_id)
    ) {
      throw notFound('error.notFound');
    }
    return found;
  }

  /** Per partner account in scope: its balance, how many rentals earned it something, and what no statement reported yet. */
  async earnings(scope: Scope) {
    const rows = await this.d.repo.earnings(
      PARTNER_ACCOUNT,
      scope.kind === 'all' ? null : scope.kind === 'agents' ? scope.agents : [],
    );
    return rows
      .map((r) => {
        const [type, ...rest] = r.owner_id.split(':');
        return {
          partnerType: type as PartnerType,
          partnerId: rest.join(':'),
          agentId: r.agent_id,
          currency: r.currency.trim(),
          balance: r.balance,
          rentals: r.rentals,
          unreported: r.unreported,
        };
      })
      .filter((e) => partnerInScope(scope, e.partnerType, e.agentId, e.partnerId))
      .map(({ agentId: _a, ...e }) => e);
  }

  /** The rentals of the venues in scope, newest first: what each took and left for the venue and agent. */
  async rentals(scope: Scope) {
    const rows = await this.d.repo.rentals(
      scope.kind === 'all' ? null : scope.kind === 'agents' ? scope.agents : [],
      500,
    );
    return rows
      .filter((r) => inScope(scope, r.agent_id ?? DEFAULT_AGENT, r.venue_id))
      .slice(0, 200)
      .map((r) => ({
        orderId: r.order_id,
        venueId: r.venue_id,
        currency: r.currency.trim(),
        settledAt: new Date(r.settled_at).toISOString(),
        gross: r.gross,
        refunded: r.refunded,
        venueShare: r.venue_share,
        agentShare: r.agent_share,
      }));
  }
}
