// Wi-Fi boxes and data packages (issue 14; spec §3, §4 package status, §7 chargenow/mifi/*).
//
// A package is bought (payType mifi) through the payment layer and the ledger: the package price is revenue, a
// box deposit is held (pending) in the user's deposit_hold account until the box comes back. The state machine of
// src/core/mifi.ts: 33 unpaid → 0 unused → (box bound) 1 to be activated → 2 activated at its start time or first
// traffic → 9 ended at its end; 0 → 3 revoked by the user (card refunded or wallet credited) → 4 refunded; a
// box returned while its package runs ends it (4 returned); 33 → 88 cancelled. docs/payments.md "Wi-Fi packages".
import { DEVICE_ORDER_STATUS as DOS, endTime, ORDER_TYPE, PACKAGE_STATUS as PS, packageName, packagePrice, startTime } from '#core/mifi.ts';
import { toMajor, toMinor } from '#core/money.ts';
import type { Db } from '../../db/db.ts';
import type { JobRunner } from '../../jobs/runner.ts';
import type { Clock } from '../../lib/clock.ts';
import { AppError, badRequest, conflict, notFound, refused } from '../../lib/errors.ts';
import { orderNo, uuid } from '../../lib/ids.ts';
import type { UserRow } from '../auth/repository.ts';
import type { CabinetLink, Logger } from '../cabinets/link.ts';
import { PROTOCOL_VERSION, type Command } from '../cabinets/protocol.ts';
import type { CabinetsRepository } from '../cabinets/repository.ts';
import { cabinetCodeFrom } from '#core/codeLink.ts';
import { PLATFORM, providerOwner, userOwner, type LedgerService } from '../ledger/service.ts';
import { declineMessageKey, type AuthorizeInput, type AuthorizeResult, type PaymentProvider } from '../payments/provider.ts';
import type { PaymentsService } from '../payments/service.ts';
import { ORPHAN_AUTH_MS } from '../rentals/service.ts';
import { currencySymbol, type VenuesService } from '../venues/service.ts';
import type { MifiRentBody, PackagePageData } from '#contract/mifi.ts';
import type { MifiRepository, PackageRow, SkuRow } from './repository.ts';

export const JOB_MIFI_TICK = 'mifi.tick';
export const JOB_MIFI_REFUND = 'mifi.refund';
/** The crash guard of a card charge for a package order: refunds it if the process died before the order took it. */
export const JOB_MIFI_ORPHAN = 'mifi.orphan-charge';
const STATUS_TITLE: Record<number, string> = { 0: 'unused', 1: 'toBeActivated', 2: 'activated', 3: 'revoked', 4: 'refunded', 9: 'ended', 33: 'unpaid', 88: 'cancelled' };

export interface MifiDeps {
  db: Db; clock: Clock; log: Logger; repo: MifiRepository; cabinets: CabinetsRepository; venues: VenuesService;
  ledger: LedgerService; payments: PaymentsService; link: CabinetLink; jobs: JobRunner; ejectTtlMs: number;
}

export class MifiService {
  constructor(private readonly d: MifiDeps) {
    d.jobs.register(JOB_MIFI_TICK, (p) => this.tick(String(p.packageId)));
    d.jobs.register(JOB_MIFI_REFUND, (p) => this.refundJob(String(p.packageId), String(p.paymentId), Number(p.amount)));
    d.jobs.register(JOB_MIFI_ORPHAN, (p) => this.releaseOrphan(p));
  }

  // ---- catalogue (the query proxy) ---------------------------------------------------------------------------

  async proxy(user: UserRow, url: string, raw: string | undefined): Promise<string> {
    let data: Record<string, unknown> = {};
    if (raw) {
      try {
        const v: unknown = JSON.parse(raw);
        if (v && typeof v === 'object' && !Array.isArray(v)) data = v as Record<string, unknown>;
        else throw new Error('not an object');
      } catch {
        throw badRequest('error.validation.field', { field: 'data' });
      }
    }
    const s = (k: string, max: number) => (typeof data[k] === 'string' ? (data[k] as string).slice(0, max) : undefined);
    const n = (k: string, d: number, max: number) => (Number.isInteger(Number(data[k])) && Number(data[k]) >= 1 ? Math.min(Number(data[k]), max) : d);
    const currency = (s('currency', 3) ?? user.currency ?? 'USD').toUpperCase();
    if (url === 'regionList') {
      return JSON.stringify((await this.d.repo.regions()).map((r) => ({
        id: r.id, name: r.name, flagUrl: r.flag_url, countries: r.countries.map((c) => ({ code: c.code, name: c.name, flagUrl: c.flag_url, timeZone: c.time_zone })),
      })));
    }
    if (url === 'packagePage') {
      const p: PackagePageData = { size: n('size', 6, 50), current: n('current', 1, 10_000), searchKeywords: s('searchKeywords', 100), country: s('country', 2), region: s('region', 64) };
      const size = p.size!;
      const { rows, total } = await this.d.repo.skus({ currency, q: (p.searchKeywords ?? '').trim(), country: p.country?.toUpperCase(), region: p.region, limit: size, offset: (p.current! - 1) * size });
      return JSON.stringify({ records: rows.map((r) => this.item(r)), total });
    }
    const skuId = s('skuId', 64);
    if (!skuId) throw badRequest('error.validation.field', { field: 'skuId' });
    const variants = await this.d.repo.variants(skuId, currency);
    const out = [];
    for (const v of variants) {
      const zones = v.time_zone ? [v.time_zone] : await this.d.repo.regionZones(v.region_id);
      out.push({
        skuId: v.id, skuPriceId: `${v.id}:${v.currency}`, packageName: this.name(v), Day: v.days, isPackage: v.is_package,
        price: toMajor(v.price, v.currency), currency: v.currency, currencyName: currencySymbol(v.currency), country: v.country_code ?? v.region_id,
        timeZoneList: zones, depositAmount: toMajor(await this.boxDeposit(v.currency), v.currency),
      });
    }
    return JSON.stringify(out);
  }

