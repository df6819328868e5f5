// Money in and out of a wallet: top-up (card charge through the provider), withdrawal (a ledger hold until the
// provider's payout event confirms or rejects it), the movements list and saved cards.
//
// Order of effects, so that a money movement is never half-applied:
//   top-up      provider charge (idempotent by key) → one transaction: payment row + ledger transfer;
//               if that transaction fails the charge is refunded before the error surfaces.
//   withdrawal  one transaction: pending ledger transfer (wallet → provider clearing) + withdrawal row + a
//               payout-submit job; the provider payout (idempotent by withdrawal id) is then requested, by the
//               request itself and, if the process died first, by the job. The payout's signed webhook event
//               (deduplicated by event id) posts the hold (paid) or voids it (failed).
import { toMajor, toMinor, parseDecimal } from '#core/money.ts';
import { normalizeRemark, REFUND, validateRemark } from '#core/wallet.ts';
import type { Db, Queryable } from '../../db/db.ts';
import type { JobRunner } from '../../jobs/runner.ts';
import type { Clock } from '../../lib/clock.ts';
import { AppError, badRequest, notFound, refused } from '../../lib/errors.ts';
import { orderNo, uuid } from '../../lib/ids.ts';
import type { Logger } from '../cabinets/link.ts';
import type { UserRow } from '../auth/repository.ts';
import type { PaymentProvider, ProviderEvent } from '../payments/provider.ts';
import type { PaymentsService } from '../payments/service.ts';
import { DEFAULT_AGENT } from './repository.ts';
import { providerOwner, userOwner, WalletService } from './service.ts';

export const JOB_PAYOUT_SUBMIT = 'wallet.payout-submit';

/** Currencies a wallet can be topped up in (the card provider settles these). */
export const WALLET_CURRENCIES = ['CNY', 'EUR', 'USD', 'XAF', 'NGN'] as const;
/** Upper bound of one top-up, major units (fraud limit of the sandbox acquirer). */
export const MAX_TOPUP_MAJOR = 10_000;

import type { PayoutChannel, PayoutField } from '#contract/wallet.ts';
export type { PayoutChannel, PayoutField };

/** Refund types: 0 back to the top-up card (auto-audited), 1 a payout channel, 2 manual bank transfer (remark). */
export { REFUND };

interface CurrencyPayout {
  channels: PayoutChannel[];
  /** Manual bank transfer offered; `remark` says whether it needs the payee's name, bank card and phone. */
  manual: { remark: boolean } | null;
}

const input = (fieldName: string): PayoutField => ({ fieldName, fieldType: 'input', fieldDefauldValues: [] });

/** The operator's payout configuration per currency. A currency missing here has no withdrawal support. */
export const PAYOUTS: Record<string, CurrencyPayout> = {
  EUR: {
    channels: [{
      channelName: 'SEPA bank transfer', paymentId: 'payout-sepa',
      payoutConfig: [
        input('accountHolder'), input('iban'),
        { fieldName: 'country', fieldType: 'picker', fieldDefauldValues: [
          { desc: 'Lithuania', value: 'LT' }, { desc: 'Portugal', value: 'PT' }, { desc: 'Spain', value: 'ES' },
        ] },
      ],
    }],
    manual: null,
  },
  USD: {
    channels: [{
      channelName: 'ACH bank transfer', paymentId: 'payout-ach',
      payoutConfig: [
        input('accountHolder'), input('routingNumber'), input('accountNumber'),
        { fieldName: 'accountType', fieldType: 'picker', fieldDefauldValues: [
          { desc: 'Checking', value: 'checking' }, { desc: 'Savings', value: 'savings' },
        ] },
      ],
    }],
    manual: null,
  },
  CNY: { channels: [], manual: { remark: true } },
  XAF: { channels: [], manual: { remark: false } },
};

export type { Remark } from '#contract/wallet.ts';
import type { Remark } from '#contract/wallet.ts';

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
  status: 'pending' | 'paid' | 'rejected' | 'manual_review';
  hold_transfer_id: string;
  provider: string | null;
  provider_ref: string | null;
  created_at: Date;
}

/** Parses a wire amount (major units, a number > 0 with at most the currency's decimals) to minor units. */
export function parseAmount(raw: string | number, currency: string): number {
  const minor = parseDecimal(String(raw), currency);
  if (minor === null || minor <= 0) throw badRequest('error.wallet.amountInvalid');
  return minor;
}

