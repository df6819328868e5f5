// Partners' SQL: the revenue share rules, tax and provider fee rates, what each settled rental moved, the moves
// into partners' accounts and the statements (migrations/20261216120000_partners.sql).
import type { Queryable } from '../../db/db.ts';

export type PartnerType = 'agent' | 'venue';

export interface RuleRow {
  id: string;
  partner_type: PartnerType;
  partner_id: string;
  currency: string;
  percent_bps: number;
  monthly_fee: number;
  effective_from: Date;
  created_at: Date;
}

export interface RentalShareRow {
  order_id: string;
  currency: string;
  venue_id: string;
  agent_id: string | null;
  provider: string | null;
  tax_bps: number;
  fee_bps: number;
  venue_bps: number;
  agent_bps: number;
  gross: number;
  refunded: number;
  tax: number;
  provider_fee: number;
  venue_share: number;
  agent_share: number;
  settled_at: Date;
  updated_at: Date;
}

export interface MoveRow {
  id: string;
  partner_type: PartnerType;
  partner_id: string;
  currency: string;
  order_id: string | null;
  kind: 'share' | 'monthly_fee';
  amount: number;
  gross: number;
  refunded: number;
  provider_fee: number;
  tax: number;
  net: number;
  percent_bps: number;
  transfer_id: string;
  at: Date;
  statement_id: string | null;
  /** The rental's first settlement (share moves). */
  settled_at?: Date | null;
}

export interface StatementRow {
  id: string;
  partner_type: PartnerType;
  partner_id: string;
  agent_id: string | null;
  currency: string;
  period: string;
  total: number;
  issued_at: Date;
}

const INT_COLUMNS = [
  'percent_bps',
  'monthly_fee',
  'tax_bps',
  'fee_bps',
  'venue_bps',
  'agent_bps',
  'gross',
  'refunded',
  'tax',
  'provider_fee',
  'venue_share',
  'agent_share',
  'amount',
  'net',
  'total',
] as const;

/** bigint columns come back as strings from node-postgres: numbers (minor units fit in 2^53). */
function numeric<T extends object>(r: T): T {
  const o = { ...r } as Record<string, unknown>;
  for (const c of INT_COLUMNS) if (o[c] != null) o[c] = Number(o[c]);
  if (o.id != null) o.id = String(o.id);
  if (o.statement_id != null) o.statement_id = String(o.statement_id);
  return o as T;
}

export class PartnersRepository {
  constructor(private readonly db: Queryable) {}

  // ---- rules and rates ------------------------------------------------------------------------------------

  async insertRule(r: Omit<RuleRow, 'id'>) {
    const { rows } = await this.db.query<RuleRow>(
      `insert into revenue_share_rules (partner_type, partner_id, currency, percent_bps, monthly_fee, effective_from, created_at)
       values ($1, $2, $3, $4, $5, $6, $7)
       on conflict (partner_type, partner_id, currency, effective_from) do nothing returning *`,
      [r.partner_type, r.partner_id, r.currency, r.percent_bps, r.monthly_fee, r.effective_from, r.created_at],
    );
    return rows[0] && numeric(rows[0]);
  }

  /** Rules of these partners, newest effective first. */
  async rules(f: { partnerType?: PartnerType; partnerIds?: string[] | null }) {
    const { rows } = await this.db.query<RuleRow>(
      `select * from revenue_share_rules where ($1::text is null or partner_type = $1)
          and ($2::text[] is null or partner_id = any($2::text[]))
        order by partner_type, partner_id, currency, effective_from desc limit 500`,
      [f.partnerType ?? null, f.partnerIds ?? null],
    );
    return rows.map(numeric);
  }

  /** The partner's rule in `currency` effective at `at`. */
  async ruleAt(type: PartnerType, id: string, currency: string, at: Date) {
    const { rows } = await this.db.query<RuleRow>(
      `select * from revenue_share_rules where partner_type = $1 and partner_id = $2 and currency = $3 and effective_from <= $4
        order by effective_from desc limit 1`,
      [type, id, currency, at],
    );
    return rows[0] && numeric(rows[0]);
  }