  private name(r: SkuRow) {
    return packageName(r.country_name ?? r.region_name, r.name, { kind: r.plan_kind, value: r.plan_value });
  }

  private item(r: SkuRow) {
    return {
      skuId: r.id, packageName: this.name(r), text: r.plan_kind === 'mb' ? `${r.plan_value} MB` : r.plan_kind === 'unlimited' ? 'Unlimited' : `${r.plan_value} GB/day`,
      isPackage: r.is_package, Day: r.days, country: r.country_code ?? '', countryName: r.country_name ?? r.region_name, region: r.region_id,
      flagUrl: r.flag_url, price: toMajor(r.price, r.currency), currency: r.currency, currencyName: currencySymbol(r.currency), timeZone: r.time_zone ?? 'UTC',
    };
  }

  /** The box deposit in a currency: the 'mifi' plan of a venue in that currency (seeded per currency). */
  private async boxDeposit(currency: string) {
    return this.d.venues.mifiDeposit(currency);
  }

  // ---- buying (payType mifi) --------------------------------------------------------------------------------

  /** POST chargenow/mifi/rent: the order of spec "Mifi order submit", priced by the server, paid by card or wallet. */
  async rent(user: UserRow, b: MifiRentBody, agent?: string) {
    const o = b.orderSubmit;
    const type = o.orderType as 0 | 1 | 2 | 3;
    const currency = o.currency.toUpperCase();
    const now = this.d.clock.now();
    const withDevice = type === ORDER_TYPE.devicePackage || type === ORDER_TYPE.deviceOnly;
    const deposit = withDevice ? await this.boxDeposit(currency) : 0;
    const lines: { sku: SkuRow; days: number; start: number; end: number; renewalOf: PackageRow | null; zone: string }[] = [];
    if (type !== ORDER_TYPE.deviceOnly) {
      for (const dtl of o.submitDtlDtoList) {
        let renewalOf: PackageRow | null = null;
        let skuId = dtl.skuId;
        if (type === ORDER_TYPE.renewal) {
          const id = dtl.mifiOrderId ?? dtl.pickUpOrderId;
          renewalOf = id ? ((await this.d.repo.pkg(id)) ?? null) : null;
          if (renewalOf?.user_id !== user.id) throw notFound('error.mifi.orderNotFound');
          if (![PS.toBeActivated, PS.activated, PS.unused].includes(renewalOf.status as never)) throw conflict('error.mifi.notRenewable');
          skuId ??= renewalOf.sku_id;
        }
        if (!skuId) throw badRequest('error.validation.field', { field: 'skuId' });
        const sku = await this.d.repo.sku(skuId, currency);
        if (!sku) throw notFound('error.mifi.packageNotFound');
        const days = sku.is_package ? sku.days : (dtl.selectDays ?? sku.days);
        const chosen = dtl.reserverStartTime === undefined ? null : typeof dtl.reserverStartTime === 'number' ? dtl.reserverStartTime : Date.parse(dtl.reserverStartTime);
        if (chosen !== null && Number.isNaN(chosen)) throw badRequest('error.validation.field', { field: 'reserverStartTime' });
        // A renewal continues where the package ends (or now, whichever is later).
        const start = renewalOf ? Math.max(new Date(renewalOf.end_at).getTime(), now.getTime()) : startTime(chosen, now.getTime(), true);
        const zone = sku.time_zone ?? (await this.d.repo.regionZones(sku.region_id))[0] ?? 'UTC';
        lines.push({ sku, days, start, end: endTime(start, days), renewalOf, zone });
      }
    }
    const packagesTotal = lines.reduce((s, l) => s + packagePrice({ isPackage: l.sku.is_package, price: l.sku.price, selectDays: l.days }), 0);
    const total = packagesTotal + deposit;
    // The client's total must be the server's (spec §9 rule in src/core/mifi.ts): a stale price is refused, never charged.
    if (toMinor(o.totalAmount, currency) !== total) throw conflict('error.mifi.priceChanged');
    let cabinetId: string | null = null;
    if (b.qrcode) cabinetId = cabinetCodeFrom(b.qrcode) ?? null;
    const orderId = orderNo(now).replace(/^PO/, 'MF');
    const pkgIds: string[] = [];
    await this.d.db.tx(async () => {
      await this.d.repo.insertOrder({ id: orderId, user_id: user.id, order_type: type, currency, total, deposit, status: PS.unpaid, cabinet_id: cabinetId, created_at: now });
      if (type === ORDER_TYPE.deviceOnly) {
        // A box without a package: a zero-day placeholder row carries the device rental.
        throw badRequest('error.mifi.deviceOnlyNeedsPackage');
      }
      let i = 0;
      for (const l of lines) {
        const id = `${orderId}-${++i}`;
        pkgIds.push(id);
        await this.d.repo.insertPackage({
          id, order_id: orderId, user_id: user.id, sku_id: l.sku.id, package_name: this.name(l.sku), country: l.sku.country_code, time_zone: l.zone,
          days: l.days, price: packagePrice({ isPackage: l.sku.is_package, price: l.sku.price, selectDays: l.days }), deposit: i === 1 ? deposit : 0, currency,
          start_at: new Date(l.start), end_at: new Date(l.end), status: PS.unpaid,
          device_order_status: withDevice && i === 1 ? DOS.awaitingPickup : l.renewalOf?.device_sn ? DOS.withUser : DOS.none,
          device_sn: l.renewalOf?.device_sn ?? null, renewal_of: l.renewalOf?.id ?? null, created_at: now,
        });
      }
    });
    await this.pay(user, orderId, { paymentId: b.paymentId, token: b.stripeToken, agent });
    const first = (await this.d.repo.pkg(pkgIds[0]!))!;
    return { orderId: first.id, orderStatus: first.status === PS.unpaid ? 33 : 0, type: 'mifi', out_trade_no: orderId, pay_type: 'mifi', buyOrderNo: orderId, shebei: first.device_sn ?? '', number: pkgIds.length };
  }