export function parseCurrency(raw: string): string {
  const c = raw.trim().toUpperCase();
  if (!(WALLET_CURRENCIES as readonly string[]).includes(c)) throw badRequest('error.wallet.currency');
  return c;
}

export interface FundsDeps {
  db: Db;
  clock: Clock;
  log: Logger;
  wallet: WalletService;
  payments: PaymentsService;
  jobs: JobRunner;
}

export class FundsService {
  constructor(private readonly d: FundsDeps) {
    d.jobs.register(JOB_PAYOUT_SUBMIT, (p) => this.submitPayout(String(p.withdrawalId)));
  }

  private provider(methodId: string): PaymentProvider {
    const p = this.d.payments.providerForMethod(methodId);
    if (!p) throw badRequest('error.paymentMethod');
    return p;
  }

  /** The payout provider: today the card provider also pays out (sandbox; a real one plugs in the same way). */
  private payoutProvider(): PaymentProvider {
    return this.d.payments.providers.get('sandbox');
  }

  // ── Top-up ──────────────────────────────────────────────────────────────────────────────────────────────

  async topUp(user: UserRow, inp: { amount: string; currency: string; agentId?: string; paymentId: string; stripeToken?: string; cardId?: string; key: string }) {
    const currency = parseCurrency(inp.currency);
    const amount = parseAmount(inp.amount, currency);
    if (amount > toMinor(MAX_TOPUP_MAJOR, currency)) throw refused('error.wallet.topupTooLarge', { max: MAX_TOPUP_MAJOR });
    const agent = inp.agentId || DEFAULT_AGENT;
    const provider = this.provider(inp.paymentId);
    let token = inp.stripeToken;
    if (inp.cardId) {
      const card = await this.findCard(user.id, inp.cardId);
      if (!card || card.agent_id !== agent) throw notFound('error.card.notFound');
      token = card.payment_method_ref;
    }
    if (!token) throw badRequest('error.validation.field', { field: 'stripeToken' });
    const outTradeNo = orderNo(this.d.clock.now());
    // The provider's idempotency key derives from the client's: a retried request never charges twice.
    const result = await provider.authorize({ token, amount, currency, capture: 'automatic', idempotencyKey: `cz_${user.id}_${inp.key}` });
    if (!result.ok) {
      await this.d.payments.record({ providerId: provider.id, result, userId: user.id, orderId: outTradeNo, purpose: 'wallet_topup', amount, currency });
      const known = ['card_declined', 'insufficient_funds', 'token_invalid'];
      throw refused(`error.payment.${known.includes(result.declineCode) ? result.declineCode : 'card_declined'}`);
    }
    const w = this.d.wallet;
    let done = outTradeNo;
    try {
      await this.d.db.tx(async (tx) => {
        // A retry after a crash gets the same provider charge back: credit it once.
        const prior = await tx.query<{ order_id: string }>(
          `select order_id from payments where provider = $1 and provider_ref = $2 and purpose = 'wallet_topup' and status = 'captured' for update`,
          [provider.id, result.ref],
        );
        if (prior.rows[0]) {
          done = prior.rows[0].order_id;
          return;
        }
        await this.d.payments.record({ providerId: provider.id, result, userId: user.id, orderId: outTradeNo, purpose: 'wallet_topup', amount, currency }, tx);
        const clearing = await w.account(providerOwner(provider.id), 'clearing', currency, tx, agent);
        const wallet = await w.account(userOwner(user.id), 'wallet', currency, tx, agent);
        await w.transfer({ debit: clearing, credit: wallet, amount, code: 'wallet_topup', orderId: outTradeNo, at: this.d.clock.now() }, tx);
      });
    } catch (err) {
      const credited = await this.d.db.query(`select 1 from payments where provider = $1 and provider_ref = $2 and status = 'captured'`, [provider.id, result.ref]);
      if (credited.rows.length) throw err; // the charge is in the wallet (an earlier attempt): never refund it here
      await provider.refund(result.ref, amount).catch((e: unknown) => this.d.log.error({ err: e, outTradeNo }, 'top-up refund failed'));
      throw err;
    }
    const { balance } = await w.walletOf(user.id, currency, undefined, agent);
    return { outTradeNo: done, balance, currency };
  }

