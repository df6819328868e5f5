// Partners' revenue share on the ledger (docs/payments.md "Revenue share"). When a rental's rent or its refund
// moves on the ledger (the rentals service calls rentLedgerChanged in that same unit of work), the rental's tax,
// provider fee and partners' shares are recomputed from the ledger and the differences posted: out of platform
// revenue into the tax payable, the provider's fee and each partner's account, or back when a refund lowered them.
// Each change into a partner's account is also a move (partner_share_moves): the lines of its statements.
import type { Db } from '../../db/db.ts';
import type { Clock } from '../../lib/clock.ts';
import { DEFAULT_AGENT } from '../ledger/service.ts';
import { PLATFORM, providerOwner, type LedgerService } from '../ledger/service.ts';
import type { PartnerType, PartnersRepository, RentalShareRow } from './repository.ts';
import { shareOf } from './share.ts';

/** Ledger codes of the rent a rental credits to platform revenue, and of what goes back to the rider from it. */
export const RENT_CODES = ['rent'] as const;
export const REFUND_CODES = ['buy_out_refund', 'rent_refund'] as const;
/** Ledger codes of the share's own transfers. */
export const SHARE_CODES = {
  tax: 'share_tax',
  fee: 'share_provider_fee',
  partner: 'revenue_share',
  monthly: 'partner_monthly_fee',
} as const;

/** A partner's account on the ledger: what Powerly owes the venue or agent (credit-normal). */
export const partnerOwner = (type: PartnerType, id: string) => ({ type: 'partner', id: `${type}:${id}` });
export const PARTNER_ACCOUNT = 'revenue_share';

export interface PartnersDeps {
  db: Db;
  clock: Clock;
  repo: PartnersRepository;
  ledger: LedgerService;
}

export class PartnersService {
  constructor(readonly d: PartnersDeps) {}

  private atomic<T>(fn: () => Promise<T>): Promise<T> {
    return this.d.db.inTx() ? fn() : this.d.db.tx(fn);
  }

  /**
   * The rental's rent or a refund of it moved on the ledger: brings its tax, provider fee and shares in step (a
   * repeated call changes nothing). The rates are those in force at its first settlement, kept for its refunds.
   */
  rentLedgerChanged(orderId: string): Promise<void> {
    return this.atomic(async () => {
      // Under the order's lock: two changes of one rental never post the same difference twice.
      await this.d.repo.lockOrder(orderId);
      const ctx = await this.d.repo.orderContext(orderId);
      if (!ctx) return;
      const now = this.d.clock.now();
      const revenue = await this.d.ledger.account(PLATFORM, 'revenue', ctx.currency);
      const { gross, refunded } = await this.d.repo.rentOnLedger(orderId, revenue.id, RENT_CODES, REFUND_CODES);
      const before =
        (await this.d.repo.rentalShare(orderId, true)) ??
        (gross > 0 ? await this.firstSettlement(ctx, now) : undefined);
      if (!before) return;
      const after = shareOf(gross, refunded, {
        taxBps: before.tax_bps,
        feeBps: before.fee_bps,
        venueBps: before.venue_bps,
        agentBps: before.agent_bps,
      });
      const agent = before.agent_id ?? DEFAULT_AGENT;
      const cur = ctx.currency;
      const move = async (owner: { type: string; id: string }, kind: string, delta: number, code: string) => {
        if (delta === 0) return null;
        const other = await this.d.ledger.account(owner, kind, cur, agent);
        return this.d.ledger.transfer({
          debit: delta > 0 ? revenue : other,
          credit: delta > 0 ? other : revenue,
          amount: Math.abs(delta),
          code,
          orderId,
          at: now,
        });
      };
      await move(PLATFORM, 'tax_payable', after.tax - before.tax, SHARE_CODES.tax);
      if (before.provider)
        await move(providerOwner(before.provider), 'fees', after.providerFee - before.provider_fee, SHARE_CODES.fee);
      const partners: [PartnerType, string | null, number, number, number][] = [
        ['venue', before.venue_id, before.venue_bps, after.venueShare, before.venue_share],
        ['agent', before.agent_id, before.agent_bps, after.agentShare, before.agent_share],
      ];
      for (const [type, id, bps, target, held] of partners) {
        if (!id) continue;
        const transferId = await move(partnerOwner(type, id), PARTNER_ACCOUNT, target - held, SHARE_CODES.partner);
        if (!transferId) continue;
        await this.d.repo.insertMove({
          partner_type: type,
          partner_id: id,
          currency: cur,
          order_id: orderId,
          kind: 'share',
          amount: target - held,
          gross,
          refunded,
          provider_fee: after.providerFee,
          tax: after.tax,
          net: after.net,
          percent_bps: bps,
          transfer_id: transferId,
          at: now,
        });
      }
      await this.d.repo.saveRentalShare({
        ...before,
        gross,
        refunded,
        tax: after.tax,
        provider_fee: after.providerFee,
        venue_share: after.venueShare,
        agent_share: after.agentShare,
        updated_at: now,
      });
    });
  }

  /** A rental's first settlement: the rates in force now, nothing posted yet. */
  private async firstSettlement(
    ctx: {
      id: string;
      venue_id: string;
      agent_id: string | null;
      country: string | null;
      currency: string;
      provider: string | null;
    },
    now: Date,
  ): Promise<RentalShareRow> {
    const venueRule = await this.d.repo.ruleAt('venue', ctx.venue_id, ctx.currency, now);
    const agentRule = ctx.agent_id ? await this.d.repo.ruleAt('agent', ctx.agent_id, ctx.currency, now) : undefined;
    return {
      order_id: ctx.id,
      currency: ctx.currency,
      venue_id: ctx.venue_id,
      agent_id: ctx.agent_id,
      provider: ctx.provider,
      tax_bps: await this.d.repo.taxRate(ctx.country),
      fee_bps: await this.d.repo.providerFeeRate(ctx.provider),
      venue_bps: venueRule?.percent_bps ?? 0,
      agent_bps: agentRule?.percent_bps ?? 0,
      gross: 0,
      refunded: 0,
      tax: 0,
      provider_fee: 0,
      venue_share: 0,
      agent_share: 0,
      settled_at: now,
      updated_at: now,
    };
  }
}