  /** Pays an unpaid order: from the wallet when it covers the total, else by card (payType mifi). */
  async pay(user: UserRow, orderId: string, p: { paymentId: string; token?: string; agent?: string }) {
    const order = await this.d.repo.order(orderId);
    if (order?.user_id !== user.id) throw notFound('error.mifi.orderNotFound');
    if (order.status !== PS.unpaid) throw conflict('error.mifi.notUnpaid');
    const wallet = await this.d.ledger.walletOf(user.id, order.currency);
    if (p.paymentId === 'wallet' || (!p.token && wallet.balance >= order.total)) {
      if (wallet.balance < order.total) throw refused('error.mifi.balanceLow');
      await this.d.db.tx(async () => {
        await this.stillUnpaid(order.id);
        await this.settlePaid(order.id, user.id, null, 'wallet');
      });
      return;
    }
    if (!p.token) throw badRequest('error.validation.field', { field: 'stripeToken' });
    const provider = this.d.payments.requireProvider(p.paymentId, p.agent);
    // One key per card token: a retry with the same card replays, another card (continue payment after a decline)
    // is a new attempt rather than the first one's stored decline.
    const charge = {
      token: p.token, amount: order.total, currency: order.currency, capture: 'automatic' as const, idempotencyKey: `mifi_${order.id}_${p.token}`, userId: user.id,
      purpose: 'mifi', methodType: p.paymentId.split(':')[1],
    };
    const release = await this.guardCharge(charge, p.paymentId, p.agent);
    try {
      await this.payByCard(user, order, provider, charge);
    } finally {
      await release();
    }
  }

  /**
   * The crash guard of a card charge, committed before the card call: if this process dies between the charge and
   * the transaction that takes it, the job (JOB_MIFI_ORPHAN, after ORPHAN_AUTH_MS) replays the call (same key: the
   * first outcome, no second charge) and refunds it. The returned function cancels it once the call is settled,
   * refunded or declined here (the job would find the charge recorded anyway).
   */
  private async guardCharge(charge: AuthorizeInput, paymentId: string, agent: string | undefined) {
    await this.d.jobs.enqueue(JOB_MIFI_ORPHAN, { ...charge, paymentId, agent: agent ?? null }, new Date(this.d.clock.now().getTime() + ORPHAN_AUTH_MS));
    return () => this.d.jobs.cancel(JOB_MIFI_ORPHAN, 'idempotencyKey', charge.idempotencyKey)
      .catch((err: unknown) => this.d.log.error({ err, key: charge.idempotencyKey }, 'guard cancel failed'));
  }

  /** The card part of pay(): the charge, then the order's transaction (refunded if that fails). */
  private async payByCard(user: UserRow, order: NonNullable<Awaited<ReturnType<MifiRepository['order']>>>, provider: PaymentProvider, charge: AuthorizeInput) {
    const orderId = order.id;
    const result = await provider.authorize(charge);
    if (!result.ok) {
      // A second call racing the one that paid (its single-use card token already spent): say it is paid, not declined.
      if ((await this.d.repo.order(order.id))?.status !== PS.unpaid) throw conflict('error.mifi.notUnpaid');
      await this.d.payments.record({ providerId: provider.id, result, userId: user.id, orderId: order.id, purpose: 'mifi', amount: order.total, currency: order.currency });
      throw refused(declineMessageKey(result.declineCode));
    }
    if (result.status !== 'captured') {
      await provider.void(result.ref).catch(() => undefined);
      throw refused('error.payment.authentication_required');
    }
    try {
      await this.settleCard(user, order, provider, result);
    } catch (err) {
      // This very charge already paid the order (a replay of the same card's call, one charge at the provider): done.
      if (await this.d.payments.isCaptured(provider.id, result.ref)) {
        if (err instanceof AppError && err.key === 'error.mifi.notUnpaid') return;
        throw err;
      }
      await provider.refund(result.ref, order.total).catch((e: unknown) => this.d.log.error({ err: e, orderId }, 'mifi refund after a failed order failed'));
      throw err;
    }
  }

