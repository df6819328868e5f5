// Partners' monthly statements (docs/operations.md "Statements"): per partner, month and currency, the moves into
// its account (each rental's share, its later changes as adjustment lines, the monthly fee) that no earlier
// statement reported. Issuing one posts the monthly fee on the ledger and claims the moves, in one unit of work;
// an issued statement never changes (the database refuses it), and a later correction is a line of the next one.
import type { Db } from '../../db/db.ts';
import type { Clock } from '../../lib/clock.ts';
import { conflict, notFound } from '../../lib/errors.ts';
import { DEFAULT_AGENT } from '../ledger/service.ts';
import { PLATFORM, type LedgerService } from '../ledger/service.ts';
import type { Actor, AuditService } from '../audit/service.ts';
import type { PartnerType, PartnersRepository, StatementRow } from './repository.ts';
import { PARTNER_ACCOUNT, partnerOwner, SHARE_CODES } from './service.ts';
import type { LineRow, StatementsRepository } from './statements-repository.ts';

export interface StatementKey {
  partnerType: PartnerType;
  partnerId: string;
  currency: string;
  /** YYYY-MM (UTC). */
  period: string;
}

/** Where a partner is, for the caller's scope: its agent, and its venue (a venue partner). */
export interface PartnerPlace {
  agentId: string;
  venueId: string | null;
}

export interface StatementsDeps {
  db: Db;
  clock: Clock;
  repo: StatementsRepository;
  partners: PartnersRepository;
  ledger: LedgerService;
  audit: AuditService;
}

/** The first instant of the month after `period` (YYYY-MM, UTC). */
export function periodEnd(period: string): Date {
  const [y, m] = period.split('-').map(Number) as [number, number];
  return new Date(Date.UTC(y, m, 1));
}
export const periodStart = (period: string) => {
  const [y, m] = period.split('-').map(Number) as [number, number];
  return new Date(Date.UTC(y, m - 1, 1));
};

export class StatementsService {
  constructor(private readonly d: StatementsDeps) {}

  /** The partner's agent and venue; undefined when there is no such partner. */
  async place(type: PartnerType, id: string): Promise<PartnerPlace | undefined> {
    const found = await this.d.partners.partnerAgent(type, id);
    if (!found) return undefined;
    return type === 'agent' ? { agentId: id, venueId: null } : { agentId: found.agentId ?? DEFAULT_AGENT, venueId: id };
  }

  /**
   * Issues the partner's statement of a month that has ended: the monthly fee of the rule in force at its end is
   * posted into the partner's account, and every move not reported yet (of this month or, late, of earlier ones)
   * becomes a line. 409 when it was issued already or the month has not ended.
   */
  async issue(k: StatementKey, actor: Actor): Promise<StatementRow> {
    const now = this.d.clock.now();
    const end = periodEnd(k.period);
    if (end > now) throw conflict('error.partners.periodOpen', { period: k.period });
    const place = await this.place(k.partnerType, k.partnerId);
    if (!place) throw notFound('error.fleet.notFound', { id: k.partnerId });
    return this.d.db.tx(async () => {
      await this.d.repo.lockPartner(`statement:${k.partnerType}:${k.partnerId}:${k.currency}`);
      if (await this.d.repo.findByKey(k.partnerType, k.partnerId, k.currency, k.period))
        throw conflict('error.partners.issued', { period: k.period });
      const rule = await this.d.partners.ruleAt(k.partnerType, k.partnerId, k.currency, new Date(end.getTime() - 1));
      const fee = rule?.monthly_fee ?? 0;
      if (fee > 0) {
        const revenue = await this.d.ledger.account(PLATFORM, 'revenue', k.currency);
        const account = await this.d.ledger.account(
          partnerOwner(k.partnerType, k.partnerId),
          PARTNER_ACCOUNT,
          k.currency,
          place.agentId,
        );
        const transferId = await this.d.ledger.transfer({
          debit: revenue,
          credit: account,
          amount: fee,
          code: SHARE_CODES.monthly,
          at: now,
        });
        await this.d.partners.insertMove({
          partner_type: k.partnerType,
          partner_id: k.partnerId,
          currency: k.currency,
          order_id: null,
          kind: 'monthly_fee',
          amount: fee,
          gross: 0,
          refunded: 0,
          provider_fee: 0,
          tax: 0,
          net: 0,
          percent_bps: 0,
          transfer_id: transferId,
          at: new Date(end.getTime() - 1),
        });
      }
      const moves = await this.d.repo.openMoves(k.partnerType, k.partnerId, k.currency, end);
      const statement = (await this.d.repo.insert({
        partner_type: k.partnerType,
        partner_id: k.partnerId,
        agent_id: place.agentId,
        currency: k.currency,
        period: k.period,
        total: moves.reduce((s, m) => s + m.amount, 0),
        issued_at: now,
      }))!;
      await this.d.repo.claim(
        moves.map((m) => m.id),
        statement.id,
      );
      await this.d.audit.record(actor, {
        action: 'statement.issue',
        entity: 'partner_statement',
        entityId: statement.id,
        agentId: place.agentId,
        after: { ...k, total: statement.total, lines: moves.length },
      });
      return statement;
    });
  }

  async get(id: string): Promise<{ statement: StatementRow; lines: LineRow[] } | undefined> {
    const statement = await this.d.repo.find(id);
    if (!statement) return undefined;
    return { statement, lines: await this.d.repo.lines(id) };
  }

  list(f: { partnerType?: PartnerType; partnerIds: string[] | null; agents: string[] | null }) {
    return this.d.repo.list({ ...f, limit: 200 });
  }
}
