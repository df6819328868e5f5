// Buying a package order (rent) and settling a paid order into the ledger (cancelling: cancelling.ts).
import {
  DEVICE_ORDER_STATUS as DOS,
  endTime,
  ORDER_TYPE,
  PACKAGE_STATUS as PS,
  packagePrice,
  startTime,
} from '#core/mifi.ts';
import { toMinor } from '#core/money.ts';
import { badRequest, conflict, notFound, refused } from '../../lib/errors.ts';
import { orderNo } from '../../lib/ids.ts';
import type { UserRow } from '../auth/service.ts';
import { cabinetCodeFrom } from '#core/codeLink.ts';
import { PLATFORM, userOwner } from '../ledger/service.ts';
import type { MifiRentBody } from '#contract/mifi.ts';
import type { SkuRow } from './catalogue-repository.ts';
import type { PackageRow } from './repository.ts';
import { JOB_MIFI_TICK, MifiPart } from './shared.ts';

export class MifiOrders extends MifiPart {
  /**
   * POST chargenow/mifi/rent: the order of spec "Mifi order submit", priced by the server, paid with any method or
   * the wallet. A payment the customer must finish answers `action`, the order made and unpaid (33); the call
   * repeated with `paymentIntent` resumes the payment of the order it was started for (only its payer's).
   */
  async rent(user: UserRow, b: MifiRentBody, agent?: string) {
    if (b.paymentIntent) {
      const provider = this.d.payments.requireProvider(b.paymentId, agent);
      const a = await this.d.repo.action(provider.id, b.paymentIntent);
      if (!a || a.user_id !== user.id) throw refused('error.payment.token_invalid');
      // A box only (order type 3): the payment it started is its box deposit's.
      if (a.package_id) return this.rentDevice(user, b, a.package_id, agent);
      const action = await this.s.paying.pay(
        user,
        a.order_id,
        { paymentId: b.paymentId, paymentIntent: b.paymentIntent, agent },
        () => this.rentResult(a.order_id),
      );
      if (!action && b.ejectOrNot === 1) await this.ejectPaid(user, a.order_id);
      return { ...(await this.rentResult(a.order_id)), ...(action ? { action } : {}) };
    }
    const o = b.orderSubmit;
    if (!o) throw badRequest('error.validation.field', { field: 'orderSubmit' });
    const type = o.orderType as 0 | 1 | 2 | 3;
    const currency = o.currency.toUpperCase();
    if (type === ORDER_TYPE.deviceOnly) {
      const dtl = o.submitDtlDtoList[0]!;
      const id = dtl.mifiOrderId ?? dtl.pickUpOrderId;
      if (!id) throw badRequest('error.validation.field', { field: 'mifiOrderId' });
      const p = await this.s.reads.own(user, id);
      // The client's total is the box deposit the server asks (a stale one is refused, never charged).
      if (currency !== p.currency) throw badRequest('error.validation.field', { field: 'currency' });
      if (toMinor(o.totalAmount, currency) !== (await this.s.catalogue.boxDeposit(currency)))
        throw conflict('error.mifi.priceChanged');
      return this.rentDevice(user, b, p.id, agent);
    }
    const now = this.d.clock.now();
    const withDevice = type === ORDER_TYPE.devicePackage;
    const deposit = withDevice ? await this.s.catalogue.boxDeposit(currency) : 0;
    // A box is rented only against a deposit: no box is sold in a currency without one (no venue rents boxes in it).
    if (withDevice && deposit <= 0) throw conflict('error.mifi.noBoxInCurrency', { currency });
    // Ejected with the purchase (ejectOrNot=1): the cabinet must take this currency, checked before anything is charged.
    const eject =
      withDevice && b.ejectOrNot === 1 && b.qrcode ? await this.s.boxes.cabinetFor(b.qrcode, currency) : null;
    const lines: {
      sku: SkuRow;
      days: number;
      start: number;
      end: number;
      renewalOf: PackageRow | null;
      zone: string;
    }[] = [];
    for (const dtl of o.submitDtlDtoList) {
      let renewalOf: PackageRow | null = null;
      let skuId = dtl.skuId;
      if (type === ORDER_TYPE.renewal) {
        const id = dtl.mifiOrderId ?? dtl.pickUpOrderId;
        renewalOf = id ? ((await this.d.repo.pkg(id)) ?? null) : null;
        if (renewalOf?.user_id !== user.id) throw notFound('error.mifi.orderNotFound');
        if (![PS.toBeActivated, PS.activated, PS.unused].includes(renewalOf.status as never))
          throw conflict('error.mifi.notRenewable');
        skuId ??= renewalOf.sku_id;
      }
      if (!skuId) throw badRequest('error.validation.field', { field: 'skuId' });
      const sku = await this.d.catalogueRepo.sku(skuId, currency);
      if (!sku) throw notFound('error.mifi.packageNotFound');
      const days = sku.is_package ? sku.days : (dtl.selectDays ?? sku.days);
      const chosen =
        dtl.reserverStartTime === undefined
          ? null
          : typeof dtl.reserverStartTime === 'number'
            ? dtl.reserverStartTime
            : Date.parse(dtl.reserverStartTime);
      if (chosen !== null && Number.isNaN(chosen))
        throw badRequest('error.validation.field', { field: 'reserverStartTime' });
      // A renewal continues where the package ends (or now, whichever is later).
      const start = renewalOf
        ? Math.max(new Date(renewalOf.end_at).getTime(), now.getTime())
        : startTime(chosen, now.getTime(), true);
      const zone = sku.time_zone ?? (await this.d.catalogueRepo.regionZones(sku.region_id))[0] ?? 'UTC';
      lines.push({ sku, days, start, end: endTime(start, days), renewalOf, zone });
    }
    const packagesTotal = lines.reduce(
      (s, l) => s + packagePrice({ isPackage: l.sku.is_package, price: l.sku.price, selectDays: l.days }),
      0,
    );
    const total = packagesTotal + deposit;
    // The client's total must be the server's (rule in src/core/mifi.ts): a stale price is refused, never charged.
    if (toMinor(o.totalAmount, currency) !== total) throw conflict('error.mifi.priceChanged');
    let cabinetId: string | null = null;
    if (b.qrcode) cabinetId = cabinetCodeFrom(b.qrcode) ?? null;
    const orderId = orderNo(now).replace(/^PO/, 'MF');
    const pkgIds: string[] = [];
    await this.d.db.tx(async () => {
      await this.d.repo.insertOrder({
        id: orderId,
        user_id: user.id,
        order_type: type,
        currency,
        total,
        deposit,
        status: PS.unpaid,
        cabinet_id: cabinetId,
        created_at: now,
      });
      let i = 0;
      for (const l of lines) {
        const id = `${orderId}-${++i}`;
        pkgIds.push(id);
        await this.d.repo.insertPackage({
          id,
          order_id: orderId,
          user_id: user.id,
          sku_id: l.sku.id,
          package_name: this.s.catalogue.name(l.sku),
          country: l.sku.country_code,
          time_zone: l.zone,
          days: l.days,
          price: packagePrice({ isPackage: l.sku.is_package, price: l.sku.price, selectDays: l.days }),
          deposit: i === 1 ? deposit : 0,
          currency,
          start_at: new Date(l.start),
          end_at: new Date(l.end),
          status: PS.unpaid,
          device_order_status:
            withDevice && i === 1 ? DOS.awaitingPickup : l.renewalOf?.device_sn ? DOS.withUser : DOS.none,
          device_sn: l.renewalOf?.device_sn ?? null,
          renewal_of: l.renewalOf?.id ?? null,
          created_at: now,
        });
      }
    });
    const action = await this.s.paying.pay(
      user,
      orderId,
      {
        paymentId: b.paymentId,
        token: b.stripeToken,
        returnUrl: b.returnUrl,
        agent,
        couponNo: b.couponNo,
        useWallet: b.useWallet === 1,
      },
      () => this.rentResult(orderId),
    );
    if (!action && eject) await this.ejectPaid(user, orderId);
    return { ...(await this.rentResult(orderId)), ...(action ? { action } : {}) };
  }