  /** One transaction: the card money into the wallet, then spent on the order (settlePaid). */
  private async settleCard(user: UserRow, order: { id: string; total: number; currency: string }, provider: PaymentProvider, result: Extract<AuthorizeResult, { ok: true; status: 'captured' | 'authorized' }>) {
    await this.d.db.tx(async () => {
      // Two calls paying the same order at once (a double tap, a retry racing the first): one settles it.
      await this.stillUnpaid(order.id);
      const paymentId = await this.d.payments.record({ providerId: provider.id, result, userId: user.id, orderId: order.id, purpose: 'mifi', amount: order.total, currency: order.currency });
      const w = this.d.ledger;
      const clearing = await w.account(providerOwner(provider.id), 'clearing', order.currency);
      const wal = await w.account(userOwner(user.id), 'wallet', order.currency);
      // The card money enters the user's wallet, and is spent from it exactly as a wallet payment.
      await w.transfer({ debit: clearing, credit: wal, amount: order.total, code: 'mifi_topup', orderId: order.id, at: this.d.clock.now() });
      await this.settlePaid(order.id, user.id, paymentId, 'card');
    });
  }

  /**
   * The crash guard's job (JOB_MIFI_ORPHAN): the card call is replayed with its key, which returns the first
   * outcome without charging again; a charge no payment row records (the order never took it) is refunded.
   */
  private async releaseOrphan(p: Record<string, unknown>) {
    const provider = this.d.payments.providerForMethod(String(p.paymentId), p.agent ? String(p.agent) : undefined);
    if (!provider) return;
    const result = await provider.authorize({
      token: String(p.token), amount: Number(p.amount), currency: String(p.currency), capture: 'automatic', idempotencyKey: String(p.idempotencyKey),
      userId: Number(p.userId), purpose: 'mifi', methodType: p.methodType ? String(p.methodType) : undefined,
    });
    if (!result.ok || result.status === 'requires_action') return;
    if (await this.d.payments.isCaptured(provider.id, result.ref)) return;
    this.d.log.warn({ ref: result.ref }, 'refunding a package charge no order took');
    await provider.refund(result.ref, Number(p.amount), { idempotencyKey: `orphan_${String(p.idempotencyKey)}` });
  }

  /** Inside the paying unit of work: locks the order; it must still be unpaid (33). */
  private async stillUnpaid(orderId: string) {
    if ((await this.d.repo.order(orderId, { lock: true }))?.status !== PS.unpaid) throw conflict('error.mifi.notUnpaid');
  }

  /** In the caller's unit of work: wallet → revenue (packages) and → deposit hold (the box), packages 33 → 0. */
  private async settlePaid(orderId: string, userId: number, paymentId: string | null, from: 'card' | 'wallet') {
    const now = this.d.clock.now();
    const order = (await this.d.repo.order(orderId))!;
    const w = this.d.ledger;
    const wal = await w.account(userOwner(userId), 'wallet', order.currency);
    const revenue = await w.account(PLATFORM, 'revenue', order.currency);
    const packages = order.total - order.deposit;
    if (packages > 0) await w.transfer({ debit: wal, credit: revenue, amount: packages, code: 'mifi_package', orderId, at: now, mustNotOverdraw: true });
    let holdId: string | undefined;
    if (order.deposit > 0) {
      const hold = await w.account(userOwner(userId), 'deposit_hold', order.currency);
      holdId = await w.transfer({ debit: wal, credit: hold, amount: order.deposit, code: 'mifi_deposit', orderId, at: now, pending: true, mustNotOverdraw: true });
    }
    await this.d.repo.orderPaid(orderId, paymentId, from, now);
    for (const p of await this.d.repo.packagesOfOrder(orderId)) {
      // A renewal of a box already with the user waits for its start; anything else waits for its box.
      const to = p.device_sn ? PS.toBeActivated : PS.unused;
      await this.d.repo.move(p.id, PS.unpaid, to);
      if (holdId && p.deposit > 0) await this.d.repo.setDevice(p.id, { holdTransferId: holdId });
      if (to === PS.toBeActivated) await this.schedule(p.id, new Date(p.start_at));
    }
  }

  private async schedule(packageId: string, at: Date) {
    await this.d.jobs.enqueue(JOB_MIFI_TICK, { packageId }, at);
  }

