// Wi-Fi boxes and data packages: the module's service, as the routes, the cabinet link and the demo call it. Each use
// case is a part of its own file (shared.ts describes the model): the catalogue, buying and cancelling, paying with
// a method, the box deposit, the box's handover and return, and the reads.
import type { DepositBody, MifiCouponBody, MifiRentBody } from '#contract/mifi.ts';
import type { PaymentAction } from '#contract/payments.ts';
import type { UserRow } from '../auth/service.ts';
import { MifiBoxes } from './boxes.ts';
import { MifiCancelling } from './cancelling.ts';
import { MifiCatalogue } from './catalogue.ts';
import { MifiDeposits } from './deposits.ts';
import { mifiPaymentHandler } from './guard.ts';
import { MifiOrders } from './orders.ts';
import { MifiPaying } from './paying.ts';
import { MifiReads } from './reads.ts';
import { MifiRotation } from './rotation.ts';
import type { PackageRow } from './repository.ts';
import {
  JOB_MIFI_HOLD_EXPIRY,
  JOB_MIFI_REFUND,
  JOB_MIFI_RELEASE_HOLD,
  JOB_MIFI_ROTATE,
  JOB_MIFI_TICK,
  MIFI_PAYMENT,
  type MifiDeps,
  type MifiParts,
  type PayCall,
} from './shared.ts';
import { chargeGuardsOf } from '../payments/guards.ts';

export {
  JOB_MIFI_HOLD_EXPIRY,
  JOB_MIFI_ORPHAN,
  JOB_MIFI_REFUND,
  JOB_MIFI_RELEASE_HOLD,
  JOB_MIFI_ROTATE,
  JOB_MIFI_TICK,
  type MifiDeps,
  type PayCall,
} from './shared.ts';

export class MifiService {
  private readonly s: MifiParts;

  constructor(private readonly d: MifiDeps) {
    const s = {} as MifiParts;
    s.catalogue = new MifiCatalogue(d, s);
    s.orders = new MifiOrders(d, s);
    s.cancelling = new MifiCancelling(d, s);
    s.paying = new MifiPaying(d, s);
    s.deposits = new MifiDeposits(d, s);
    s.boxes = new MifiBoxes(d, s);
    s.reads = new MifiReads(d, s);
    s.rotation = new MifiRotation(d, s);
    this.s = s;
    d.jobs.register(JOB_MIFI_TICK, (p) => s.reads.tick(String(p.packageId)));
    d.jobs.register(JOB_MIFI_REFUND, (p) =>
      s.cancelling.refundJob(String(p.packageId), String(p.paymentId), Number(p.amount)),
    );
    // Payments guards every Wi-Fi payment; the Wi-Fi line says what its purposes do.
    chargeGuardsOf(d).handle(MIFI_PAYMENT, mifiPaymentHandler(d));
    d.jobs.register(
      JOB_MIFI_RELEASE_HOLD,
      async (p) => void (await this.d.payments.settleAuthorization(String(p.paymentId), 0)),
    );
    d.jobs.register(JOB_MIFI_ROTATE, (p) => s.rotation.send(p));
    d.jobs.register(JOB_MIFI_HOLD_EXPIRY, (p) => s.deposits.holdExpiring(String(p.packageId), String(p.paymentId)));
  }

  // The catalogue, buying and paying.
  proxy(user: UserRow, url: string, raw: string | undefined, locale?: string) {
    return this.s.catalogue.proxy(user, url, raw, locale);
  }
  rent(user: UserRow, b: MifiRentBody, agent?: string) {
    return this.s.orders.rent(user, b, agent);
  }
  pay(user: UserRow, orderId: string, c: PayCall, receipt?: () => Promise<unknown>): Promise<PaymentAction | null> {
    return this.s.paying.pay(user, orderId, c, receipt);
  }
  cancel(user: UserRow, id: string) {
    return this.s.cancelling.cancel(user, id);
  }
  /** What a coupon takes off a package price for this rider now (nothing reserved; the paying call reserves it). */
  async couponDiscount(user: UserRow, b: MifiCouponBody, agent?: string) {
    const discount = await this.d.coupons.preview({
      code: b.couponNo,
      userId: user.id,
      agentId: agent ?? this.d.payments.platform,
      venueId: null,
      currency: b.currency.toUpperCase(),
      gross: b.amount,
    });
    return { discount };
  }
  payDeposit(
    user: UserRow,
    b: DepositBody,
    agent?: string,
    receipt?: () => Promise<unknown>,
  ): Promise<PaymentAction | null> {
    return this.s.deposits.payDeposit(user, b, agent, receipt);
  }

  // The box's handover and life (the cabinet link and the demo call these).
  pickup(user: UserRow, qrcode: string, pickOrderId: string) {
    return this.s.boxes.pickup(user, qrcode, pickOrderId);
  }
  onPopped(e: { commandId: string; powerbankId: string; ts: string }) {
    return this.s.boxes.onPopped(e);
  }
  onPopFailed(e: { commandId: string; reason: string }) {
    return this.s.boxes.onPopFailed(e);
  }
  bind(user: UserRow, sn: string, mifiOrderId: string) {
    return this.s.boxes.bind(user, sn, mifiOrderId);
  }
  /** The cabinet's `box-code-read` event: a box read the pickup code the app shows. */
  onCodeRead(e: { sn: string; code: string }) {
    return this.s.boxes.onCodeRead(e);
  }
  checkPickUp(user: UserRow, id: string) {
    return this.s.boxes.checkPickUp(user, id);
  }
  onReturned(sn: string) {
    return this.s.boxes.onReturned(sn);
  }
  /** The cabinet's `box-password` event: the box applied its new Wi-Fi password. */
  onPasswordSet(e: { commandId: string; sn: string }) {
    return this.s.rotation.confirmed(e);
  }
  /** An operator's rotation (modules/mifi/ops.ts): a new password now, as at a return, in the caller's unit of work. */
  rotatePassword(sn: string) {
    return this.s.rotation.start(sn, this.d.clock.now());
  }
  tick(packageId: string) {
    return this.s.reads.tick(packageId);
  }
  onTelemetry(e: {
    sn: string;
    ts: string;
    battery?: number | null;
    signal?: number | null;
    bytesTotal: number;
    online: boolean;
  }) {
    return this.s.reads.onTelemetry(e);
  }
  lastBytes(sn: string) {
    return this.s.reads.lastBytes(sn);
  }

  // Reads.
  packageOf(user: UserRow, id: string) {
    return this.s.reads.packageOf(user, id);
  }
  wire(user: UserRow, id: string) {
    return this.s.reads.wire(user, id);
  }
  list(user: UserRow, q: { current?: number; size?: number; isPicked?: number }) {
    return this.s.reads.list(user, q);
  }
  detail(user: UserRow, q: { orderId?: string; sn?: string }) {
    return this.s.reads.detail(user, q);
  }
  traffic(user: UserRow, sn: string, from: number, to: number) {
    return this.s.reads.traffic(user, sn, from, to);
  }
  flowUsage(user: UserRow, sn: string) {
    return this.s.reads.flowUsage(user, sn);
  }
  toWire(p: PackageRow) {
    return this.s.reads.toWire(p);
  }
}
