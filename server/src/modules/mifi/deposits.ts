// The box deposit of a package bought without a box (cabinetDisposit): held, its expiry, its release.
import { DEVICE_ORDER_STATUS as DOS } from '#core/mifi.ts';
import { conflict, refused } from '../../lib/errors.ts';
import { commitIdempotencyKey } from '../../lib/idempotency.ts';
import type { UserRow } from '../auth/service.ts';
import { providerOwner, userOwner } from '../ledger/service.ts';
import { type PaymentProvider } from '../payments/provider.ts';
import { HOLD_RENEW_MARGIN_MS } from '../rentals/service.ts';
import type { DepositBody } from '#contract/mifi.ts';
import type { PaymentAction } from '#contract/payments.ts';
import type { PackageRow } from './repository.ts';
import {
  JOB_MIFI_RELEASE_HOLD,
  JOB_MIFI_HOLD_EXPIRY,
  type PayCall,
  type Attempt,
  type Taken,
  pickable,
  holdsBox,
  MifiPart,
} from './shared.ts';

export class MifiDeposits extends MifiPart {
  /**
   * POST chargenow/mifi/cabinetDisposit: the box deposit for a package-only order, so a box can be picked up. From the
   * wallet (`wallet`, or no method token and a balance covering it); with a method that can hold, the deposit is
   * held (a pre-authorisation, released when the box comes back); with any other it is paid into the wallet and
   * held there (as a rental's deposit top-up). A method whose customer must act answers `action`, resumed with
   * paymentIntent. Returns that action, or null once the deposit is held.
   */
  async payDeposit(
    user: UserRow,
    b: DepositBody,
    agent?: string,
    receipt?: () => Promise<unknown>,
  ): Promise<PaymentAction | null> {
    const p = await this.s.reads.own(user, b.mifiOrderId);
    const c: PayCall = {
      paymentId: b.paymentId,
      token: b.stripeToken,
      paymentIntent: b.paymentIntent,
      returnUrl: b.returnUrl,
      agent,
    };
    if (b.paymentIntent) {
      const provider = this.d.payments.requireProvider(b.paymentId, agent);
      return this.s.paying.payWith(
        user,
        provider,
        c,
        { orderId: p.order_id, packageId: p.id, amount: 0, currency: p.currency, capture: 'automatic', key: '' },
        receipt,
      );
    }
    if (!pickable(p)) throw conflict('error.mifi.notPickable');
    const deposit = await this.s.catalogue.boxDeposit(p.currency);
    if (deposit <= 0) throw conflict('error.mifi.noBoxInCurrency', { currency: p.currency });
    const wallet = await this.d.ledger.walletOf(user.id, p.currency);
    if (b.paymentId === 'wallet' || (!b.stripeToken && wallet.balance >= deposit)) {
      if (wallet.balance < deposit) throw refused('error.mifi.balanceLow');
      await this.d.db.tx(async () => {
        // Two calls at once: one holds the deposit.
        const cur = (await this.d.repo.pkg(p.id, { lock: true }))!;
        if (!pickable(cur)) throw conflict('error.mifi.notPickable');
        const w = this.d.ledger;
        const wal = await w.account(userOwner(user.id), 'wallet', p.currency);
        const hold = await w.account(userOwner(user.id), 'deposit_hold', p.currency);
        const holdId = await w.transfer({
          debit: wal,
          credit: hold,
          amount: deposit,
          code: 'mifi_deposit',
          orderId: p.order_id,
          at: this.d.clock.now(),
          pending: true,
          mustNotOverdraw: true,
        });
        await this.d.repo.setDevice(p.id, { deviceOrderStatus: DOS.awaitingPickup, holdTransferId: holdId, deposit });
        if (receipt) await commitIdempotencyKey(await receipt());
      });
      return null;
    }
    if (!b.stripeToken) throw refused('error.mifi.balanceLow');
    const provider = this.d.payments.requireProvider(b.paymentId, agent);
    const hold = this.d.payments.methodHolds(b.paymentId, agent);
    return this.s.paying.payWith(
      user,
      provider,
      c,
      {
        orderId: p.order_id,
        packageId: p.id,
        amount: deposit,
        currency: p.currency,
        capture: hold ? 'manual' : 'automatic',
        // One key per token, as pay(): a retry with the same token replays, another is a new attempt.
        key: `mifidep_${p.id}_${b.stripeToken}`,
      },
      receipt,
    );
  }