  /** Cancels a package: unpaid → 88 (the whole order); unused and paid → 3 revoked, refunded → 4. */
  async cancel(user: UserRow, id: string) {
    const p = await this.own(user, id);
    const now = this.d.clock.now();
    await this.d.db.tx(async () => {
      const cur = (await this.d.repo.pkg(p.id, { lock: true }))!;
      if (cur.status === PS.unpaid) {
        await this.d.repo.setStatusOfOrder(cur.order_id, PS.unpaid, PS.cancelled);
        await this.d.repo.setOrderStatus(cur.order_id, PS.cancelled);
        return;
      }
      if (cur.status !== PS.unused || cur.device_sn) throw conflict('error.mifi.notCancellable');
      const amount = cur.price + cur.deposit;
      await this.d.repo.move(cur.id, PS.unused, PS.revoked, { refunded_amount: amount });
      const w = this.d.ledger;
      const wal = await w.account(userOwner(cur.user_id), 'wallet', cur.currency);
      const revenue = await w.account(PLATFORM, 'revenue', cur.currency);
      if (cur.price > 0) await w.transfer({ debit: revenue, credit: wal, amount: cur.price, code: 'mifi_refund', orderId: cur.order_id, at: now });
      if (cur.hold_transfer_id && cur.deposit > 0) await w.voidPending(cur.hold_transfer_id, now);
      if (cur.paid_from === 'card' && cur.payment_id) {
        // Back to the card it was paid with: out of the wallet to the provider's clearing, then the refund job.
        const pay = await this.d.payments.find(cur.payment_id);
        if (pay) {
          const clearing = await w.account(providerOwner(pay.provider), 'clearing', cur.currency);
          await w.transfer({ debit: wal, credit: clearing, amount, code: 'mifi_refund_card', orderId: cur.order_id, at: now, mustNotOverdraw: true });
          await this.d.jobs.enqueue(JOB_MIFI_REFUND, { packageId: cur.id, paymentId: pay.id, amount }, now);
          return;
        }
      }
      await this.d.repo.move(cur.id, PS.revoked, PS.refunded);
    });
    return this.toWire((await this.d.repo.pkg(p.id))!);
  }

  private async refundJob(packageId: string, paymentId: string, amount: number) {
    const p = await this.d.repo.pkg(packageId);
    if (p?.status !== PS.revoked) return;
    await this.d.payments.refund(paymentId, amount, `mifi_refund_${packageId}`);
    await this.d.repo.move(packageId, PS.revoked, PS.refunded);
  }

  // ---- pickup ---------------------------------------------------------------------------------------------

  /** POST chargenow/mifi/pickup {qrcode, pickOrderId}: the scanned cabinet ejects a box for the package. */
  async pickup(user: UserRow, qrcode: string, pickOrderId: string) {
    const p = await this.own(user, pickOrderId);
    if (p.device_sn || ![PS.unused, PS.toBeActivated, PS.activated].includes(p.status as never)) throw conflict('error.mifi.notPickable');
    if (p.device_order_status !== DOS.awaitingPickup) throw refused('error.mifi.depositFirst');
    const code = cabinetCodeFrom(qrcode);
    const cabinet = code ? await this.d.cabinets.find(code) : undefined;
    if (!cabinet) throw notFound('error.cabinetNotFound');
    if (!cabinet.online || !this.d.link.isUp()) throw conflict('error.cabinetOffline');
    const now = this.d.clock.now();
    const commandId = uuid();
    const command: Command = await this.d.db.tx(async () => {
      await this.d.cabinets.lock(cabinet.id);
      const slot = await this.d.cabinets.freeSlot(cabinet.id, now, 'mifi');
      if (slot === undefined) throw conflict('error.mifi.noBox');
      const c: Command = { v: PROTOCOL_VERSION, id: commandId, type: 'eject', ts: now.toISOString(), ttlMs: this.d.ejectTtlMs, slot, kind: 'mifi' };
      await this.d.cabinets.insertCommand({ id: commandId, cabinetId: cabinet.id, orderId: p.id, type: 'eject', payload: c, at: now, expiresAt: new Date(now.getTime() + this.d.ejectTtlMs) });
      await this.d.repo.setDevice(p.id, { ejectCommandId: commandId, pickupState: 1, pickupMsg: null });
      return c;
    });
    await this.d.link.send(cabinet.id, command).catch((err: unknown) => this.d.log.error({ err, pickOrderId }, 'box eject publish failed'));
    return { orderId: p.id };
  }

  /** A cabinet ejected a box for a package's pickup: bind it. */
  async onPopped(e: { commandId: string; powerbankId: string; ts: string }) {
    const p = await this.d.repo.byCommand(e.commandId);
    if (!p) return;
    await this.d.cabinets.ackCommand(e.commandId, this.d.clock.now(), 'popped');
    await this.d.cabinets.markRented(e.powerbankId, p.id, new Date(Math.min(Date.parse(e.ts) || Infinity, this.d.clock.now().getTime())), 'mifi');
    await this.bindBox(p, e.powerbankId);
  }

  async onPopFailed(e: { commandId: string; reason: string }) {
    const p = await this.d.repo.byCommand(e.commandId);
    if (!p) return;
    await this.d.cabinets.ackCommand(e.commandId, this.d.clock.now(), `pop-failed:${e.reason}`);
    await this.d.repo.setDevice(p.id, { pickupState: 9, pickupMsg: e.reason });
  }

