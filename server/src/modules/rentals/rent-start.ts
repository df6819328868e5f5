// Starting a rental: the cabinet resolved and checked before any money moves (preflight), the rent transaction
// (start: the order, its eject command, its jobs, the payment row and the deposit's ledger hold, one unit of work),
// the eject published once committed, and the wallet-funded rental (useBalanceToRent). The card-funded rental, its
// charge guard and its compensation are renting.ts's.
import { cabinetCodeFrom } from '#core/codeLink.ts';
import { type RentalKind } from '#core/devices.ts';
import { allOf } from '../../db/db.ts';
import { notFound, refused, conflict } from '../../lib/errors.ts';
import { commitIdempotencyKey } from '../../lib/idempotency.ts';
import { orderNo, uuid } from '../../lib/ids.ts';
import type { UserRow } from '../auth/service.ts';
import { PROTOCOL_VERSION, type Command, type EjectCommand } from '../cabinets/protocol.ts';
import type { CabinetRow } from '../cabinets/stock.ts';
import { chargeNotOurs, newPaymentId } from '../payments/service.ts';
import { depositPaymentReason, type PricedVenue } from '../venues/service.ts';
import { providerOwner, userOwner } from '../ledger/service.ts';
import { Zujie } from './order-state.ts';
import { JOB_EJECT_TIMEOUT, type GuardState, type Funding } from './shared.ts';
import { RentalsReads } from './reads.ts';
import type { OrderRow } from './repository.ts';

export abstract class RentalsStart extends RentalsReads {
  protected abstract holdGuard(
    orderId: string,
    paymentId: string,
    captureBefore: Date | null,
  ): { kind: string; payload: Record<string, unknown>; runAt: Date } | null;
  protected abstract changed(userId: number, orderId: string, state: number, order?: OrderRow): Promise<void>;

  async resolveCabinet(url: string, kind: RentalKind = 'cdb'): Promise<{ cabinet: CabinetRow; priced: PricedVenue }> {
    const code = cabinetCodeFrom(url);
    const cabinet = code ? await this.d.cabinets.find(code) : undefined;
    if (!cabinet) throw notFound('error.cabinetNotFound');
    return { cabinet, priced: await this.d.venues.priced(cabinet.venue_id, kind) };
  }

  protected async preflight(user: UserRow, qrcode: string, kind: RentalKind) {
    const code = cabinetCodeFrom(qrcode);
    // The cabinet with a free slot (each unanswered eject reserves its slot; checked again under the cabinet's lock
    // in start()), and the user's open rentals: independent reads, made at once. The refusals keep their order.
    const [found, open] = code
      ? await Promise.all([
          this.d.cabinets.findWithFreeSlot(code, this.d.clock.now(), kind),
          this.d.repo.openCount(user.id),
        ])
      : [];
    if (!found) throw notFound('error.cabinetNotFound');
    const { cabinet, slot } = found;
    if (!cabinet.online) throw conflict('error.cabinetOffline');
    // Fail fast: without the broker the eject cannot go out; refuse now, before any money moves.
    if (!this.d.link.isUp()) throw conflict('error.cabinetLinkDown');
    const priced = await this.d.venues.priced(cabinet.venue_id, kind);
    if (slot === undefined) throw conflict('error.noPowerbank');
    if (open! > 0) throw refused('error.rentCount');
    return { cabinet, priced };
  }

  /** GET cdb/cabinet/useBalanceToRent */
  async rentWithBalance(user: UserRow, qrcode: string, kind: RentalKind = 'cdb'): Promise<string> {
    const { cabinet, priced } = await this.preflight(user, qrcode, kind);
    // The scan's rule (venues' depositPaymentReason): a wallet short of the deposit is refused (again under the
    // wallet's lock by the hold in start()); at an agent whose deposits are always paid, a wallet that does not also
    // cover the overtime fee is too: that deposit is paid through confirm.
    const { balance } = await this.d.ledger.walletOf(user.id, priced.venue.currency);
    const reason = depositPaymentReason(priced, balance);
    if (reason === 'balance') throw refused('error.insufficientBalance');
    if (reason === 'agent') throw refused('error.depositByPayment');
    const orderId = orderNo(this.d.clock.now());
    await this.sendEject(
      orderId,
      cabinet.id,
      await this.start(orderId, user, cabinet, priced, { kind: 'wallet', topUp: null }, kind),
    );
    return orderId;
  }

