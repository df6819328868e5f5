// Withdrawals: money out of a wallet. The request holds the amount (a pending ledger transfer, wallet → the payout
// provider's clearing), stores the withdrawal and a payout-submit job in one unit of work; the provider payout
// (idempotent by the withdrawal id) is then requested, by the request itself and, if the process died first, by
// the job. The payout's signed webhook event (deduplicated by event id) posts the hold (paid) or voids it (failed).
// A refund to the card through a provider without payouts (Stripe) is a refund of the top-up it came from.
import { AppError, badRequest, notFound, refused } from '../../lib/errors.ts';
import { commitIdempotencyKey } from '../../lib/idempotency.ts';
import { orderNo } from '../../lib/ids.ts';
import type { UserRow } from '../auth/service.ts';
import { DEFAULT_AGENT } from '../ledger/service.ts';
import { providerOwner, userOwner } from '../ledger/service.ts';
import type { PaymentProvider, ProviderEvent } from '../payments/provider.ts';
import type { PayoutConfig } from '../../config/payouts.ts';
import { parseAmount, parseCurrency, parseReceiver, parseRemark, REFUND, validateAccount } from './payouts.ts';
import type { WalletRepository } from './repository.ts';
import type { WalletDeps, WithdrawalResult } from './service.ts';
import { BankPayouts } from './bank-payouts.ts';

export const JOB_PAYOUT_SUBMIT = 'wallet.payout-submit';

export class Withdrawals {
  /** Bank withdrawals: a real payout adapter, or an operator's recorded bank transfer (bank-payouts.ts). */
  readonly bank: BankPayouts;

  constructor(
    private readonly d: WalletDeps,
    private readonly payouts: PayoutConfig,
  ) {
    this.bank = new BankPayouts({ ...d, rails: d.rails ?? [] });
    d.jobs.register(JOB_PAYOUT_SUBMIT, (p) => this.submitPayout(String(p.withdrawalId)));
  }

  /**
   * The payout options of a currency: the operator's configured channels and manual transfer, and a channel for each
   * of the agent's payment methods that pays out in it (M-Pesa B2C, PayPal Payouts, Flutterwave transfers, Alipay).
   */
  private payoutConfig(currency: string, agent: string) {
    const base = this.payouts[currency];
    const methods = this.d.payments.payoutChannels(currency, agent);
    if (!base && !methods.length) return { cfg: undefined, methods };
    return {
      cfg: { channels: [...(base?.channels ?? []), ...methods.map((m) => m.channel)], manual: base?.manual ?? null },
      methods,
    };
  }

  /** A refund to a card the sandbox card provider charged (test mode) is one of its payouts. */
  private payoutProvider(): PaymentProvider {
    return this.d.payments.providerById('sandbox');
  }

  /** A card top-up (newest first) into this agent's wallet that can still take a refund of `amount`. */
  private async refundablePayment(userId: number, currency: string, agent: string, amount: number) {
    const payments = await this.d.payments.capturedTopUps(userId, currency);
    const ofAgent = await this.d.ledger.toppedUpOrders(
      payments.map((p) => p.order_id),
      agent,
    );
    const taken = await this.d.repo.refundedToCards(payments.map((p) => p.id));
    return payments
      .filter((p) => ofAgent.has(p.order_id))
      .map((p) => ({
        id: p.id,
        provider: p.provider,
        provider_ref: p.provider_ref,
        left: Number(p.captured_amount) - (taken.get(p.id) ?? 0),
      }))
      .find((p) => p.left >= amount);
  }

  /** POST cdb/mine/tixian/apply: checks the amount and tells which refund types and channels apply. */
  async apply(user: UserRow, inp: { amount: string; currency: string; agentId?: string }) {
    const currency = parseCurrency(inp.currency);
    const amount = parseAmount(inp.amount, currency);
    const agent = inp.agentId || DEFAULT_AGENT;
    const { balance } = await this.d.ledger.walletOf(user.id, currency, agent);
    if (amount > balance) throw refused('error.wallet.insufficientBalance');
    const { cfg } = this.payoutConfig(currency, agent);
    const refundTypes: number[] = [];
    if (cfg && (await this.refundablePayment(user.id, currency, agent, amount))) refundTypes.push(REFUND.card);
    if (cfg?.channels.length) refundTypes.push(REFUND.channel);
    if (cfg?.manual) refundTypes.push(REFUND.manual);
    return { refundTypes, checkNeedRemark: cfg?.manual?.remark ?? false, channels: cfg?.channels ?? [] };
  }