  // ── Withdrawal ──────────────────────────────────────────────────────────────────────────────────────────

  /** Card top-ups that can still take a refund of `amount` (captured minus what withdrawals already took). */
  private async refundablePayment(userId: number, currency: string, agent: string, amount: number, q: Queryable = this.d.db) {
    const { rows } = await q.query<{ id: string; provider: string; provider_ref: string; left: number }>(
      `select p.id, p.provider, p.provider_ref, p.captured_amount - coalesce((
           select sum(w.amount) from withdrawals w
            where w.channel_id = p.id and w.refund_type = 0 and w.status in ('pending', 'paid')), 0) as left
         from payments p join ledger_transfers t on t.order_id = p.order_id and t.code = 'wallet_topup'
         join ledger_accounts a on a.id = t.credit_account_id and a.agent_id = $3
        where p.user_id = $1 and p.currency = $2 and p.purpose = 'wallet_topup' and p.status = 'captured'
        order by p.created_at desc`,
      [userId, currency, agent],
    );
    return rows.find((r) => Number(r.left) >= amount);
  }

  /** POST cdb/mine/tixian/apply: checks the amount and tells which refund types and channels apply. */
  async apply(user: UserRow, inp: { amount: string; currency: string; agentId?: string }) {
    const currency = parseCurrency(inp.currency);
    const amount = parseAmount(inp.amount, currency);
    const agent = inp.agentId || DEFAULT_AGENT;
    const { balance } = await this.d.wallet.walletOf(user.id, currency, undefined, agent);
    if (amount > balance) throw refused('error.wallet.insufficientBalance');
    const cfg = PAYOUTS[currency];
    const refundTypes: number[] = [];
    if (cfg && (await this.refundablePayment(user.id, currency, agent, amount))) refundTypes.push(REFUND.card);
    if (cfg?.channels.length) refundTypes.push(REFUND.channel);
    if (cfg?.manual) refundTypes.push(REFUND.manual);
    return { refundTypes, checkNeedRemark: cfg?.manual?.remark ?? false, channels: cfg?.channels ?? [] };
  }

  /** POST cdb/mine/tixian/create: validates, holds the amount and requests the payout. */
  async create(user: UserRow, inp: {
    refundType: number; amount: string; currency: string; agentId?: string; remark?: string; autoAudit?: number;
    receiverAccount?: string; key?: string;
  }) {
    const currency = parseCurrency(inp.currency);
    const amount = parseAmount(inp.amount, currency);
    const agent = inp.agentId || DEFAULT_AGENT;
    if (inp.key) {
      // A retry after a crash (the idempotency key was released or taken over): the withdrawal made then.
      const { rows } = await this.d.db.query<WithdrawalRow>('select * from withdrawals where user_id = $1 and request_key = $2', [user.id, inp.key]);
      if (rows[0]) {
        await this.submitPayout(rows[0].id).catch(() => undefined);
        const { balance } = await this.d.wallet.walletOf(user.id, currency, undefined, agent);
        return { tixianOrderId: rows[0].id, balance, currency, status: 'pending' as const };
      }
    }
    const cfg = PAYOUTS[currency];
    if (!cfg) throw refused('error.wallet.withdrawUnsupported');
    let channelId: string | null = null;
    let account: Record<string, string> | null = null;
    let remark: string | null = null;
    let cardPayment: Awaited<ReturnType<FundsService['refundablePayment']>>;
    if (inp.refundType === REFUND.card) {
      cardPayment = await this.refundablePayment(user.id, currency, agent, amount);
      if (!cardPayment) throw refused('error.wallet.refundTypeUnavailable');
      channelId = cardPayment.id;
    } else if (inp.refundType === REFUND.channel) {
      const parsed = parseReceiver(inp.receiverAccount);
      const channel = cfg.channels.find((c) => c.paymentId === parsed.paymentId);
      if (!channel) throw refused('error.wallet.refundTypeUnavailable');
      account = validateAccount(channel, parsed.accountData);
      channelId = channel.paymentId;
    } else if (inp.refundType === REFUND.manual) {
      if (!cfg.manual) throw refused('error.wallet.refundTypeUnavailable');
      if (cfg.manual.remark) {
        const r = parseRemark(inp.remark);
        remark = JSON.stringify(r);
        account = { name: r.name, bankCard: r.bankCard, phone: r.phone };
      } else {
        account = {};
      }
      channelId = 'manual';
    } else {
      throw badRequest('error.wallet.refundTypeUnavailable');
    }
    const id = orderNo(this.d.clock.now()).replace(/^PO/, 'TX');
    const now = this.d.clock.now();
    const provider = this.payoutProvider();
    const w = this.d.wallet;
    await this.d.db.tx(async (tx) => {
      const wallet = await w.account(userOwner(user.id), 'wallet', currency, tx, agent);
      const clearing = await w.account(providerOwner(provider.id), 'clearing', currency, tx, agent);
      let holdId: string;
      try {
        holdId = await w.transfer({ debit: wallet, credit: clearing, amount, code: 'withdrawal', orderId: id, at: now, pending: true, mustNotOverdraw: true }, tx);
      } catch (e) {
        if (e instanceof AppError && e.key === 'error.insufficientBalance') throw refused('error.wallet.insufficientBalance');
        throw e;
      }
      await tx.query(
        `insert into withdrawals (id, user_id, agent_id, currency, amount, refund_type, channel_id, account_data, remark, status,
           hold_transfer_id, provider, request_key, created_at, updated_at)
         values ($1,$2,$3,$4,$5,$6,$7,$8,$9,'pending',$10,$11,$12,$13,$13)`,
        [id, user.id, agent, currency, amount, inp.refundType, channelId, account ? JSON.stringify(account) : null, remark, holdId, provider.id, inp.key ?? null, now],
      );
      await this.d.jobs.enqueue(tx, JOB_PAYOUT_SUBMIT, { withdrawalId: id }, now);
    });
    // Submit now; the job is the safety net if this process stops here.
    await this.submitPayout(id).catch((e: unknown) => this.d.log.warn({ err: e, id }, 'payout submit deferred to job'));
    const { balance } = await w.walletOf(user.id, currency, undefined, agent);
    return { tixianOrderId: id, balance, currency, status: 'pending' as const };
  }

