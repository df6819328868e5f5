// What the parts of the rentals service share: their dependencies, job kinds, the shapes of a funding and an order's
// deposit input, and the base every part extends.
import type { OrderRow } from './repository.ts';
import { cabinetCodeFrom } from '#core/codeLink.ts';
import { type RentalKind } from '#core/devices.ts';
import { type Db } from '../../db/db.ts';
import type { JobRunner } from '../../jobs/runner.ts';
import type { Clock } from '../../lib/clock.ts';
import type { AuthService } from '../auth/service.ts';
import type { CabinetLink, Logger } from '../cabinets/link.ts';
import type { CabinetStock } from '../cabinets/stock.ts';
import { PaymentsService } from '../payments/service.ts';
import { type AuthorizeResult, type PaymentProvider } from '../payments/provider.ts';
import { chargeGuardsOf } from '../payments/guards.ts';
import { type VenuesService } from '../venues/service.ts';
import { type LedgerService } from '../ledger/service.ts';
import type { RentalsRepository } from './repository.ts';
import type { LiveService } from '../live/service.ts';
import type { DepositReturns } from './deposit-returns.ts';
import type { CouponsService } from '../coupons/service.ts';

export interface RentalsDeps {
  db: Db;
  clock: Clock;
  log: Logger;
  repo: RentalsRepository;
  /** The users' rows (auth module): a user's rentals are serialised on it, and it keeps the last currency. */
  users: Pick<AuthService, 'lock'>;
  cabinets: CabinetStock;
  venues: VenuesService;
  ledger: LedgerService;
  payments: PaymentsService;
  link: CabinetLink;
  jobs: JobRunner;
  /** How long a cabinet may take to eject before the order is cancelled and the hold voided. */
  ejectTtlMs: number;
  /** Extra wait after the TTL for a popped event already in flight. */
  ejectGraceMs: number;
  /** Tells the user's open screens that an order changed (delivered when the unit of work commits). */
  live: Pick<LiveService, 'publish'>;
  /** Partners' revenue share (modules/partners): told, in the same unit of work, when a rental's rent moves on the ledger. */
  partners: { rentLedgerChanged(orderId: string): Promise<void> };
  /** Where a cancelled rental's deposit top-up goes back (deposit-returns.ts). */
  depositReturns?: Pick<DepositReturns, 'cancelled'>;
  /**
   * Receipts and reminders (modules/notify/notices.ts), told of each transition in its unit of work (with the order
   * as it now is, when the caller has it).
   */
  notices?: { changed(orderId: string, state: number, order?: OrderRow): Promise<void> };
  /** Days after a buy-out within which a returned power bank gets it back, less the rent (per the venue's agent). */
  buyOutReversalDays?: (venueId: string) => Promise<number>;
  /** Coupons lowering what a debt payment charges. */
  coupons: CouponsService;
}

/** A debt payment's charge: what is charged (`amount`), the debt it pays (`gross`) and the coupon's reserved use. */
export interface DebtCharge {
  orderId: string;
  userId: number;
  amount: number;
  currency: string;
  gross: number;
  coupon: { id: string; discount: number } | null;
}

export const JOB_EJECT_TIMEOUT = 'rental.eject-timeout';
export const JOB_SETTLE_PAYMENT = 'payment.settle-authorization';
export const JOB_BUY_OUT = 'rental.overtime-buy-out';
/**
 * The guard kinds rentals used before payments owned the one charge guard (payments/guards.ts): still registered,
 * as aliases routed into it, so that jobs already queued in a database run. Nothing new is queued under them.
 */
export const JOB_ORPHAN_AUTH = 'rental.orphan-authorisation';
export const JOB_DEBT_GUARD = 'rental.debt-guard';
/** The purpose handlers rentals registers with the charge guard: a rental's deposit, and a debt payment (payType FK). */
export const RENTAL_DEPOSIT = 'rental_deposit';
export const RENTAL_DEBT = 'rental_debt';
/** Before a card hold lapses (capture_before) on an open rental: renew it off-session, else capture it. */
export const JOB_HOLD_EXPIRY = 'rental.hold-expiry';
/** A rent above the hold: the rest is charged off-session on the saved card (or becomes a debt, payType FK). */
export const JOB_CHARGE_EXTRA = 'rental.charge-extra';
/** A refund to the card a rental was paid with (a bought-out power bank came back, a return corrected earlier). */
export const JOB_REFUND_CARD = 'payment.refund-card';
/** The refund of a support desk correction's card part at the provider: once per correction (its key), recorded once. */
export const JOB_DESK_REFUND = 'rental.desk-refund';

/**
 * What the card of a rental's payment can still take back: the payment's refund room (PaymentsService.refundRoom)
 * less the card refunds of this module whose jobs have not run yet. A refund to the card is at most this; the rest
 * goes to the rider's wallet.
 */
export async function cardRoom(d: { jobs: JobRunner; payments: PaymentsService }, paymentId: string): Promise<number> {
  const jobs = await d.jobs.unfinished([JOB_REFUND_CARD, JOB_DESK_REFUND], 'paymentId', paymentId);
  return d.payments.refundRoom(
    paymentId,
    jobs.map((p) => ({ key: String(p.key), amount: Number(p.amount) })),
  );
}
/** How long before capture_before the hold is dealt with (a failed job still has a day of retries). */
export const HOLD_RENEW_MARGIN_MS = 24 * 3_600_000;
/** The operator contract's note of an order whose deduction failed (it shows the FK pay button). */
export const DEDUCTION_FAILED_NOTE = '扣款失败';

/** Parses a scanned code: the bare cabinet code or a code link (qrcode=, qr=, zhcode=; src/core/codeLink.ts). */
export { cabinetCodeFrom };

/** A rental's orphan guard (see rentWithDeposit): settled once it is no longer needed; cancelled with the order. */
export type GuardState = { settled: boolean; guardId?: number; cancelled?: boolean };
export type Settled = Extract<AuthorizeResult, { ok: true; status: 'authorized' | 'captured' }>;
export type Funding =
  | { kind: 'preauth'; provider: PaymentProvider; result: Settled }
  | { kind: 'wallet'; topUp: { provider: PaymentProvider; result: Settled; amount: number } | null };

/** A paying call's outcome and its wire form: payments' (service-shapes.ts). */
export { paid, type ActionRequired } from '../payments/service.ts';

export interface DepositInput {
  qrcode: string;
  token: string;
  paymentId: string;
  /** The payment intent the customer finished (after ActionRequired): resumed instead of a new payment. */
  paymentIntent?: string;
  agent?: string;
  returnUrl?: string;
  /** The device kind rented (default a power bank). */
  kind?: RentalKind;
}

/** The base of the rentals service's parts (each a use case, in its own file; RentalsService is the last). */
export abstract class RentalsPart {
  constructor(protected readonly d: RentalsDeps) {}

  /** The charge guard payments runs for every charge a rental or a debt payment starts. */
  protected get guards() {
    return chargeGuardsOf(this.d);
  }
}
