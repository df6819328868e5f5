// Wi-Fi boxes and data packages: what the parts of the module share.
//
// A package is bought (payType mifi) through the payment layer and the ledger: the package price is revenue, a
// box deposit is held (pending) in the user's deposit_hold account until the box comes back. The state machine of
// src/core/mifi.ts: 33 unpaid → 0 unused → (box bound) 1 to be activated → 2 activated at its start time or first
// traffic → 9 ended at its end; 0 → 3 revoked by the user (card refunded or wallet credited) → 4 refunded; a
// box returned while its package runs ends it (4 returned); 33 → 88 cancelled. docs/payments.md "Wi-Fi packages".
//
// Every payment method pays: a payment its customer finishes elsewhere (3-D Secure, a provider's page, a phone
// prompt) answers `action` and is resumed with paymentIntent (payWith), guarded by payments' charge guard from before the
// provider call until an order or deposit takes it, or it is released. A box deposit paid on its own is held by a
// method that can hold (released at the box's return, captured before it lapses), else paid into the wallet.
//
// The module's service is MifiService (service.ts); its use cases are the parts below it, one file each, which
// share these deps and call each other through MifiParts.
import { DEVICE_ORDER_STATUS as DOS, PACKAGE_STATUS as PS } from '#core/mifi.ts';
import type { Db } from '../../db/db.ts';
import type { JobRunner } from '../../jobs/runner.ts';
import type { Clock } from '../../lib/clock.ts';
import type { CabinetLink, Logger } from '../cabinets/link.ts';
import type { LiveService } from '../live/service.ts';
import type { CabinetStock } from '../cabinets/stock.ts';
import { type LedgerService } from '../ledger/service.ts';
import type { AuthorizeResult } from '../payments/provider.ts';
import { conflict, refused } from '../../lib/errors.ts';
import type { PaymentsService } from '../payments/service.ts';
import type { CouponsService } from '../coupons/service.ts';
import { type VenuesService } from '../venues/service.ts';
import type { MifiBoxesRepository } from './boxes-repository.ts';
import type { MifiCatalogueRepository } from './catalogue-repository.ts';
import type { MifiRepository, PackageRow } from './repository.ts';

export const JOB_MIFI_TICK = 'mifi.tick';
/** Sends a box its new Wi-Fi password until it confirms it (rotation.ts). */
export const JOB_MIFI_ROTATE = 'mifi.wifi-password';
export const JOB_MIFI_REFUND = 'mifi.refund';
/**
 * The guard kind Wi-Fi payments used before payments owned the one charge guard (payments/guards.ts): still
 * registered, as an alias routed into it, so that jobs already queued in a database run. Nothing new is queued under it.
 */
export const JOB_MIFI_ORPHAN = 'mifi.orphan-charge';
/** The purpose handler of a Wi-Fi payment's charge guard (a package order, a box deposit). */
export const MIFI_PAYMENT = 'mifi_payment';
/** Releases a box deposit's hold at the provider (the box came back, or its package was cancelled). */
export const JOB_MIFI_RELEASE_HOLD = 'mifi.release-hold';
/** Before a box deposit's hold lapses (capture_before): captured, and kept as a deposit in the wallet's hold. */
export const JOB_MIFI_HOLD_EXPIRY = 'mifi.hold-expiry';
export const STATUS_TITLE: Record<number, string> = {
  0: 'unused',
  1: 'toBeActivated',
  2: 'activated',
  3: 'revoked',
  4: 'refunded',
  9: 'ended',
  33: 'unpaid',
  88: 'cancelled',
};