  /**
   * One unit of work: the box deposit of a package, held by the method (clearing → deposit hold, pending, with the
   * guard of its expiry) or paid into the wallet and held from it; the package then waits for its box (5).
   */
  async settleDeposit(
    user: UserRow,
    provider: PaymentProvider,
    result: Taken,
    a: Attempt,
    receipt?: () => Promise<unknown>,
  ) {
    await this.d.db.tx(async () => {
      if (!(await this.s.paying.recorded(provider, result.ref, a))) {
        // Two calls at once: one holds the deposit.
        const cur = (await this.d.repo.pkg(a.packageId!, { lock: true }))!;
        if (!pickable(cur)) throw conflict('error.mifi.notPickable');
        const now = this.d.clock.now();
        const w = this.d.ledger;
        const paymentId = await this.d.payments.record({
          providerId: provider.id,
          result,
          userId: user.id,
          orderId: cur.order_id,
          purpose: a.purpose,
          amount: a.amount,
          currency: a.currency,
        });
        const clearing = await w.account(providerOwner(provider.id), 'clearing', a.currency);
        const hold = await w.account(userOwner(user.id), 'deposit_hold', a.currency);
        let holdId: string;
        if (result.status === 'authorized') {
          holdId = await w.transfer({
            debit: clearing,
            credit: hold,
            amount: a.amount,
            code: 'mifi_deposit_preauth',
            orderId: cur.order_id,
            at: now,
            pending: true,
          });
          if (result.captureBefore) {
            const at = new Date(Math.max(now.getTime(), result.captureBefore.getTime() - HOLD_RENEW_MARGIN_MS));
            await this.d.jobs.enqueue(JOB_MIFI_HOLD_EXPIRY, { packageId: cur.id, paymentId }, at);
          }
        } else {
          const wal = await w.account(userOwner(user.id), 'wallet', a.currency);
          await w.transfer({
            debit: clearing,
            credit: wal,
            amount: a.amount,
            code: 'mifi_topup',
            orderId: cur.order_id,
            at: now,
          });
          holdId = await w.transfer({
            debit: wal,
            credit: hold,
            amount: a.amount,
            code: 'mifi_deposit',
            orderId: cur.order_id,
            at: now,
            pending: true,
            mustNotOverdraw: true,
          });
        }
        await this.d.repo.setDevice(cur.id, {
          deviceOrderStatus: DOS.awaitingPickup,
          holdTransferId: holdId,
          deposit: a.amount,
          depositPaymentId: paymentId,
        });
      }
      await this.s.paying.cancelGuards(a, result.ref);
      if (receipt) await commitIdempotencyKey(await receipt());
    });
  }

  /**
   * A box deposit's hold is about to lapse while the box is still out (or still to be picked up): it is captured
   * now and kept, in one unit of work, as a deposit held from the wallet (clearing → deposit hold posted, → wallet,
   * → deposit hold pending), so the box never loses its guarantee; the box's return releases it to the wallet.
   * If the box came back while the capture was made, the money captured is refunded.
   */
  async holdExpiring(packageId: string, paymentId: string) {
    const p = await this.d.repo.pkg(packageId);
    if (p?.deposit_payment_id !== paymentId || p.deposit_captured || !holdsBox(p)) return;
    const pay = await this.d.payments.find(paymentId);
    if (pay?.status !== 'authorized') return;
    const amount = Number(pay.amount);
    if ((await this.d.payments.settleAuthorization(paymentId, amount)) !== 'captured') return;
    const comp = this.d.payments.compensations(this.d.jobs);
    const jobId = await this.d.db.tx(async () => {
      const cur = (await this.d.repo.pkg(packageId, { lock: true }))!;
      if (cur.deposit_captured) return null;
      await this.d.repo.setDevice(cur.id, { depositCaptured: true });
      const now = this.d.clock.now();
      if (!holdsBox(cur) || !cur.hold_transfer_id) {
        return comp.enqueue(
          {
            providerId: pay.provider,
            ref: pay.provider_ref!,
            action: 'refund',
            amount,
            reason: `box deposit of ${cur.id} released while captured`,
          },
          now,
        );
      }
      const w = this.d.ledger;
      await w.postPending(cur.hold_transfer_id, amount, now);
      const hold = await w.account(userOwner(cur.user_id), 'deposit_hold', cur.currency);
      const wal = await w.account(userOwner(cur.user_id), 'wallet', cur.currency);
      await w.transfer({
        debit: hold,
        credit: wal,
        amount,
        code: 'mifi_deposit_captured',
        orderId: cur.order_id,
        at: now,
      });
      const holdId = await w.transfer({
        debit: wal,
        credit: hold,
        amount,
        code: 'mifi_deposit',
        orderId: cur.order_id,
        at: now,
        pending: true,
        mustNotOverdraw: true,
      });
      await this.d.repo.setDevice(cur.id, { holdTransferId: holdId });
      return null;
    });
    if (jobId !== null) await comp.runNow(jobId);
  }

  /**
   * In the caller's unit of work: a package's box deposit is no longer needed (the box came back, the package was
   * cancelled): its hold in the ledger is voided (back to the wallet), and a hold at the provider released.
   */
  async releaseDeposit(p: PackageRow, now: Date) {
    if (!p.hold_transfer_id || p.deposit <= 0) return;
    await this.d.ledger.voidPending(p.hold_transfer_id, now);
    if (!p.deposit_payment_id || p.deposit_captured) return;
    await this.d.jobs.cancel(JOB_MIFI_HOLD_EXPIRY, 'packageId', p.id);
    if ((await this.d.payments.find(p.deposit_payment_id))?.status === 'authorized') {
      await this.d.jobs.enqueue(JOB_MIFI_RELEASE_HOLD, { paymentId: p.deposit_payment_id }, now);
    }
  }
}