  /**
   * One transaction: the order with its eject command and jobs (the repository's `start`, one statement: the user's
   * and the cabinet's locks and the refusal checks under them), the payment row and the ledger hold; the command, to
   * publish once committed. Its statements go in two steps (pipelined, one round trip each, docs/architecture.md):
   * everything but the transfers, then the transfers; then the commit. The shared ledger accounts (the provider's
   * clearing account is in every card rental) are locked last, so concurrent rentals wait on them only for the
   * transfer and the commit, not the whole transaction.
   */
  protected async start(
    orderId: string,
    user: UserRow,
    cabinet: CabinetRow,
    priced: PricedVenue,
    f: Funding,
    kind: RentalKind,
    guard?: GuardState,
  ): Promise<Command> {
    const now = this.d.clock.now();
    const currency = priced.venue.currency;
    const deposit = priced.plan.deposit;
    const w = this.d.ledger;
    // The provider payment funding it is locked too, and must be unrecorded: the orphan guard may have released it
    // (the customer came back at the timeout), or another request started a rental with it (a double resume).
    const charge =
      f.kind === 'preauth'
        ? { provider: f.provider, ref: f.result.ref }
        : f.topUp
          ? { provider: f.topUp.provider, ref: f.topUp.result.ref }
          : null;
    const paymentId = f.kind === 'preauth' ? newPaymentId() : null;
    const holdId = uuid(); // the deposit hold's transfer, made below
    const commandId = uuid();
    const expiresAt = new Date(now.getTime() + this.d.ejectTtlMs);
    // The eject names its slot: the function picks it under the cabinet's lock and stores it in the command.
    const unslotted: Omit<EjectCommand, 'slot'> = {
      v: PROTOCOL_VERSION,
      id: commandId,
      type: 'eject',
      ts: now.toISOString(),
      ttlMs: this.d.ejectTtlMs,
      kind,
    };
    // The eject's timeout and, for a card hold, its expiry guard; the card call's orphan guard is no longer needed
    // once this order commits: marked done by the same statement.
    const hold =
      f.kind === 'preauth' && paymentId ? this.holdGuard(orderId, paymentId, f.result.captureBefore ?? null) : null;
    const jobs = [
      { kind: JOB_EJECT_TIMEOUT, payload: { orderId }, runAt: new Date(expiresAt.getTime() + this.d.ejectGraceMs) },
      ...(hold ? [hold] : []),
    ];
    const holdKey = { owner: userOwner(user.id), kind: 'deposit_hold', currency };
    return this.d.db
      .tx(async (): Promise<Command> => {
        // In the order written (PostgreSQL runs pipelined statements in order): the user's and the cabinet's locks
        // (in `start`), then the charge's, then the ledger's. A refusal is checked once the answers are in; the
        // rows written before it roll back with the unit.
        const [started, , taken, , , , accounts] = await allOf([
          this.d.repo.start(
            {
              id: orderId,
              user_id: user.id,
              cabinet_id: cabinet.id,
              venue_id: priced.venue.id,
              deposit_type: priced.planRow.deposit_type,
              currency,
              plan: priced.plan,
              wire_strategy: priced.wire,
              deposit,
              hold_transfer_id: holdId,
              payment_id: paymentId,
              eject_command_id: commandId,
              created_at: now,
              device_kind: kind,
            },
            { payload: unslotted, expiresAt },
            jobs,
            guard?.guardId,
          ),
          charge && this.d.payments.lockCharge(charge.provider.id, charge.ref),
          charge && this.d.payments.byRef(charge.provider.id, charge.ref),
          f.kind === 'preauth'
            ? this.d.payments.record({
                id: paymentId!,
                providerId: f.provider.id,
                result: f.result,
                userId: user.id,
                orderId,
                purpose: 'deposit_preauth',
                amount: deposit,
                currency,
              })
            : f.topUp &&
              this.d.payments.record({
                providerId: f.topUp.provider.id,
                result: f.topUp.result,
                userId: user.id,
                orderId,
                purpose: 'deposit_topup',
                amount: f.topUp.amount,
                currency,
              }),
          commitIdempotencyKey(orderId), // the request's key completes with the order, in this transaction
          this.changed(user.id, orderId, Zujie.pending),
          // The ledger's accounts last: the provider's clearing account is shared, so its lock is held only for the
          // transfer and the commit.
          f.kind === 'preauth'
            ? w.lockedAccounts([holdKey, { owner: providerOwner(f.provider.id, user.id), kind: 'clearing', currency }])
            : allOf([
                w.account(holdKey.owner, holdKey.kind, currency),
                w.account(userOwner(user.id), 'wallet', currency),
                f.topUp ? w.account(providerOwner(f.topUp.provider.id, user.id), 'clearing', currency) : undefined,
              ]),
        ]);
        if (taken) throw chargeNotOurs(taken);
        if (started.open > 0) throw refused('error.rentCount');
        if (started.slot === undefined) throw conflict('error.noPowerbank');
        if (f.kind === 'preauth') {
          const [holdAccount, clearing] = accounts;
          await w.transfer({
            id: holdId,
            debit: clearing!,
            credit: holdAccount!,
            amount: deposit,
            code: 'deposit_preauth',
            orderId,
            at: now,
            pending: true,
            locked: true,
          });
        } else {
          const [holdAccount, wallet, clearing] = accounts;
          if (f.topUp)
            await w.transfer({
              debit: clearing!,
              credit: wallet!,
              amount: f.topUp.amount,
              code: 'wallet_topup',
              orderId,
              at: now,
            });
          await w.transfer({
            id: holdId,
            debit: wallet!,
            credit: holdAccount!,
            amount: deposit,
            code: 'deposit_hold',
            orderId,
            at: now,
            pending: true,
            mustNotOverdraw: true,
          });
        }
        const { kind: k, ...rest } = unslotted;
        const command: EjectCommand = { ...rest, slot: started.slot, kind: k }; // as stored (jsonb), in the protocol's order
        return command;
      })
      .then((command) => {
        if (guard?.guardId !== undefined) guard.cancelled = true;
        return command;
      });
  }

  /**
   * Publishes the command just committed (the one stored with the order: nothing is read back before the eject
   * goes out). A failure here is not fatal: the link re-publishes unanswered commands when it reconnects, and
   * the timeout job cancels and releases.
   */
  protected async sendEject(orderId: string, cabinetId: string, command: Command) {
    // Published now; the broker's PUBACK is not waited for (the answer does not depend on it: the command is
    // committed, and re-published on reconnect until the cabinet answers or the timeout job cancels the order).
    void this.d.link
      .send(cabinetId, command)
      .catch((err: unknown) => this.d.log.error({ err, orderId }, 'eject publish failed'));
  }
}
