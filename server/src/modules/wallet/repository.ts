// Wallet SQL: the wallet module owns withdrawals, saved_cards and card_setups. Balances and movements are the
// ledger's (modules/ledger), payments and provider events the payments module's.
import type { Queryable } from '../../db/db.ts';

export interface WithdrawalRow {
  id: string;
  user_id: number;
  agent_id: string;
  currency: string;
  amount: number;
  refund_type: number;
  channel_id: string | null;
  account_data: Record<string, string> | null;
  remark: string | null;
  status: 'pending' | 'awaiting_payout' | 'paid' | 'rejected' | 'manual_review';
  hold_transfer_id: string;
  provider: string | null;
  provider_ref: string | null;
  created_at: Date;
  /** A bank withdrawal (bank-payouts.ts): its money is in payouts in transit, not held. */
  bank: boolean;
  bank_reference: string | null;
  settled_by: string | null;
  settle_reason: string | null;
  failure_code: string | null;
  settle_transfer_id: string | null;
  /** Who approved the bank payout through its rail in the back office (payout-queue.ts), and when. */
  approved_by?: string | null;
  approved_at?: Date | null;
}

export interface SavedCardRow {
  id: string;
  brand: string;
  last4: string;
  currency: string;
  method_id: string;
  agent_id: string;
}

export interface CardSetupRow {
  id: string;
  agent_id: string;
  currency: string;
  method_id: string;
  provider: string;
  card_id: string | null;
}

/** The withdrawals queue's search: state, the caller's agents, a withdrawal id or its rider (`qUsers`), a date range. */
export interface BankSearch {
  state: string | null;
  agents: string[] | null;
  q?: string;
  qUsers?: number[];
  from?: Date;
  to?: Date;
}

export class WalletRepository {
  constructor(private readonly db: Queryable) {}

  // ---- withdrawals ----

  async insertWithdrawal(
    w: Pick<
      WithdrawalRow,
      | 'id'
      | 'user_id'
      | 'agent_id'
      | 'currency'
      | 'amount'
      | 'refund_type'
      | 'channel_id'
      | 'account_data'
      | 'remark'
      | 'hold_transfer_id'
      | 'provider'
    > & { request_key: string | null; at: Date; bank?: boolean; status?: 'pending' | 'awaiting_payout' },
  ) {
    await this.db.query(
      `insert into withdrawals (id, user_id, agent_id, currency, amount, refund_type, channel_id, account_data, remark, status,
         hold_transfer_id, provider, request_key, created_at, updated_at, bank)
       values ($1,$2,$3,$4,$5,$6,$7,$8,$9,$14,$10,$11,$12,$13,$13,$15)`,
      [
        w.id,
        w.user_id,
        w.agent_id,
        w.currency,
        w.amount,
        w.refund_type,
        w.channel_id,
        w.account_data ? JSON.stringify(w.account_data) : null,
        w.remark,
        w.hold_transfer_id,
        w.provider,
        w.request_key,
        w.at,
        w.status ?? 'pending',
        w.bank ?? false,
      ],
    );
  }

  /** A withdrawal locked for its settlement (bank payouts: rail outcome, operator's record or rejection). */
  async lockWithdrawal(id: string) {
    const { rows } = await this.db.query<WithdrawalRow>('select * from withdrawals where id = $1 for update', [id]);
    return rows[0];
  }

  /** A bank payout a person must make now (no rail pays it, or its rail needs an operator). */
  async awaitPayout(id: string, reason: string, ref: string | null, at: Date) {
    await this.db.query(
      `update withdrawals set status = 'awaiting_payout', settle_reason = $2, provider_ref = coalesce(provider_ref, $3), updated_at = $4
        where id = $1 and status = 'pending'`,
      [id, reason, ref, at],
    );
  }

  /**
   * An awaiting payout a person approved: its rail pays it now (the rail's job follows it to paid or rejected). The
   * rail's reference is asked again: its submit is idempotent by the withdrawal, so the same payout is named and
   * funded if it was left waiting (Wise: a transfer left unfunded for a short balance).
   */
  async approveBank(id: string, rail: string, approvedBy: string, at: Date) {
    await this.db.query(
      `update withdrawals set status = 'pending', provider_ref = null, provider = $2,
         approved_by = $3, approved_at = $4, updated_at = $4 where id = $1 and status = 'awaiting_payout'`,
      [id, rail, approvedBy, at],
    );
  }