  /** Requests the payout for a withdrawal (idempotent: the provider dedupes by the withdrawal id). */
  async submitPayout(withdrawalId: string) {
    const wd = await this.findWithdrawal(withdrawalId);
    if (!wd || wd.status !== 'pending' || wd.provider_ref) return;
    const provider = this.payoutProvider();
    const destination = wd.refund_type === REFUND.card
      ? { kind: 'card_refund' as const, paymentRef: wd.channel_id ?? '' }
      : { kind: 'channel' as const, channel: wd.channel_id ?? 'manual', account: wd.account_data ?? {} };
    const { ref } = await provider.payout({ amount: Number(wd.amount), currency: wd.currency, destination, idempotencyKey: wd.id });
    await this.d.db.query('update withdrawals set provider_ref = $2, updated_at = $3 where id = $1 and provider_ref is null', [wd.id, ref, this.d.clock.now()]);
  }

  /**
   * A provider webhook delivery: verified by signature, applied once per event id, in one transaction with
   * the ledger move. Throws (→ the provider retries) when the event refers to a payout we do not know yet.
   */
  async providerEvent(providerId: string, raw: string, signature: string | undefined): Promise<'applied' | 'duplicate' | 'ignored'> {
    const provider = this.d.payments.providers.has(providerId) ? this.d.payments.providers.get(providerId) : null;
    const event = provider?.verifyEvent(raw, signature);
    if (!provider || !event) throw new AppError(400, 'error.webhook.signature');
    return this.applyEvent(provider.id, event);
  }

  private async applyEvent(providerId: string, e: ProviderEvent) {
    const now = this.d.clock.now();
    return this.d.db.tx(async (tx) => {
      const ins = await tx.query(
        `insert into provider_events (id, provider, type, payload, received_at) values ($1,$2,$3,$4,$5) on conflict (id) do nothing`,
        [e.id, providerId, e.type, JSON.stringify(e), now],
      );
      if (ins.rowCount !== 1) return 'duplicate' as const;
      if (e.type !== 'payout.paid' && e.type !== 'payout.failed') return 'ignored' as const;
      const { rows } = await tx.query<WithdrawalRow>(
        'select * from withdrawals where provider = $1 and provider_ref = $2 for update', [providerId, e.data.ref],
      );
      const wd = rows[0];
      if (!wd) throw notFound('error.notFound'); // not stored yet: roll back so the redelivery applies it
      if (wd.status !== 'pending') return 'ignored' as const;
      if (e.type === 'payout.paid') await this.d.wallet.postPending(wd.hold_transfer_id, Number(wd.amount), now, tx);
      else await this.d.wallet.voidPending(wd.hold_transfer_id, now, tx);
      await tx.query('update withdrawals set status = $2, failure_code = $3, updated_at = $4 where id = $1', [
        wd.id, e.type === 'payout.paid' ? 'paid' : 'rejected', e.data.failureCode ?? null, now,
      ]);
      return 'applied' as const;
    });
  }