  async setTaxRate(country: string, rateBps: number, at: Date) {
    const { rows } = await this.db.query<{ rate_bps: number }>(
      'select rate_bps from country_tax_rates where country = $1 for update',
      [country],
    );
    await this.db.query(
      `insert into country_tax_rates (country, rate_bps, updated_at) values ($1, $2, $3)
       on conflict (country) do update set rate_bps = excluded.rate_bps, updated_at = excluded.updated_at`,
      [country, rateBps, at],
    );
    return rows[0] ? Number(rows[0].rate_bps) : null;
  }

  async setProviderFee(provider: string, rateBps: number, at: Date) {
    const { rows } = await this.db.query<{ rate_bps: number }>(
      'select rate_bps from provider_fee_rates where provider = $1 for update',
      [provider],
    );
    await this.db.query(
      `insert into provider_fee_rates (provider, rate_bps, updated_at) values ($1, $2, $3)
       on conflict (provider) do update set rate_bps = excluded.rate_bps, updated_at = excluded.updated_at`,
      [provider, rateBps, at],
    );
    return rows[0] ? Number(rows[0].rate_bps) : null;
  }

  async rates() {
    const tax = await this.db.query<{ country: string; rate_bps: number }>(
      'select country, rate_bps from country_tax_rates order by country',
    );
    const fees = await this.db.query<{ provider: string; rate_bps: number }>(
      'select provider, rate_bps from provider_fee_rates order by provider',
    );
    return {
      tax: tax.rows.map((r) => ({ country: r.country, rateBps: Number(r.rate_bps) })),
      fees: fees.rows.map((r) => ({ provider: r.provider, rateBps: Number(r.rate_bps) })),
    };
  }

  // ---- a rental's share -------------------------------------------------------------------------------------

  /** Locks the order's row for the caller's unit of work (two changes of one rental are serialised). */
  async lockOrder(orderId: string) {
    await this.db.query('select 1 from orders where id = $1 for update', [orderId]);
  }

  /** The partner's agent (a venue's, or the agent itself) when the partner exists. */
  async partnerAgent(type: PartnerType, id: string): Promise<{ agentId: string | null } | undefined> {
    const { rows } =
      type === 'agent'
        ? await this.db.query<{ agent_id: string }>('select id as agent_id from agents where id = $1', [id])
        : await this.db.query<{ agent_id: string | null }>('select agent_id from venues where id = $1', [id]);
    return rows[0] && { agentId: rows[0].agent_id };
  }

  /** Per partner account (of these agents; null: all): its balance, its rentals and what no statement reported. */
  async earnings(account: string, agents: string[] | null) {
    const { rows } = await this.db.query<{
      owner_id: string;
      agent_id: string;
      currency: string;
      balance: string;
      rentals: number;
      unreported: string;
    }>(
      `select a.owner_id, a.agent_id, a.currency, (a.credits_posted - a.debits_posted)::bigint as balance,
              (select count(distinct m.order_id)::int from partner_share_moves m
                where m.partner_type || ':' || m.partner_id = a.owner_id and m.currency = a.currency and m.order_id is not null) as rentals,
              (select coalesce(sum(m.amount), 0)::bigint from partner_share_moves m
                where m.partner_type || ':' || m.partner_id = a.owner_id and m.currency = a.currency and m.statement_id is null) as unreported
         from ledger_accounts a where a.owner_type = 'partner' and a.kind = $1 and ($2::text[] is null or a.agent_id = any($2::text[]))
        order by a.owner_id, a.currency`,
      [account, agents],
    );
    return rows.map((r) => ({
      ...r,
      balance: Number(r.balance),
      rentals: Number(r.rentals),
      unreported: Number(r.unreported),
    }));
  }

  /** The order as the share needs it: venue, agent, country, currency, the provider of its payment. */
  async orderContext(orderId: string) {
    const { rows } = await this.db.query<{
      id: string;
      venue_id: string;
      agent_id: string | null;
      country: string | null;
      currency: string;
      provider: string | null;
      settled: boolean;
    }>(
      `select o.id, o.venue_id, v.agent_id, a.country, o.currency, p.provider, o.settled
         from orders o join venues v on v.id = o.venue_id left join agents a on a.id = v.agent_id
         left join payments p on p.id = o.payment_id
        where o.id = $1`,
      [orderId],
    );
    return rows[0];
  }

