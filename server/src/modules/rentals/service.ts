// Rentals: pay or hold the deposit, create the order, command the eject; then follow the cabinet's answers
// (popped / pop-failed / no answer within the TTL) and settle on return with src/core/pricing.ts.
//
// Money moves are never half-applied: the provider call comes first (it cannot join our transaction), then one
// DB transaction writes the payment, the ledger hold, the order, the command and its timeout job. If that
// transaction fails, the provider authorisation is voided (or the charge refunded) before the error surfaces.
import { RentalsDeskSettling } from './desk-settling.ts';
import { OPEN_STATES } from './order-state.ts';
import { CLOSED_BY_RETURN } from './repository.ts';
import {
  JOB_BUY_OUT,
  JOB_CHARGE_EXTRA,
  JOB_EJECT_TIMEOUT,
  JOB_HOLD_EXPIRY,
  JOB_REFUND_CARD,
  JOB_SETTLE_PAYMENT,
  RENTAL_DEBT,
  RENTAL_DEPOSIT,
  type RentalsDeps,
} from './shared.ts';

export * from './shared.ts';
export type { OrderRow } from './repository.ts';

/** The rules on orders the cabinets' one-round-trip reads apply (cabinets/ports.ts OrderRules; given at wiring). */
export const ORDER_RULES = { open: OPEN_STATES, closedByReturn: CLOSED_BY_RETURN } as const;

/** The rentals service: its use cases are the parts it extends (shared → reads → renting → settling → returning → debts → desk-settling). */
export class RentalsService extends RentalsDeskSettling {
  constructor(d: RentalsDeps) {
    super(d);
    d.jobs.register(JOB_EJECT_TIMEOUT, (p) => this.ejectTimedOut(String(p.orderId)));
    // Payments guards every charge a rental or a debt payment starts; rentals says what its purposes do.
    this.guards.handle(RENTAL_DEPOSIT, this.depositHandler());
    this.guards.handle(RENTAL_DEBT, this.debtHandler());
    d.jobs.register(JOB_BUY_OUT, (p) => this.buyOut(String(p.orderId), 'overtime').then(() => undefined));
    d.jobs.register(JOB_SETTLE_PAYMENT, async (p) => {
      await this.d.payments.settleAuthorization(String(p.paymentId), Number(p.amount));
      // The card hold is captured or released: the order's money changed for its owner's open screens.
      if (p.orderId && p.userId)
        await this.d.live.publish(Number(p.userId), { kind: 'order', orderId: String(p.orderId) });
    });
    d.jobs.register(JOB_HOLD_EXPIRY, (p, job) =>
      this.holdExpiring(String(p.orderId), String(p.paymentId), job.attempt),
    );
    d.jobs.register(JOB_CHARGE_EXTRA, (p) => this.chargeExtra(String(p.orderId), Number(p.amount)));
    d.jobs.register(JOB_REFUND_CARD, (p) => this.refundCard(String(p.paymentId), Number(p.amount), String(p.key)));
  }
}