  async findWithdrawal(id: string, q: Queryable = this.d.db) {
    const { rows } = await q.query<WithdrawalRow>('select * from withdrawals where id = $1', [id]);
    return rows[0];
  }

  // ── Movements ───────────────────────────────────────────────────────────────────────────────────────────

  async movements(user: UserRow, inp: { currency?: string; agentId?: string; page: number; pageSize: number }) {
    const currency = inp.currency ? parseCurrency(inp.currency) : null;
    const agent = inp.agentId || null;
    const params = [String(user.id), currency, agent, inp.pageSize, (inp.page - 1) * inp.pageSize];
    const base = `from ledger_transfers t join ledger_accounts a on a.id in (t.debit_account_id, t.credit_account_id)
        left join withdrawals w on w.hold_transfer_id = coalesce(t.pending_id, t.id)
       where a.owner_type = 'user' and a.owner_id = $1 and a.kind = 'wallet'
         and ($2::text is null or a.currency = $2) and ($3::text is null or a.agent_id = $3)
         and t.flag in ('posted', 'pending')`;
    const { rows } = await this.d.db.query<{
      id: string; code: string; amount: number; currency: string; created_at: Date; flag: string; credit: boolean;
      agent_id: string; order_id: string | null; wstatus: string | null;
    }>(
      `select t.id, t.code, t.amount, t.currency, t.created_at, t.flag, t.credit_account_id = a.id as credit, a.agent_id,
              t.order_id, w.status as wstatus
         ${base} order by t.created_at desc, t.id limit $4 offset $5`,
      params,
    );
    const total = await this.d.db.query<{ n: number }>(`select count(*)::int as n ${base}`, params.slice(0, 3));
    return {
      total: Number(total.rows[0]?.n ?? 0),
      records: rows.map((r) => ({
        id: r.id,
        type: r.code,
        orderId: r.order_id ?? '',
        amount: (r.credit ? 1 : -1) * toMajor(Number(r.amount), r.currency),
        currency: r.currency,
        pDailiId: r.agent_id,
        status: r.wstatus ?? (r.flag === 'pending' ? 'pending' : 'done'),
        createdAt: new Date(r.created_at).toISOString(),
      })),
    };
  }

  // ── Saved cards ─────────────────────────────────────────────────────────────────────────────────────────

  async cards(userId: number, agentId?: string) {
    const { rows } = await this.d.db.query<{ id: string; brand: string; last4: string; currency: string; method_id: string; agent_id: string }>(
      `select id, brand, last4, currency, method_id, agent_id from saved_cards
        where user_id = $1 and agent_id = $2 and removed_at is null order by created_at`,
      [userId, agentId || DEFAULT_AGENT],
    );
    return rows;
  }

  private async findCard(userId: number, cardId: string) {
    const { rows } = await this.d.db.query<{ id: string; agent_id: string; provider: string; payment_method_ref: string }>(
      'select id, agent_id, provider, payment_method_ref from saved_cards where id = $1 and user_id = $2 and removed_at is null',
      [cardId, userId],
    );
    return rows[0];
  }

  /** POST cdb/user/card/save?paymentId: starts a setup with the chosen payment method's provider. */
  async startCardSetup(user: UserRow, inp: { paymentId: string; agentId?: string; currency: string }) {
    const currency = parseCurrency(inp.currency);
    if (currency === 'NGN') throw refused('error.card.unsupported');
    const provider = this.provider(inp.paymentId);
    const setup = await provider.createSetup();
    await this.d.db.query(
      `insert into card_setups (id, user_id, agent_id, currency, method_id, provider, created_at) values ($1,$2,$3,$4,$5,$6,$7)`,
      [setup.id, user.id, inp.agentId || DEFAULT_AGENT, currency, inp.paymentId, provider.id, this.d.clock.now()],
    );
    return { clientSecret: setup.clientSecret, paymentId: setup.id };
  }