  /** POST chargenow/mifi/bind {sn, mifiOrderId}: a box read the QR the app shows (pickup by QR, spec §4). */
  async bind(user: UserRow, sn: string, mifiOrderId: string) {
    const p = await this.own(user, mifiOrderId);
    await this.bindAs(p, sn);
    return { orderId: p.id };
  }

  /** The box side of the QR pickup (the simulator's box, or a real box's gateway): binds `sn` to the package shown. */
  async bindFromBox(sn: string, mifiOrderId: string) {
    const p = await this.d.repo.pkg(mifiOrderId);
    if (!p) throw notFound('error.mifi.orderNotFound');
    await this.bindAs(p, sn);
  }

  private async bindAs(p: PackageRow, sn: string) {
    if (!sn) throw badRequest('error.validation.field', { field: 'sn' });
    if (p.device_sn) throw conflict('error.mifi.notPickable');
    if (p.device_order_status !== DOS.awaitingPickup) throw refused('error.mifi.depositFirst');
    if (!(await this.d.repo.box(sn))) {
      await this.d.repo.setDevice(p.id, { pickupState: 9, pickupMsg: 'Failed to retrieve the device' });
      throw notFound('error.mifi.deviceNotFound');
    }
    // A box another package holds (typed from someone else's box) is not this user's to take.
    if (await this.d.repo.holderOf(sn)) {
      await this.d.repo.setDevice(p.id, { pickupState: 9, pickupMsg: 'Failed to retrieve the device' });
      throw conflict('error.mifi.boxInUse');
    }
    await this.d.repo.setDevice(p.id, { pickupState: 1 });
    await this.d.cabinets.markRented(sn, p.id, this.d.clock.now(), 'mifi');
    await this.bindBox(p, sn);
  }

  private async bindBox(p: PackageRow, sn: string) {
    const now = this.d.clock.now();
    await this.d.db.tx(async () => {
      await this.d.repo.setDevice(p.id, { sn, deviceOrderStatus: DOS.withUser, pickupState: 2, pickupMsg: null });
      // Every paid package of the order (and its later renewals) runs on this box.
      for (const q of await this.d.repo.packagesOfOrder(p.order_id)) {
        if (q.id !== p.id && !q.device_sn) await this.d.repo.setDevice(q.id, { sn });
        if (q.status === PS.unused) {
          await this.d.repo.move(q.id, PS.unused, PS.toBeActivated);
          await this.schedule(q.id, new Date(Math.max(now.getTime(), new Date(q.start_at).getTime())));
        }
      }
    });
  }

  /** GET chargenow/mifi/checkPickUp: 0 waiting, 1 loading, 2 success, 9 failure with pickUp_msg. */
  async checkPickUp(user: UserRow, id: string) {
    const p = await this.own(user, id);
    if (p.device_sn) return { status: 2, productSendSn: p.device_sn };
    if (p.pickup_state === 9) return { status: 9, pickUp_msg: p.pickup_msg ?? 'Failed to retrieve the device' };
    return { status: p.pickup_state };
  }

  /** POST chargenow/mifi/cabinetDisposit: the box deposit for a package-only order, so a box can be picked up. */
  async payDeposit(user: UserRow, b: { mifiOrderId: string; paymentId: string; stripeToken?: string }, agent?: string) {
    const p = await this.own(user, b.mifiOrderId);
    if (p.device_order_status !== DOS.none || p.device_sn || ![PS.unused, PS.toBeActivated].includes(p.status as never)) throw conflict('error.mifi.notPickable');
    const deposit = await this.boxDeposit(p.currency);
    const now = this.d.clock.now();
    const w = this.d.ledger;
    const wallet = await w.walletOf(user.id, p.currency);
    const topUp = Math.max(0, deposit - wallet.balance);
    let charged: { providerId: string; ref: string; result: Parameters<PaymentsService['record']>[0]['result'] } | null = null;
    let release: () => Promise<unknown> = async () => undefined;
    if (topUp > 0) {
      if (!b.stripeToken) throw refused('error.mifi.balanceLow');
      const provider = this.d.payments.requireProvider(b.paymentId, agent);
      // One key per card token, as pay(): a retry with the same card replays, another card is a new attempt.
      const charge: AuthorizeInput = { token: b.stripeToken, amount: topUp, currency: p.currency, capture: 'automatic', idempotencyKey: `mifidep_${p.id}_${b.stripeToken}`, userId: user.id, purpose: 'mifi' };
      release = await this.guardCharge(charge, b.paymentId, agent);
      const result = await provider.authorize(charge).catch(async (err: unknown) => {
        await release();
        throw err;
      });
      if (!result.ok || result.status !== 'captured') {
        await release();
        throw refused('error.payment.card_declined');
      }
      charged = { providerId: provider.id, ref: result.ref, result };
    }
    try {
      await this.d.db.tx(async () => {
        // Two calls at once: one holds the deposit.
        const cur = (await this.d.repo.pkg(p.id, { lock: true }))!;
        if (cur.device_order_status !== DOS.none || cur.device_sn) throw conflict('error.mifi.notPickable');
        const wal = await w.account(userOwner(user.id), 'wallet', p.currency);
        if (charged) {
          await this.d.payments.record({ providerId: charged.providerId, result: charged.result, userId: user.id, orderId: p.order_id, purpose: 'mifi', amount: topUp, currency: p.currency });
          const clearing = await w.account(providerOwner(charged.providerId), 'clearing', p.currency);
          await w.transfer({ debit: clearing, credit: wal, amount: topUp, code: 'mifi_topup', orderId: p.order_id, at: now });
        }
        const hold = await w.account(userOwner(user.id), 'deposit_hold', p.currency);
        const holdId = await w.transfer({ debit: wal, credit: hold, amount: deposit, code: 'mifi_deposit', orderId: p.order_id, at: now, pending: true, mustNotOverdraw: true });
        await this.d.repo.setDevice(p.id, { deviceOrderStatus: DOS.awaitingPickup, holdTransferId: holdId, deposit });
      });
    } catch (err) {
      if (charged) {
        // This very charge already holds the deposit (a replay): done. Otherwise the charge goes back.
        if (await this.d.payments.isCaptured(charged.providerId, charged.ref)) {
          if (!(err instanceof AppError && err.key === 'error.mifi.notPickable')) throw err;
        } else {
          const provider = this.d.payments.requireProvider(b.paymentId, agent);
          await provider.refund(charged.ref, topUp).catch((e: unknown) => this.d.log.error({ err: e, packageId: p.id }, 'mifi deposit refund after a failed hold failed'));
          throw err;
        }
      } else throw err;
    } finally {
      await release();
    }
    return this.toWire((await this.d.repo.pkg(p.id))!);
  }