  async settleBank(
    id: string,
    s: {
      status: 'paid' | 'rejected';
      bankReference: string | null;
      settledBy: string;
      reason: string | null;
      transferId: string;
      at: Date;
    },
  ) {
    await this.db.query(
      `update withdrawals set status = $2, bank_reference = $3, settled_by = $4, settle_reason = coalesce($5, settle_reason),
         failure_code = case when $2 = 'rejected' then $5 else failure_code end, settle_transfer_id = $6, updated_at = $7
        where id = $1`,
      [id, s.status, s.bankReference, s.settledBy, s.reason, s.transferId, s.at],
    );
  }

  /**
   * A page of bank withdrawals (the back office's queue), oldest first: of a state (null: all), of these agents
   * (null: every agent), after the keyset cursor (created_at, id).
   */
  async bankPage(f: BankSearch & { after?: [string, string]; limit: number }) {
    const { rows } = await this.db.query<WithdrawalRow>(
      `select * from withdrawals
        where bank and ($1::text is null or status = $1) and ($2::text[] is null or agent_id = any($2))
          and ($3::timestamptz is null or (created_at, id) > ($3, $4))
          and ($6::text is null or id = $6 or user_id = any($7::bigint[]))
          and ($8::timestamptz is null or created_at >= $8) and ($9::timestamptz is null or created_at < $9)
        order by created_at, id limit $5`,
      [
        f.state,
        f.agents,
        f.after?.[0] ?? null,
        f.after?.[1] ?? null,
        f.limit,
        f.q ?? null,
        f.qUsers ?? [],
        f.from ?? null,
        f.to ?? null,
      ],
    );
    return rows;
  }

  /** Bank payouts awaiting an operator, oldest first. */
  async awaitingPayouts(limit: number) {
    const { rows } = await this.db.query<WithdrawalRow>(
      `select * from withdrawals where status = 'awaiting_payout' order by created_at, id limit $1`,
      [limit],
    );
    return rows;
  }

  async withdrawal(id: string) {
    const { rows } = await this.db.query<WithdrawalRow>('select * from withdrawals where id = $1', [id]);
    return rows[0];
  }

  async withdrawalByRequestKey(userId: number, key: string) {
    const { rows } = await this.db.query<WithdrawalRow>(
      'select * from withdrawals where user_id = $1 and request_key = $2',
      [userId, key],
    );
    return rows[0];
  }

  /** The withdrawal a provider payout belongs to, locked for the event that settles it. */
  async withdrawalForPayout(provider: string, ref: string) {
    const { rows } = await this.db.query<WithdrawalRow>(
      'select * from withdrawals where provider = $1 and provider_ref = $2 for update',
      [provider, ref],
    );
    return rows[0];
  }

  async setPayoutRef(id: string, ref: string, at: Date) {
    await this.db.query(
      'update withdrawals set provider_ref = $2, updated_at = $3 where id = $1 and provider_ref is null',
      [id, ref, at],
    );
  }

  async settleWithdrawal(id: string, status: 'paid' | 'rejected', failureCode: string | null, at: Date) {
    await this.db.query('update withdrawals set status = $2, failure_code = $3, updated_at = $4 where id = $1', [
      id,
      status,
      failureCode,
      at,
    ]);
  }

  /** Per card payment: how much of it withdrawals back to the card (pending or paid) have already taken. */
  async refundedToCards(paymentIds: string[]) {
    if (!paymentIds.length) return new Map<string, number>();
    const { rows } = await this.db.query<{ channel_id: string; taken: number }>(
      `select channel_id, sum(amount)::bigint as taken from withdrawals
        where channel_id = any($1::text[]) and refund_type = 0 and status in ('pending', 'paid') group by channel_id`,
      [paymentIds],
    );
    return new Map(rows.map((r) => [r.channel_id, Number(r.taken)]));
  }