  /**
   * ejectOrNot=1: once the order is paid, the cabinet it was bought at (its qrcode, kept on the order) ejects its box,
   * by the pickup path. The purchase stands if the eject cannot start (cabinet offline, no box): it is logged, and
   * the package waits for a pickup (5) as any other.
   */
  private async ejectPaid(user: UserRow, orderId: string) {
    const order = await this.d.repo.order(orderId);
    const first = (await this.d.repo.packagesOfOrder(orderId))[0];
    if (
      !order?.cabinet_id ||
      !first ||
      order.order_type !== ORDER_TYPE.devicePackage ||
      first.device_sn ||
      first.pickup_state !== 0
    )
      return;
    await this.s.boxes
      .pickup(user, order.cabinet_id, first.id)
      .catch((err: unknown) =>
        this.d.log.warn({ err, orderId }, 'box not ejected with the purchase: the package waits for its pickup'),
      );
  }

  /**
   * Order type 3 (device only): the box for a package the person bought without one, paid as its box deposit (the
   * cabinetDisposit rule: wallet, a hold, or paid into the wallet and held); with ejectOrNot=1 and the cabinet's
   * qrcode, the box comes out there once the deposit is held (as a pickup; the deposit stands if it cannot).
   */
  private async rentDevice(user: UserRow, b: MifiRentBody, packageId: string, agent?: string) {
    const p = await this.s.reads.own(user, packageId);
    const result = () => this.rentResult(p.order_id, p.id);
    const action = await this.s.deposits.payDeposit(
      user,
      {
        mifiOrderId: p.id,
        paymentId: b.paymentId,
        stripeToken: b.stripeToken,
        paymentIntent: b.paymentIntent,
        returnUrl: b.returnUrl,
      },
      agent,
      result,
    );
    if (!action && b.ejectOrNot === 1 && b.qrcode) {
      await this.s.boxes
        .pickup(user, b.qrcode, p.id)
        .catch((err: unknown) =>
          this.d.log.warn(
            { err, packageId: p.id },
            'box not ejected with its deposit: the package waits for its pickup',
          ),
        );
    }
    return { ...(await result()), ...(action ? { action } : {}) };
  }