  /** POST cdb/mine/tixian/create: validates, holds the amount and requests the payout. */
  async create(
    user: UserRow,
    inp: {
      refundType: number;
      amount: string;
      currency: string;
      agentId?: string;
      remark?: string;
      autoAudit?: number;
      receiverAccount?: string;
      key?: string;
    },
  ) {
    const currency = parseCurrency(inp.currency);
    const amount = parseAmount(inp.amount, currency);
    const agent = inp.agentId || DEFAULT_AGENT;
    if (inp.key) {
      // A retry after a crash (the idempotency key was released or taken over): the withdrawal made then.
      const earlier = await this.d.repo.withdrawalByRequestKey(user.id, inp.key);
      if (earlier) {
        await this.submitPayout(earlier.id).catch(() => undefined);
        const { balance } = await this.d.ledger.walletOf(user.id, currency, agent);
        return {
          tixianOrderId: earlier.id,
          balance,
          currency,
          status: earlier.status === 'awaiting_payout' ? ('awaiting_payout' as const) : ('pending' as const),
        };
      }
    }
    const { cfg, methods } = this.payoutConfig(currency, agent);
    if (!cfg) throw refused('error.wallet.withdrawUnsupported');
    let methodProvider: PaymentProvider | undefined;
    // A payouts.json channel or a manual transfer is a bank withdrawal: a real rail pays it, or an operator does.
    let bank = false;
    let channelId: string | null = null;
    let account: Record<string, string> | null = null;
    let remark: string | null = null;
    let cardPayment: Awaited<ReturnType<Withdrawals['refundablePayment']>>;
    if (inp.refundType === REFUND.card) {
      // Checked (again) under the lock of the payments it counts, in the unit of work below.
      cardPayment = await this.refundablePayment(user.id, currency, agent, amount);
      if (!cardPayment) throw refused('error.wallet.refundTypeUnavailable');
    } else if (inp.refundType === REFUND.channel) {
      const parsed = parseReceiver(inp.receiverAccount);
      const channel = cfg.channels.find((c) => c.paymentId === parsed.paymentId);
      if (!channel) throw refused('error.wallet.refundTypeUnavailable');
      account = validateAccount(channel, parsed.accountData);
      channelId = channel.paymentId;
      // A payment method's channel pays out through that method.
      const m = methods.find((x) => x.channel.paymentId === channel.paymentId);
      if (m) methodProvider = this.d.payments.providerById(m.provider.id);
      else bank = true;
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
      bank = true;
    } else {
      throw badRequest('error.wallet.refundTypeUnavailable');
    }
    const id = orderNo(this.d.clock.now()).replace(/^PO/, 'TX');
    const now = this.d.clock.now();
    // A refund to the card goes back through the provider that charged it (Stripe: a refund of the top-up).
    const charged = cardPayment ? await this.d.payments.find(cardPayment.id) : undefined;
    const rail = bank ? this.bank.railFor(channelId!, currency) : undefined;
    const provider = bank
      ? null
      : (methodProvider ??
        (charged && this.d.payments.hasProvider(charged.provider) && !this.d.payments.can(charged.provider, 'payout')
          ? this.d.payments.providerById(charged.provider)
          : this.payoutProvider()));
    const ledger = this.d.ledger;
    // The answer is the balance this withdrawal left, as stored with the request's key (its replays answer the same).
    const result = await this.d.db.tx(async () => {
      if (inp.refundType === REFUND.card) {
        // Concurrent refund-to-card withdrawals of one user queue here, so each sees the others' amounts.
        await this.d.payments.lockCapturedTopUps(user.id, currency);
        const locked = await this.refundablePayment(user.id, currency, agent, amount);
        // The provider chosen above must be the one that charged the payment refunded.
        if (!locked || (charged && locked.provider !== charged.provider))
          throw refused('error.wallet.refundTypeUnavailable');
        channelId = locked.id;
      }
      const wallet = await ledger.account(userOwner(user.id), 'wallet', currency, agent);
      let holdId: string;
      try {
        holdId = provider
          ? await ledger.transfer({
              debit: wallet,
              credit: await ledger.account(providerOwner(provider.id), 'clearing', currency, agent),
              amount,
              code: 'withdrawal',
              orderId: id,
              at: now,
              pending: true,
              mustNotOverdraw: true,
            })
          : await this.bank.moveToTransit(wallet, { id, currency, agent, amount, at: now });
      } catch (e) {
        if (e instanceof AppError && e.key === 'error.insufficientBalance')
          throw refused('error.wallet.insufficientBalance');
        throw e;
      }
      await this.d.repo.insertWithdrawal({
        id,
        user_id: user.id,
        agent_id: agent,
        currency,
        amount,
        refund_type: inp.refundType,
        channel_id: channelId,
        account_data: account,
        remark,
        hold_transfer_id: holdId,
        provider: provider?.id ?? rail?.id ?? null,
        request_key: inp.key ?? null,
        at: now,
        bank,
        status: bank && !rail ? 'awaiting_payout' : 'pending',
      });
      if (provider) await this.d.jobs.enqueue(JOB_PAYOUT_SUBMIT, { withdrawalId: id }, now);
      else await this.bank.schedule(id, rail, now);
      const r: WithdrawalResult = {
        tixianOrderId: id,
        balance: (await ledger.walletOf(user.id, currency, agent)).balance,
        currency,
        status: bank && !rail ? 'awaiting_payout' : 'pending',
      };
      await commitIdempotencyKey(r);
      await this.d.live.publish(user.id, { kind: 'wallet' });
      return r;
    });
    // Submit now; the job is the safety net if this process stops here.
    await this.submitPayout(id).catch((e: unknown) => this.d.log.warn({ err: e, id }, 'payout submit deferred to job'));
    return result;
  }

