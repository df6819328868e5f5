// Reading orders: the rider's and the public shared view, and their wire shapes.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { orderPType } from '#core/devices.ts';
import { toMajor } from '#core/money.ts';
import { billedMinutes, buyOutAt, buyOutFee, countedMs, pausesOf, rentalFee } from '#core/pricing.ts';
import { notFound } from '../../lib/errors.ts';
import type { UserRow } from '../auth/service.ts';
import { currencySymbol } from '../venues/service.ts';
import { activeGrace } from './grace.ts';
import { Zujie } from './order-state.ts';
import type { OrderRow } from './repository.ts';
import { RentalsPart, DEDUCTION_FAILED_NOTE } from './shared.ts';

export abstract class RentalsReads extends RentalsPart {
  async check(user: UserRow, tradeNo: string) {
    const order = await this.d.repo.find(tradeNo);
    if (!order || order.user_id !== user.id) throw notFound('error.orderNotFound');
    return order;
  }

  /** The owner's share link sign for the token-less detail (made once, then the same). */
  async share(user: UserRow, orderId: string): Promise<{ orderId: string; sign: string }> {
    const order = await this.check(user, orderId);
    const sign = order.share_sign ?? (await this.d.repo.shareSign(order.id, randomBytes(32).toString('base64url')));
    return { orderId: order.id, sign };
  }

  /**
   * The token-less detail: only with the order's share sign (constant-time compare); a wrong sign
   * and an unknown order give the same not-found, so nothing is learnt by probing.
   */
  async publicDetail(orderId: string, sign: string) {
    const order = await this.d.repo.find(orderId);
    const stored = order?.share_sign ?? '';
    const a = Buffer.from(stored);
    const b = Buffer.from(sign);
    if (!order || !stored || a.length !== b.length || !timingSafeEqual(a, b)) throw notFound('error.orderNotFound');
    return order;
  }

  /** What the token-less detail shows: status, times, fee rule, estimate; nothing about the user. */
  toPublicWire(o: OrderRow) {
    const w = this.toWire(o);
    return {
      pOrderid: w.pOrderid,
      pZujie: w.pZujie,
      pJiesuanid: w.pJiesuanid,
      pBorrowtime: w.pBorrowtime,
      pGhtime: w.pGhtime,
      pShopName: w.pShopName,
      pGhShopName: w.pGhShopName,
      pUseMins: w.pUseMins,
      pJiesuan: w.pJiesuan,
      pCurrency: w.pCurrency,
      pCurrencyName: w.pCurrencyName,
      pYajin: w.pYajin,
      pJifei: w.pJifei,
      pJifeiDanwei: w.pJifeiDanwei,
      pFengding: w.pFengding,
      priceUnit: w.priceUnit,
      overtimeAmount: w.overtimeAmount,
      estimatedAmount: w.estimatedAmount,
      boughtOut: w.boughtOut,
      buyOutAt: w.buyOutAt,
      buyOutAmount: w.buyOutAmount,
      /** The order's price plan in minor units: the page previews the running fee with src/core/pricing.ts. */
      plan: o.plan,
      /** Order state 4: when the power bank was reported faulty (the estimate stops there). */
      faultAt: o.fault_at ? new Date(o.fault_at).toISOString() : null,
      /** The grace periods (from, until): the page's running fee leaves them out, as the server does. */
      grace: w.grace,
      serverTime: this.d.clock.now().toISOString(),
    };
  }

  async list(user: UserRow, page: number, size: number) {
    return this.d.repo.list(user.id, page, size);
  }

  /** The rider's rental with a device out, if any (a return slot is reserved for it). */
  async renting(userId: number) {
    const o = await this.d.repo.renting(userId);
    return o ? { id: o.id, powerbankId: o.powerbank_id } : undefined;
  }

  async openCount(userId: number) {
    return this.d.repo.openCount(userId);
  }

  /** Which of these power banks are on an open rental (a cabinet listing one in a slot settles it). */
  async openPowerbanks(ids: string[]) {
    return ids.length ? this.d.repo.openPowerbanks(ids) : [];
  }

  /** The operator contract's Order. */
  toWire(o: OrderRow) {
    const c = o.currency;
    const w = o.wire_strategy;
    const open = !o.settled && (o.zujie === Zujie.renting || o.zujie === Zujie.fault);
    const boughtOut = o.bought_out_at != null;
    const now = this.d.clock.now();
    // A faulty power bank (state 4) stops accruing at the fault report.
    const end = o.returned_at ?? (o.fault_at && new Date(o.fault_at) < now ? new Date(o.fault_at) : now);
    const pauses = pausesOf(o.grace);
    const elapsed = o.borrowed_at ? countedMs(new Date(o.borrowed_at).getTime(), new Date(end).getTime(), pauses) : 0;
    return {
      pOrderid: o.id,
      pType: orderPType(o.device_kind),
      /** Powerly extension: the device rented (src/core/devices.ts). */
      deviceType: o.device_kind,
      pZujie: o.zujie,
      pJiesuanid: o.settled && o.zujie !== Zujie.cancelled ? 1 : 0,
      pBorrowtime: (o.borrowed_at ?? o.created_at).toISOString(),
      pGhtime: o.returned_at ? new Date(o.returned_at).toISOString() : null,
      pShopName: o.venue_name ?? '',
      pGhShopName: o.return_venue_name ?? '',
      pUseMins: o.use_minutes ?? (open ? billedMinutes(elapsed) : 0),
      pJiesuan: toMajor(o.fee ?? 0, c),
      pCurrency: c,
      pCurrencyName: currencySymbol(c),
      pYajin: toMajor(o.deposit, c),
      pJifei: w.pPrice,
      pJifeiDanwei: w.pPriceMinute,
      pFengding: w.pDayAmount,
      priceUnit: w.priceUnit,
      overtimeAmount: w.pOvertimeAmount,
      pUserid: o.user_id,
      pCabinetid: o.cabinet_id,
      pPowerbankId: o.powerbank_id ?? '',
      /** The deduction failed: the order list shows a pay button (payType FK) for what is owed. */
      palipayjsSm: Number(o.debt ?? 0) > 0 && !o.debt_paid_at ? DEDUCTION_FAILED_NOTE : '',
      debtAmount: Number(o.debt ?? 0) > 0 && !o.debt_paid_at ? toMajor(Number(o.debt), c) : 0,
      estimatedAmount: toMajor(open ? rentalFee(o.plan, elapsed) : Number(o.fee ?? 0), c),
      /** Powerly extension: the order was closed as bought out (the overtime period passed, or the user bought it). */
      boughtOut,
      /** Powerly extension: when an open order is bought out if still not returned. */
      buyOutAt: o.borrowed_at ? buyOutAt(o.plan, new Date(o.borrowed_at), pauses).toISOString() : null,
      /** Powerly extension: the buy-out fee of this order's plan. */
      buyOutAmount: toMajor(buyOutFee(o.plan), c),
      depositFrom: o.payment_id ? ('card' as const) : ('wallet' as const),
      /** Powerly extension: the grace periods granted (the rental does not count inside them), oldest first. */
      grace: graceWire(o),
      /** Powerly extension: the end of the grace period running now (by the server's clock), else null. */
      graceUntil: activeGrace(o, now)?.until ?? null,
    };
  }
}

/** An order's grace periods as the rider's screens read them (the evidence stays with the desk). */
export function graceWire(o: Pick<OrderRow, 'grace'>) {
  return (o.grace ?? []).map((g) => ({ from: g.from, until: g.until, reason: g.reason }));
}