  /** The order result as rent answers it: the first package (or the one named), orderStatus 0 once paid, 33 while unpaid. */
  private async rentResult(orderId: string, packageId?: string) {
    const pkgs = await this.d.repo.packagesOfOrder(orderId);
    const first = pkgs.find((p) => p.id === packageId) ?? pkgs[0]!;
    return {
      orderId: first.id,
      orderStatus: first.status === PS.unpaid ? 33 : 0,
      type: 'mifi',
      out_trade_no: orderId,
      pay_type: 'mifi',
      buyOrderNo: orderId,
      shebei: first.device_sn ?? '',
      number: pkgs.length,
    };
  }

  /**
   * In the caller's unit of work: wallet → revenue (the packages less their coupon's discount, which the coupon's
   * redemption credits to revenue) and → deposit hold (the box), packages 33 → 0.
   */
  async settlePaid(orderId: string, userId: number, paymentId: string | null, from: 'card' | 'wallet', discount = 0) {
    const now = this.d.clock.now();
    const order = (await this.d.repo.order(orderId))!;
    const w = this.d.ledger;
    const wal = await w.account(userOwner(userId), 'wallet', order.currency);
    const revenue = await w.account(PLATFORM, 'revenue', order.currency);
    const packages = order.total - order.deposit - discount;
    if (packages > 0)
      await w.transfer({
        debit: wal,
        credit: revenue,
        amount: packages,
        code: 'mifi_package',
        orderId,
        at: now,
        mustNotOverdraw: true,
      });
    let holdId: string | undefined;
    if (order.deposit > 0) {
      const hold = await w.account(userOwner(userId), 'deposit_hold', order.currency);
      holdId = await w.transfer({
        debit: wal,
        credit: hold,
        amount: order.deposit,
        code: 'mifi_deposit',
        orderId,
        at: now,
        pending: true,
        mustNotOverdraw: true,
      });
    }
    await this.d.repo.orderPaid(orderId, paymentId, from, now, discount);
    const pkgs = await this.d.repo.packagesOfOrder(orderId);
    for (const [i, share] of shares(
      discount,
      pkgs.map((p) => p.price),
    ).entries())
      if (share > 0) await this.d.repo.setDiscount(pkgs[i]!.id, share);
    for (const p of pkgs) {
      // A renewal of a box already with the user waits for its start; anything else waits for its box.
      const to = p.device_sn ? PS.toBeActivated : PS.unused;
      await this.d.repo.move(p.id, PS.unpaid, to);
      if (holdId && p.deposit > 0) await this.d.repo.setDevice(p.id, { holdTransferId: holdId });
      if (to === PS.toBeActivated) await this.schedule(p.id, new Date(p.start_at));
    }
  }

  async schedule(packageId: string, at: Date) {
    await this.d.jobs.enqueue(JOB_MIFI_TICK, { packageId }, at);
  }
}

/** A discount split over the packages of an order by their prices (floored), the rest to the first: it sums to the discount. */
export function shares(discount: number, prices: number[]): number[] {
  const total = prices.reduce((a, b) => a + b, 0);
  if (discount <= 0 || total <= 0) return prices.map(() => 0);
  const out = prices.map((p) => Math.floor((discount * Math.min(p, total)) / total));
  // The units the floors left, one each to the packages that still have room (a discount is never above the price).
  let rest = Math.min(discount, total) - out.reduce((a, b) => a + b, 0);
  for (let i = 0; rest > 0; i = (i + 1) % out.length) {
    if (out[i]! < prices[i]!) {
      out[i]! += 1;
      rest--;
    }
  }
  return out;
}