/** A paying call: the method, and a new payment's token or the payment to resume. */
export interface PayCall {
  paymentId: string;
  token?: string;
  paymentIntent?: string;
  returnUrl?: string;
  agent?: string;
  /** A package order's coupon (off the packages' price), and whether the wallet pays what it can before the method. */
  couponNo?: string;
  useWallet?: boolean;
}
/** What a payment pays: an order (packageId null) or the box deposit of a package. */
export interface Target {
  orderId: string;
  packageId: string | null;
  amount: number;
  currency: string;
  capture: 'automatic' | 'manual';
  key: string;
  coupon?: { id: string; discount: number } | null;
}
/** One payment with a method, as its guard job keeps it. */
export interface Attempt {
  paymentId: string;
  agent: string | null;
  userId: number;
  orderId: string;
  packageId: string | null;
  amount: number;
  currency: string;
  capture: 'automatic' | 'manual';
  purpose: string;
  methodType: string | null;
  /** A new payment: its token and the provider's idempotency key; a payment waiting for its customer: its ref. */
  token: string | null;
  idempotencyKey: string | null;
  ref: string | null;
  /** The coupon use reserved for this order's payment (redeemed with it, released with it); the rest of the order the wallet pays. */
  coupon?: { id: string; discount: number } | null;
}
export type Taken = Extract<AuthorizeResult, { ok: true; status: 'authorized' | 'captured' }>;
/** A package that can take a box deposit: no box ordered yet, unused or waiting for its start. */
export const pickable = (p: PackageRow) =>
  p.device_order_status === DOS.none && !p.device_sn && (p.status === PS.unused || p.status === PS.toBeActivated);
/**
 * The one rule of a box handed to a package (pickup by scan, bindSn by QR): paid and not over (unused, waiting or
 * running), no box yet, and its box deposit held (awaiting its pickup, a deposit above zero with its hold).
 * Unpaid (33), cancelled (88), revoked (3), refunded (4) or ended (9) packages never get a box.
 */
export function assertHandable(p: PackageRow) {
  if (p.device_sn || !(p.status === PS.unused || p.status === PS.toBeActivated || p.status === PS.activated))
    throw conflict('error.mifi.notPickable');
  if (p.device_order_status !== DOS.awaitingPickup || p.deposit <= 0 || !p.hold_transfer_id)
    throw refused('error.mifi.depositFirst');
}
/** A package whose box deposit guards a box still to be picked up or with the user (not returned, not cancelled). */
export const holdsBox = (p: PackageRow) =>
  (p.device_order_status === DOS.awaitingPickup || p.device_order_status === DOS.withUser) &&
  p.status !== PS.revoked &&
  p.status !== PS.refunded;
/** The payments row's purpose: the order's payment, a box deposit held by the method, or paid into the wallet. */
export const purposeOf = (packageId: string | null, capture: 'automatic' | 'manual') =>
  !packageId ? 'mifi' : capture === 'manual' ? 'mifi_deposit_hold' : 'mifi_deposit';

export interface MifiDeps {
  db: Db;
  clock: Clock;
  log: Logger;
  repo: MifiRepository;
  catalogueRepo: MifiCatalogueRepository;
  boxesRepo: MifiBoxesRepository;
  cabinets: CabinetStock;
  venues: VenuesService;
  ledger: LedgerService;
  payments: PaymentsService;
  coupons: CouponsService;
  link: CabinetLink;
  jobs: JobRunner;
  ejectTtlMs: number;
  /** The holder's screens follow their box (bound, its reports, its return) through the live stream. */
  live: LiveService;
}

/** The use cases of the Wi-Fi module, one object each; a part calls another through `s`. */
export interface MifiParts {
  catalogue: import('./catalogue.ts').MifiCatalogue;
  orders: import('./orders.ts').MifiOrders;
  cancelling: import('./cancelling.ts').MifiCancelling;
  paying: import('./paying.ts').MifiPaying;
  deposits: import('./deposits.ts').MifiDeposits;
  boxes: import('./boxes.ts').MifiBoxes;
  reads: import('./reads.ts').MifiReads;
  rotation: import('./rotation.ts').MifiRotation;
}

export abstract class MifiPart {
  constructor(
    protected readonly d: MifiDeps,
    protected readonly s: MifiParts,
  ) {}
}