  // ---- the box's life ------------------------------------------------------------------------------------------

  /** Start and end times: 1 → 2 at the start, 2 → 9 at the end (a job per package, and re-scheduled). */
  async tick(packageId: string) {
    const now = this.d.clock.now();
    await this.d.db.tx(async () => {
      const p = await this.d.repo.pkg(packageId, { lock: true });
      if (!p) return;
      if (p.status === PS.toBeActivated && now >= new Date(p.start_at)) {
        await this.d.repo.move(p.id, PS.toBeActivated, PS.activated, { activated_at: now });
        await this.schedule(p.id, new Date(p.end_at));
      } else if (p.status === PS.activated && now >= new Date(p.end_at)) {
        await this.d.repo.move(p.id, PS.activated, PS.ended, { ended_at: now });
      } else if (p.status === PS.toBeActivated || p.status === PS.activated) {
        await this.schedule(p.id, p.status === PS.toBeActivated ? new Date(p.start_at) : new Date(p.end_at));
      }
    });
  }

  /** Box telemetry (cabinet protocol 'box-telemetry'): recorded; the first traffic activates a waiting package. */
  async onTelemetry(e: { sn: string; ts: string; battery?: number | null; signal?: number | null; bytesTotal: number; online: boolean }) {
    const at = new Date(Math.min(Date.parse(e.ts) || Infinity, this.d.clock.now().getTime()));
    const before = await this.d.repo.lastTelemetry(e.sn);
    await this.d.repo.insertTelemetry({ sn: e.sn, at, battery: e.battery ?? null, signal: e.signal ?? null, bytesTotal: e.bytesTotal, online: e.online });
    if (before && e.bytesTotal > before.bytes_total) {
      const id = await this.d.repo.toActivateOnTraffic(e.sn);
      if (id) {
        // The period starts at the last report before the traffic rose: that traffic is the package's.
        await this.d.repo.move(id, PS.toBeActivated, PS.activated, { activated_at: new Date(before.at) });
        const p = (await this.d.repo.pkg(id))!;
        await this.schedule(id, new Date(p.end_at));
      }
    }
  }

  /** The box's traffic counter as last reported (0 before any report): the demo adds traffic on top of it. */
  async lastBytes(sn: string) {
    return (await this.d.repo.lastTelemetry(sn))?.bytes_total ?? 0;
  }

  /** A box came back into any cabinet: its deposit is released to the wallet; a running package ends (4 returned). */
  async onReturned(sn: string) {
    const p = await this.d.repo.holderOf(sn);
    if (!p) return false;
    const now = this.d.clock.now();
    for (const q of await this.d.repo.packagesOfSn(sn)) {
      // Only the packages of the box's current holding: earlier holders' packages were settled at their return.
      if (q.device_order_status !== DOS.withUser) continue;
      await this.d.repo.setDevice(q.id, { deviceOrderStatus: DOS.returned });
      if (q.status === PS.activated) await this.d.repo.move(q.id, PS.activated, PS.refunded, { ended_at: now });
      if (q.status === PS.toBeActivated) await this.d.repo.move(q.id, PS.toBeActivated, PS.ended, { ended_at: now });
      if (q.hold_transfer_id && q.deposit > 0) {
        await this.d.ledger.voidPending(q.hold_transfer_id, now);
      }
    }
    return true;
  }

  // ---- reads ---------------------------------------------------------------------------------------------------

  /** A package of the user (not found otherwise). */
  packageOf(user: UserRow, id: string) {
    return this.own(user, id);
  }

  /** One package of the user as the wire shows it (with its traffic). */
  async wire(user: UserRow, id: string) {
    return this.toWireWithUsage(await this.own(user, id));
  }