  /** Requests the payout for a withdrawal (idempotent: the provider dedupes by the withdrawal id). */
  async submitPayout(withdrawalId: string) {
    const wd = await this.d.repo.withdrawal(withdrawalId);
    if (wd?.bank) return this.bank.run(wd.id);
    if (!wd || wd.status !== 'pending' || wd.provider_ref) return;
    const provider =
      wd.provider && this.d.payments.hasProvider(wd.provider)
        ? this.d.payments.providerById(wd.provider)
        : this.payoutProvider();
    if (wd.refund_type === REFUND.card && !this.d.payments.can(provider.id, 'payout'))
      return this.refundToCard(wd, provider);
    const destination =
      wd.refund_type === REFUND.card
        ? { kind: 'card_refund' as const, paymentRef: wd.channel_id ?? '' }
        : { kind: 'channel' as const, channel: wd.channel_id ?? 'manual', account: wd.account_data ?? {} };
    const { ref } = await provider.payout({
      amount: Number(wd.amount),
      currency: wd.currency,
      destination,
      idempotencyKey: wd.id,
    });
    await this.d.repo.setPayoutRef(wd.id, ref, this.d.clock.now());
  }

  /**
   * A withdrawal to the card through a provider without payouts (Stripe): a refund of the top-up it came from,
   * idempotent by the withdrawal id. Stripe answers a refund at once; the hold is posted with it in one unit of
   * work. A refund Stripe refuses for good (not refundable any more) releases the hold back to the wallet.
   */
  private async refundToCard(
    wd: NonNullable<Awaited<ReturnType<WalletRepository['withdrawal']>>>,
    provider: PaymentProvider,
  ) {
    const pay = await this.d.payments.find(wd.channel_id ?? '');
    if (!pay?.provider_ref) throw new Error(`withdrawal ${wd.id}: no card payment ${wd.channel_id}`);
    const amount = Number(wd.amount);
    let failure: string | null = null;
    try {
      await provider.refund(pay.provider_ref, amount, { idempotencyKey: `wd_${wd.id}` });
    } catch (e) {
      const code = (e as { code?: string; statusCode?: number }).code;
      const status = (e as { statusCode?: number }).statusCode;
      if (!status || status >= 500 || status === 429) throw e; // transient: the job retries with the same key
      failure = code ?? 'refund_failed';
    }
    const now = this.d.clock.now();
    await this.d.db.tx(async () => {
      const cur = await this.d.repo.withdrawal(wd.id);
      if (cur?.status !== 'pending' || cur.provider_ref) return;
      await this.d.repo.setPayoutRef(wd.id, `refund_${wd.id}`, now);
      if (failure) {
        await this.d.ledger.voidPending(wd.hold_transfer_id, now);
        await this.d.repo.settleWithdrawal(wd.id, 'rejected', failure, now);
        return;
      }
      await this.d.payments.recordRefund(pay.id, amount, now, `wd_${wd.id}`);
      await this.d.ledger.postPending(wd.hold_transfer_id, amount, now);
      await this.d.repo.settleWithdrawal(wd.id, 'paid', null, now);
    });
  }

  /**
   * A payout's outcome, verified and read by payments' one webhook entry (payments/webhooks.ts, for every provider):
   * applied once per event id, in one transaction with the ledger move. Throws (→ the provider retries) when the
   * event refers to a payout we do not know yet. Payment events never come here: payments applies them itself.
   */
  async payoutNotified(providerId: string, e: ProviderEvent): Promise<'applied' | 'duplicate' | 'ignored'> {
    const now = this.d.clock.now();
    return this.d.db.tx(async () => {
      if (!(await this.d.payments.recordEvent(providerId, e, now))) return 'duplicate' as const;
      if (e.type !== 'payout.paid' && e.type !== 'payout.failed') return 'ignored' as const;
      const wd = await this.d.repo.withdrawalForPayout(providerId, e.data.ref);
      if (!wd) throw notFound('error.notFound'); // not stored yet: roll back so the redelivery applies it
      if (wd.status !== 'pending' || wd.bank) return 'ignored' as const;
      if (e.type === 'payout.paid') await this.d.ledger.postPending(wd.hold_transfer_id, Number(wd.amount), now);
      else await this.d.ledger.voidPending(wd.hold_transfer_id, now);
      await this.d.repo.settleWithdrawal(
        wd.id,
        e.type === 'payout.paid' ? 'paid' : 'rejected',
        e.data.failureCode ?? null,
        now,
      );
      await this.d.live.publish(Number(wd.user_id), { kind: 'wallet' });
      return 'applied' as const;
    });
  }

  findWithdrawal(id: string) {
    return this.d.repo.withdrawal(id);
  }
}
