// Statements' SQL: the moves a statement claims, the statement row, and its lines (migrations/20261216120000_partners.sql).
import type { Queryable } from '../../db/db.ts';
import type { MoveRow, PartnerType, StatementRow } from './repository.ts';

export type LineKind = 'rental' | 'adjustment' | 'monthly_fee';
export type LineRow = MoveRow & { line_kind: LineKind; settled_at: Date | null };

const n = (v: unknown) => Number(v);

function statementRow(r: StatementRow): StatementRow {
  return { ...r, id: String(r.id), total: n(r.total) };
}

export class StatementsRepository {
  constructor(private readonly db: Queryable) {}

  /** Serialises the issuing of one partner's statements in a currency (the caller's unit of work). */
  async lockPartner(key: string) {
    await this.db.query('select pg_advisory_xact_lock(hashtext($1))', [key]);
  }

  /** The partner's moves not on a statement yet, made before `before`, locked for the caller's unit of work. */
  async openMoves(type: PartnerType, id: string, currency: string, before: Date) {
    const { rows } = await this.db.query<{ id: string; amount: string }>(
      `select id, amount from partner_share_moves where partner_type = $1 and partner_id = $2 and currency = $3 and at < $4
          and statement_id is null order by id for update`,
      [type, id, currency, before],
    );
    return rows.map((r) => ({ id: String(r.id), amount: n(r.amount) }));
  }

  async insert(s: Omit<StatementRow, 'id'>) {
    const { rows } = await this.db.query<StatementRow>(
      `insert into partner_statements (partner_type, partner_id, agent_id, currency, period, total, issued_at)
       values ($1, $2, $3, $4, $5, $6, $7) on conflict (partner_type, partner_id, currency, period) do nothing returning *`,
      [s.partner_type, s.partner_id, s.agent_id, s.currency, s.period, s.total, s.issued_at],
    );
    return rows[0] && statementRow(rows[0]);
  }

  async claim(moveIds: string[], statementId: string) {
    if (!moveIds.length) return;
    await this.db.query(
      'update partner_share_moves set statement_id = $2 where id = any($1::bigint[]) and statement_id is null',
      [moveIds, statementId],
    );
  }

  async find(id: string) {
    const { rows } = await this.db.query<StatementRow>('select * from partner_statements where id = $1', [id]);
    return rows[0] && statementRow(rows[0]);
  }

  async findByKey(type: PartnerType, partnerId: string, currency: string, period: string) {
    const { rows } = await this.db.query<StatementRow>(
      'select * from partner_statements where partner_type = $1 and partner_id = $2 and currency = $3 and period = $4',
      [type, partnerId, currency, period],
    );
    return rows[0] && statementRow(rows[0]);
  }

  /**
   * The statement's lines in order: each move with its rental's first settlement; a move of a rental that moved
   * before (a refund of it, a late charge) is an adjustment.
   */
  async lines(statementId: string): Promise<LineRow[]> {
    const { rows } = await this.db.query<LineRow>(
      `select m.*, s.settled_at,
              case when m.kind = 'monthly_fee' then 'monthly_fee'
                   when exists (select 1 from partner_share_moves e where e.order_id = m.order_id and e.partner_type = m.partner_type
                                   and e.partner_id = m.partner_id and e.id < m.id) then 'adjustment'
                   else 'rental' end as line_kind
         from partner_share_moves m left join rental_shares s on s.order_id = m.order_id
        where m.statement_id = $1 order by m.kind desc, m.at, m.id`,
      [statementId],
    );
    return rows.map((r) => ({
      ...r,
      id: String(r.id),
      statement_id: String(r.statement_id),
      amount: n(r.amount),
      gross: n(r.gross),
      refunded: n(r.refunded),
      provider_fee: n(r.provider_fee),
      tax: n(r.tax),
      net: n(r.net),
      percent_bps: n(r.percent_bps),
    }));
  }

  /** Statements of these partners (null: any), newest period first. */
  async list(f: { partnerType?: PartnerType; partnerIds: string[] | null; agents: string[] | null; limit: number }) {
    const { rows } = await this.db.query<StatementRow>(
      `select * from partner_statements where ($1::text is null or partner_type = $1) and ($2::text[] is null or partner_id = any($2::text[]))
          and ($3::text[] is null or agent_id = any($3::text[]))
        order by period desc, partner_type, partner_id, currency limit $4`,
      [f.partnerType ?? null, f.partnerIds, f.agents, f.limit],
    );
    return rows.map(statementRow);
  }
}