  /** Statuses of the withdrawals whose hold is one of these transfers. */
  async statusByHold(holdIds: string[]) {
    if (!holdIds.length) return new Map<string, string>();
    const { rows } = await this.db.query<{ hold_transfer_id: string; status: string }>(
      'select hold_transfer_id, status from withdrawals where hold_transfer_id = any($1::text[])',
      [holdIds],
    );
    return new Map(rows.map((r) => [r.hold_transfer_id, r.status]));
  }

  /** Every withdrawal with its hold (for the ledger check). */
  async allWithHolds() {
    const { rows } = await this.db.query<{
      id: string;
      status: string;
      amount: number;
      hold_transfer_id: string;
      bank: boolean;
      settle_transfer_id: string | null;
    }>(
      'select id, status, amount, hold_transfer_id, bank, settle_transfer_id from withdrawals order by created_at, id',
    );
    return rows;
  }

  // ---- saved cards ----

  async cards(userId: number, agentId: string) {
    const { rows } = await this.db.query<SavedCardRow>(
      `select id, brand, last4, currency, method_id, agent_id from saved_cards
        where user_id = $1 and agent_id = $2 and removed_at is null order by created_at`,
      [userId, agentId],
    );
    return rows;
  }

  async card(userId: number, cardId: string) {
    const { rows } = await this.db.query<{
      id: string;
      agent_id: string;
      provider: string;
      payment_method_ref: string;
    }>(
      'select id, agent_id, provider, payment_method_ref from saved_cards where id = $1 and user_id = $2 and removed_at is null',
      [cardId, userId],
    );
    return rows[0];
  }

  async insertCard(c: {
    id: string;
    userId: number;
    agentId: string;
    provider: string;
    paymentMethodRef: string;
    methodId: string;
    brand: string;
    last4: string;
    currency: string;
    at: Date;
  }) {
    await this.db.query(
      `insert into saved_cards (id, user_id, agent_id, provider, payment_method_ref, method_id, brand, last4, currency, created_at)
       values ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10)`,
      [c.id, c.userId, c.agentId, c.provider, c.paymentMethodRef, c.methodId, c.brand, c.last4, c.currency, c.at],
    );
  }

  /** A card saved after a paid payment (its id from the payment): once, and not again while the same card is saved. */
  async insertCardOnce(c: {
    id: string;
    userId: number;
    agentId: string;
    provider: string;
    paymentMethodRef: string;
    methodId: string;
    brand: string;
    last4: string;
    currency: string;
    at: Date;
  }) {
    const { rowCount } = await this.db.query(
      `insert into saved_cards (id, user_id, agent_id, provider, payment_method_ref, method_id, brand, last4, currency, created_at)
       select $1,$2,$3,$4,$5,$6,$7,$8,$9,$10
        where not exists (select 1 from saved_cards where user_id = $2 and payment_method_ref = $5 and removed_at is null)
       on conflict (id) do nothing`,
      [c.id, c.userId, c.agentId, c.provider, c.paymentMethodRef, c.methodId, c.brand, c.last4, c.currency, c.at],
    );
    return rowCount === 1;
  }

  async removeCard(cardId: string, at: Date) {
    await this.db.query('update saved_cards set removed_at = $2 where id = $1 and removed_at is null', [cardId, at]);
  }

  async insertSetup(s: {
    id: string;
    userId: number;
    agentId: string;
    currency: string;
    methodId: string;
    provider: string;
    at: Date;
  }) {
    await this.db.query(
      `insert into card_setups (id, user_id, agent_id, currency, method_id, provider, created_at) values ($1,$2,$3,$4,$5,$6,$7)`,
      [s.id, s.userId, s.agentId, s.currency, s.methodId, s.provider, s.at],
    );
  }

  async setup(id: string, userId: number) {
    const { rows } = await this.db.query<CardSetupRow>('select * from card_setups where id = $1 and user_id = $2', [
      id,
      userId,
    ]);
    return rows[0];
  }

  async completeSetup(id: string, cardId: string) {
    await this.db.query('update card_setups set card_id = $2 where id = $1', [id, cardId]);
  }
}