  private async own(user: UserRow, id: string) {
    const p = await this.d.repo.pkg(id);
    if (p?.user_id !== user.id) throw notFound('error.mifi.orderNotFound');
    return p;
  }

  async list(user: UserRow, q: { current?: number; size?: number; isPicked?: number }) {
    const size = q.size ?? 100;
    const { rows, total } = await this.d.repo.list(user.id, { isPicked: q.isPicked, limit: size, offset: ((q.current ?? 1) - 1) * size });
    const records = [];
    for (const r of rows) records.push(await this.toWireWithUsage(r));
    return { records, total };
  }

  async detail(user: UserRow, q: { orderId?: string; sn?: string }) {
    let sn = q.sn;
    let depositOf: PackageRow | undefined;
    if (q.orderId) {
      depositOf = await this.own(user, q.orderId);
      sn = depositOf.device_sn ?? undefined;
    }
    if (!sn) throw notFound('error.mifi.deviceNotActivated');
    const packages = (await this.d.repo.packagesOfSn(sn)).filter((p) => p.user_id === user.id);
    if (!packages.length) throw notFound('error.mifi.deviceNotFound');
    const box = await this.d.repo.box(sn);
    const t = await this.d.repo.lastTelemetry(sn);
    const first = depositOf ?? packages[packages.length - 1]!;
    const list = [];
    for (const p of packages) list.push(await this.toWireWithUsage(p));
    return {
      id: first.id, sn, dianliang: t?.battery ?? 0, online: t?.online ?? false,
      deviceJson: { wifiSSID: box?.ssid ?? '', wifiPassword: box?.password ?? '', lastKnownVsimSignalStrength: t?.signal ?? 0 },
      packageDtlList: list, typeName: 'mifi', depositAmount: toMajor(packages.reduce((s, p) => s + p.deposit, 0), first.currency), currency: first.currency,
    };
  }

  /** POST traffic usage {sn, packageStartTime, packageEndTime} (seconds). */
  async traffic(user: UserRow, sn: string, from: number, to: number) {
    if (!(await this.d.repo.packagesOfSn(sn)).some((p) => p.user_id === user.id)) throw notFound('error.mifi.deviceNotFound');
    if (to < from) throw badRequest('error.validation.field', { field: 'packageEndTime' });
    const u = await this.d.repo.usage(sn, new Date(from * 1000), new Date(Math.min(to * 1000, this.d.clock.now().getTime())));
    return { sn, totalUsage: u.used, onlineTimeDuration: u.onlineSeconds };
  }

  /** POST flowUsageList {sn}: usage per package period on the box. */
  async flowUsage(user: UserRow, sn: string) {
    const packages = (await this.d.repo.packagesOfSn(sn)).filter((p) => p.user_id === user.id && (p.status === PS.activated || p.status === PS.ended || p.status === PS.refunded));
    if (!(await this.d.repo.packagesOfSn(sn)).some((p) => p.user_id === user.id)) throw notFound('error.mifi.deviceNotFound');
    const list = [];
    let total = 0;
    for (const p of packages) {
      const from = p.activated_at ? new Date(p.activated_at) : new Date(p.start_at);
      const to = new Date(Math.min((p.ended_at ? new Date(p.ended_at) : new Date(p.end_at)).getTime(), this.d.clock.now().getTime()));
      const u = await this.d.repo.usage(sn, from, to);
      total += u.used;
      list.push({ startTime: from.toISOString(), endTime: to.toISOString(), totalUsage: u.used, onlineTimeDuration: u.onlineSeconds, packageName: p.package_name });
    }
    return { packageUsedTotal: total, sn, packageUsageDtlList: list };
  }

  private async toWireWithUsage(p: PackageRow) {
    let used = 0;
    if (p.device_sn && (p.status === PS.activated || p.status === PS.ended)) {
      const from = p.activated_at ? new Date(p.activated_at) : new Date(p.start_at);
      used = (await this.d.repo.usage(p.device_sn, from, new Date(Math.min(new Date(p.end_at).getTime(), this.d.clock.now().getTime())))).used;
    }
    return { ...this.toWire(p), usedBytes: used };
  }

  toWire(p: PackageRow) {
    const c = p.currency;
    const unit = p.is_package ? p.price : Math.round(p.price / Math.max(1, p.days));
    return {
      orderId: p.id, buyOrderNo: p.order_id, skuId: p.sku_id, packageName: p.package_name, Day: p.days, isPackage: p.is_package, country: p.country ?? '',
      flagUrl: p.flag_url, price: toMajor(unit, c), packagePrice: toMajor(p.price, c), totalAmount: toMajor(p.price + p.deposit, c), depositAmount: toMajor(p.deposit, c),
      currency: c, currencyName: currencySymbol(c), selectDays: p.days, reserverStartTime: new Date(p.start_at).toISOString(), reserverEndTime: new Date(p.end_at).toISOString(),
      timeZone: p.time_zone, packageStatus: p.status, packageStatusTitle: STATUS_TITLE[p.status] ?? '', deviceOrderStatus: p.device_order_status,
      productSendSn: p.device_sn ?? '', pickUpOrderId: p.id, renewalOf: p.renewal_of ?? '', orderType: p.order_type, usedBytes: 0,
    };
  }
}