  async taxRate(country: string | null) {
    if (!country) return 0;
    const { rows } = await this.db.query<{ rate_bps: number }>(
      'select rate_bps from country_tax_rates where country = $1',
      [country],
    );
    return rows[0] ? Number(rows[0].rate_bps) : 0;
  }

  async providerFeeRate(provider: string | null) {
    if (!provider) return 0;
    const { rows } = await this.db.query<{ rate_bps: number }>(
      'select rate_bps from provider_fee_rates where provider = $1',
      [provider],
    );
    return rows[0] ? Number(rows[0].rate_bps) : 0;
  }

  /**
   * What the ledger holds of the order's rent: the rent credited to platform revenue (gross) and what went back to
   * the rider from it (refunded), in the order's currency.
   */
  async rentOnLedger(
    orderId: string,
    revenueAccountId: number,
    rentCodes: readonly string[],
    refundCodes: readonly string[],
  ) {
    const { rows } = await this.db.query<{ gross: string; refunded: string }>(
      `select coalesce(sum(amount) filter (where credit_account_id = $2 and code = any($3::text[])), 0)::bigint as gross,
              coalesce(sum(amount) filter (where debit_account_id = $2 and code = any($4::text[])), 0)::bigint as refunded
         from ledger_transfers where order_id = $1 and flag = 'posted'`,
      [orderId, revenueAccountId, rentCodes, refundCodes],
    );
    return { gross: Number(rows[0]?.gross ?? 0), refunded: Number(rows[0]?.refunded ?? 0) };
  }

  async rentalShare(orderId: string, lock = false) {
    const { rows } = await this.db.query<RentalShareRow>(
      `select * from rental_shares where order_id = $1${lock ? ' for update' : ''}`,
      [orderId],
    );
    return rows[0] && numeric(rows[0]);
  }

  async saveRentalShare(r: RentalShareRow) {
    await this.db.query(
      `insert into rental_shares (order_id, currency, venue_id, agent_id, provider, tax_bps, fee_bps, venue_bps, agent_bps, gross, refunded,
         tax, provider_fee, venue_share, agent_share, settled_at, updated_at)
       values ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14,$15,$16,$17)
       on conflict (order_id) do update set gross = excluded.gross, refunded = excluded.refunded, tax = excluded.tax,
         provider_fee = excluded.provider_fee, venue_share = excluded.venue_share, agent_share = excluded.agent_share,
         updated_at = excluded.updated_at`,
      [
        r.order_id,
        r.currency,
        r.venue_id,
        r.agent_id,
        r.provider,
        r.tax_bps,
        r.fee_bps,
        r.venue_bps,
        r.agent_bps,
        r.gross,
        r.refunded,
        r.tax,
        r.provider_fee,
        r.venue_share,
        r.agent_share,
        r.settled_at,
        r.updated_at,
      ],
    );
  }

  async insertMove(m: Omit<MoveRow, 'id' | 'statement_id' | 'settled_at'>) {
    await this.db.query(
      `insert into partner_share_moves (partner_type, partner_id, currency, order_id, kind, amount, gross, refunded, provider_fee, tax, net,
         percent_bps, transfer_id, at) values ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14)`,
      [
        m.partner_type,
        m.partner_id,
        m.currency,
        m.order_id,
        m.kind,
        m.amount,
        m.gross,
        m.refunded,
        m.provider_fee,
        m.tax,
        m.net,
        m.percent_bps,
        m.transfer_id,
        m.at,
      ],
    );
  }

  /** The latest settled rentals (of these agents; null: all) as their shares saw them: no rider in them. */
  async rentals(agents: string[] | null, limit: number) {
    const { rows } = await this.db.query<RentalShareRow>(
      `select * from rental_shares where ($1::text[] is null or coalesce(agent_id, 'powerly') = any($1::text[]))
        order by settled_at desc, order_id limit $2`,
      [agents, limit],
    );
    return rows.map(numeric);
  }
}