  /** POST cdb/user/card/confirm {paymentId, paymentMethod}: the provider turns the card token into a saved card. */
  async confirmCardSetup(user: UserRow, inp: { paymentId: string; paymentMethod: string; clientSecret: string }) {
    const { rows } = await this.d.db.query<{ id: string; agent_id: string; currency: string; method_id: string; provider: string; card_id: string | null }>(
      'select * from card_setups where id = $1 and user_id = $2', [inp.paymentId, user.id],
    );
    const s = rows[0];
    if (!s) throw notFound('error.card.setupNotFound');
    if (s.card_id) return { pId: s.card_id };
    const provider = this.d.payments.providers.get(s.provider);
    let res: Awaited<ReturnType<PaymentProvider['confirmSetup']>>;
    try {
      res = await provider.confirmSetup(s.id, inp.clientSecret, inp.paymentMethod);
    } catch (e) {
      const code = (e as { code?: string }).code;
      if (code === 'resource_missing') throw notFound('error.card.setupNotFound');
      const known = ['card_declined', 'insufficient_funds', 'token_invalid'];
      throw refused(`error.payment.${code && known.includes(code) ? code : 'card_declined'}`);
    }
    const cardId = `card_${uuid()}`;
    await this.d.db.tx(async (tx) => {
      await tx.query(
        `insert into saved_cards (id, user_id, agent_id, provider, payment_method_ref, method_id, brand, last4, currency, created_at)
         values ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10)`,
        [cardId, user.id, s.agent_id, s.provider, res.paymentMethod, s.method_id, res.card.brand, res.card.last4, s.currency, this.d.clock.now()],
      );
      await tx.query('update card_setups set card_id = $2 where id = $1', [s.id, cardId]);
    });
    return { pId: cardId };
  }

  /** GET cdb/user/card/remove/{cardId} */
  async removeCard(user: UserRow, cardId: string) {
    const card = await this.findCard(user.id, cardId);
    if (!card) throw notFound('error.card.notFound');
    await this.d.payments.providers.get(card.provider).detachPaymentMethod(card.payment_method_ref);
    await this.d.db.query('update saved_cards set removed_at = $2 where id = $1 and removed_at is null', [cardId, this.d.clock.now()]);
  }
}

function parseReceiver(raw: string | undefined): { paymentId: string; accountData: Record<string, unknown> } {
  try {
    const v = JSON.parse(raw ?? '') as { paymentId?: unknown; accountData?: unknown };
    const data = typeof v.accountData === 'string' ? (JSON.parse(v.accountData) as unknown) : v.accountData;
    if (typeof v.paymentId === 'string' && data && typeof data === 'object') {
      return { paymentId: v.paymentId, accountData: data as Record<string, unknown> };
    }
  } catch { /* falls through */ }
  throw badRequest('error.wallet.allInfoRequired');
}

/** Every payout field is required ("All information is required"); pickers take one of their values. */
export function validateAccount(channel: PayoutChannel, data: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const f of channel.payoutConfig) {
    const v = typeof data[f.fieldName] === 'string' ? (data[f.fieldName] as string).trim() : '';
    if (!v || v.length > 100) throw badRequest('error.wallet.allInfoRequired');
    if (f.fieldType === 'picker' && !f.fieldDefauldValues.some((o) => o.value === v)) throw badRequest('error.wallet.allInfoRequired');
    out[f.fieldName] = v;
  }
  return out;
}

/** The legacy remark: the payee's name, bank card and phone, all required. */
export function parseRemark(raw: string | undefined): Remark {
  let v: Partial<Remark> = {};
  try {
    v = JSON.parse(raw ?? '') as Partial<Remark>;
  } catch { /* empty */ }
  const { name, bankCard, phone } = normalizeRemark(v ?? {});
  if (!name || !bankCard || !phone) throw badRequest('error.wallet.remarkRequired');
  const problem = validateRemark({ name, bankCard, phone });
  if (problem === 'bankCard') throw badRequest('error.wallet.bankCardInvalid');
  if (problem === 'phone') throw badRequest('error.wallet.phoneInvalid');
  return { name: name.slice(0, 100), bankCard, phone };
}
