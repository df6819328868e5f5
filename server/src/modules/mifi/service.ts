// Wi-Fi boxes and data packages (issue 14; spec §3, §4 package status, §7 chargenow/mifi/*).
//
// A package is bought (payType mifi) through the payment layer and the ledger: the package price is revenue, a
// box deposit is held (pending) in the user's deposit_hold account until the box comes back. The state machine of
// src/core/mifi.ts: 33 unpaid → 0 unused → (box bound) 1 to be activated → 2 activated at its start time or first
// traffic → 9 ended at its end; 0 → 3 revoked by the user (card refunded or wallet credited) → 4 refunded; a
// box returned while its package runs ends it (4 returned); 33 → 88 cancelled. docs/payments.md "Wi-Fi packages".
//
// Every payment method pays: a payment its customer finishes elsewhere (3-D Secure, a provider's page, a phone
// prompt) answers `action` and is resumed with paymentIntent (payWith), guarded by JOB_MIFI_ORPHAN from before the
// provider call until an order or deposit takes it, or it is released. A box deposit paid on its own is held by a
// method that can hold (released at the box's return, captured before it lapses), else paid into the wallet.
import { DEVICE_ORDER_STATUS as DOS, endTime, ORDER_TYPE, PACKAGE_STATUS as PS, packageName, packagePrice, startTime } from '#core/mifi.ts';
import { toMajor, toMinor } from '#core/money.ts';
import type { Db } from '../../db/db.ts';
import type { JobRunner } from '../../jobs/runner.ts';
import type { Clock } from '../../lib/clock.ts';
import { badRequest, conflict, notFound, refused } from '../../lib/errors.ts';
import { commitIdempotencyKey } from '../../lib/idempotency.ts';
import { orderNo, uuid } from '../../lib/ids.ts';
import type { UserRow } from '../auth/repository.ts';
import type { CabinetLink, Logger } from '../cabinets/link.ts';
import { PROTOCOL_VERSION, type Command } from '../cabinets/protocol.ts';
import type { CabinetsRepository } from '../cabinets/repository.ts';
import { cabinetCodeFrom } from '#core/codeLink.ts';
import { PLATFORM, providerOwner, userOwner, type LedgerService } from '../ledger/service.ts';
import { ACTION_TIMEOUT_MS, declineMessageKey, type AuthorizeResult, type PaymentProvider } from '../payments/provider.ts';
import { compensationsOf } from '../payments/compensation.ts';
import type { PaymentsService } from '../payments/service.ts';
import type { PaymentPurpose } from '../payments/purposes.ts';
import { HOLD_RENEW_MARGIN_MS, ORPHAN_AUTH_MS } from '../rentals/service.ts';
import { currencySymbol, type VenuesService } from '../venues/service.ts';
import type { DepositBody, MifiRentBody, PackagePageData } from '#contract/mifi.ts';
import type { PaymentAction } from '#contract/payments.ts';
import type { MifiRepository, PackageRow, SkuRow } from './repository.ts';

export const JOB_MIFI_TICK = 'mifi.tick';
export const JOB_MIFI_REFUND = 'mifi.refund';
/**
 * The guard of a payment with a method (a package order, a box deposit): committed before the provider call, it
 * releases what the provider took if no order or deposit took it (the process died; after ACTION_TIMEOUT_MS, the
 * customer who had to act never came back).
 */
export const JOB_MIFI_ORPHAN = 'mifi.orphan-charge';
/** Releases a box deposit's hold at the provider (the box came back, or its package was cancelled). */
export const JOB_MIFI_RELEASE_HOLD = 'mifi.release-hold';
/** Before a box deposit's hold lapses (capture_before): captured, and kept as a deposit in the wallet's hold. */
export const JOB_MIFI_HOLD_EXPIRY = 'mifi.hold-expiry';
const STATUS_TITLE: Record<number, string> = { 0: 'unused', 1: 'toBeActivated', 2: 'activated', 3: 'revoked', 4: 'refunded', 9: 'ended', 33: 'unpaid', 88: 'cancelled' };

/** A paying call: the method, and a new payment's token or the payment to resume. */
export interface PayCall { paymentId: string; token?: string; paymentIntent?: string; returnUrl?: string; agent?: string }
/** What a payment pays: an order (packageId null) or the box deposit of a package. */
interface Target { orderId: string; packageId: string | null; amount: number; currency: string; capture: 'automatic' | 'manual'; key: string }
/** One payment with a method, as its guard job keeps it. */
interface Attempt {
  paymentId: string; agent: string | null; userId: number; orderId: string; packageId: string | null; amount: number; currency: string;
  capture: 'automatic' | 'manual'; purpose: string; methodType: string | null;
  /** A new payment: its token and the provider's idempotency key; a payment waiting for its customer: its ref. */
  token: string | null; idempotencyKey: string | null; ref: string | null;
}
type Taken = Extract<AuthorizeResult, { ok: true; status: 'authorized' | 'captured' }>;
/** A package that can take a box deposit: no box ordered yet, unused or waiting for its start. */
const pickable = (p: PackageRow) => p.device_order_status === DOS.none && !p.device_sn && (p.status === PS.unused || p.status === PS.toBeActivated);
/** A package whose box deposit guards a box still to be picked up or with the user (not returned, not cancelled). */
const holdsBox = (p: PackageRow) => (p.device_order_status === DOS.awaitingPickup || p.device_order_status === DOS.withUser) && p.status !== PS.revoked && p.status !== PS.refunded;
/** The payments row's purpose: the order's payment, a box deposit held by the method, or paid into the wallet. */
const purposeOf = (packageId: string | null, capture: 'automatic' | 'manual') => (!packageId ? 'mifi' : capture === 'manual' ? 'mifi_deposit_hold' : 'mifi_deposit');

export interface MifiDeps {
  db: Db; clock: Clock; log: Logger; repo: MifiRepository; cabinets: CabinetsRepository; venues: VenuesService;
  ledger: LedgerService; payments: PaymentsService; link: CabinetLink; jobs: JobRunner; ejectTtlMs: number;
}

export class MifiService {
  constructor(private readonly d: MifiDeps) {
    d.jobs.register(JOB_MIFI_TICK, (p) => this.tick(String(p.packageId)));
    d.jobs.register(JOB_MIFI_REFUND, (p) => this.refundJob(String(p.packageId), String(p.paymentId), Number(p.amount)));
    d.jobs.register(JOB_MIFI_ORPHAN, (p) => this.releaseOrphan(p));
    d.jobs.register(JOB_MIFI_RELEASE_HOLD, async (p) => void (await this.d.payments.settleAuthorization(String(p.paymentId), 0)));
    d.jobs.register(JOB_MIFI_HOLD_EXPIRY, (p) => this.holdExpiring(String(p.packageId), String(p.paymentId)));
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

  /**
   * POST chargenow/mifi/rent: the order of spec "Mifi order submit", priced by the server, paid with any method or
   * the wallet. A payment the customer must finish answers `action`, the order made and unpaid (33); the call
   * repeated with `paymentIntent` resumes the payment of the order it was started for (only its payer's).
   */
  async rent(user: UserRow, b: MifiRentBody, agent?: string) {
    if (b.paymentIntent) {
      const provider = this.d.payments.requireProvider(b.paymentId, agent);
      const a = await this.d.repo.action(provider.id, b.paymentIntent);
      if (!a || a.user_id !== user.id || a.package_id) throw refused('error.payment.token_invalid');
      const action = await this.pay(user, a.order_id, { paymentId: b.paymentId, paymentIntent: b.paymentIntent, agent }, () => this.rentResult(a.order_id));
      return { ...(await this.rentResult(a.order_id)), ...(action ? { action } : {}) };
    }
    const o = b.orderSubmit;
    if (!o) throw badRequest('error.validation.field', { field: 'orderSubmit' });
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
    const action = await this.pay(user, orderId, { paymentId: b.paymentId, token: b.stripeToken, returnUrl: b.returnUrl, agent }, () => this.rentResult(orderId));
    return { ...(await this.rentResult(orderId)), ...(action ? { action } : {}) };
  }

  /** The order result of spec §3 as rent answers it: the first package, orderStatus 0 once paid, 33 while unpaid. */
  private async rentResult(orderId: string) {
    const pkgs = await this.d.repo.packagesOfOrder(orderId);
    const first = pkgs[0]!;
    return { orderId: first.id, orderStatus: first.status === PS.unpaid ? 33 : 0, type: 'mifi', out_trade_no: orderId, pay_type: 'mifi', buyOrderNo: orderId, shebei: first.device_sn ?? '', number: pkgs.length };
  }

  /**
   * Pays an unpaid order (rent, continue payment): from the wallet when asked (`wallet`) or when it covers the total
   * and no method token came, else with the method: the total is charged, enters the wallet and is spent from it.
   * Returns what the customer must finish (the call is then repeated with paymentIntent), or null once paid.
   * `receipt` is the call's answer, committed with the payment (the request's idempotency key).
   */
  async pay(user: UserRow, orderId: string, c: PayCall, receipt?: () => Promise<unknown>): Promise<PaymentAction | null> {
    const order = await this.d.repo.order(orderId);
    if (order?.user_id !== user.id) throw notFound('error.mifi.orderNotFound');
    if (!c.paymentIntent) {
      if (order.status !== PS.unpaid) throw conflict('error.mifi.notUnpaid');
      const wallet = await this.d.ledger.walletOf(user.id, order.currency);
      if (c.paymentId === 'wallet' || (!c.token && wallet.balance >= order.total)) {
        if (wallet.balance < order.total) throw refused('error.mifi.balanceLow');
        await this.d.db.tx(async () => {
          await this.stillUnpaid(order.id);
          await this.settlePaid(order.id, user.id, null, 'wallet');
          if (receipt) await commitIdempotencyKey(await receipt());
        });
        return null;
      }
      if (!c.token) throw badRequest('error.validation.field', { field: 'stripeToken' });
    }
    const provider = this.d.payments.requireProvider(c.paymentId, c.agent);
    return this.payWith(user, provider, c, {
      orderId: order.id, packageId: null, amount: order.total, currency: order.currency, capture: 'automatic',
      // One key per token: a retry with the same token replays, another (continue payment after a decline) is a new attempt.
      key: `mifi_${order.id}_${c.token ?? ''}`,
    }, receipt);
  }

  /**
   * One payment with a method, for an order or a box deposit, new (`token`) or resumed (`paymentIntent`):
   *   1. a new one: the orphan guard (JOB_MIFI_ORPHAN) is committed, then the provider is asked;
   *   2. the customer must act: the payment is kept for this order (mifi_payment_actions) and its guard becomes the
   *      action's, which releases it after ACTION_TIMEOUT_MS unless an order took it; answered as `action`;
   *   3. resumed: only the one started for this order, by its payer (the provider checks them too), and only with
   *      the amount, currency and capture asked;
   *   4. taken in one unit of work, under the charge's lock: a payment already recorded is never taken twice (a
   *      replay answers what it paid); anything not taken is released (refunded or voided) by a compensation job.
   */
  private async payWith(user: UserRow, provider: PaymentProvider, c: PayCall, t: Target, receipt?: () => Promise<unknown>): Promise<PaymentAction | null> {
    const now = this.d.clock.now();
    let a: Attempt;
    if (c.paymentIntent) {
      const act = await this.d.repo.action(provider.id, c.paymentIntent);
      if (!act || act.user_id !== user.id || act.order_id !== t.orderId || act.package_id !== t.packageId) throw refused('error.payment.token_invalid');
      a = {
        paymentId: c.paymentId, agent: c.agent ?? null, userId: user.id, orderId: t.orderId, packageId: t.packageId, amount: act.amount, currency: act.currency,
        capture: act.capture, purpose: purposeOf(t.packageId, act.capture), token: null, idempotencyKey: null, ref: act.ref, methodType: c.paymentId.split(':')[1] ?? null,
      };
    } else {
      await this.d.payments.checkReturnUrl(c.returnUrl, c.agent);
      a = {
        paymentId: c.paymentId, agent: c.agent ?? null, userId: user.id, orderId: t.orderId, packageId: t.packageId, amount: t.amount, currency: t.currency,
        capture: t.capture, purpose: purposeOf(t.packageId, t.capture), token: c.token!, idempotencyKey: t.key, ref: null, methodType: c.paymentId.split(':')[1] ?? null,
      };
      // Committed before the provider call: if this process dies before the payment is taken or released, the job
      // makes the same call again (the same key: the first payment, never a second) and releases what it took.
      await this.d.jobs.enqueue(JOB_MIFI_ORPHAN, { ...a }, new Date(now.getTime() + ORPHAN_AUTH_MS));
    }
    const claim = { userId: user.id, purpose: a.purpose as PaymentPurpose, amount: a.amount, currency: a.currency, orderId: a.orderId };
    const result = a.ref
      ? await this.d.payments.resume(provider, a.ref, claim)
      : await provider.authorize({
          token: a.token!, amount: a.amount, currency: a.currency, capture: a.capture, idempotencyKey: a.idempotencyKey!, userId: user.id,
          purpose: a.purpose, returnUrl: c.returnUrl, methodType: a.methodType ?? undefined,
        });
    if (result.ok && result.status === 'requires_action') {
      if (!a.ref) {
        await this.d.db.tx(async () => {
          await this.d.payments.recordStart(provider.id, result.ref, claim);
          const fresh = await this.d.repo.insertAction({
            provider: provider.id, ref: result.ref, user_id: user.id, order_id: a.orderId, package_id: a.packageId, amount: a.amount, currency: a.currency,
            capture: a.capture, created_at: now,
          });
          await this.d.jobs.cancel(JOB_MIFI_ORPHAN, 'idempotencyKey', a.idempotencyKey!);
          // A customer who never comes back: their payment is released after the timeout, unless an order took it.
          if (fresh) await this.d.jobs.enqueue(JOB_MIFI_ORPHAN, { ...a, token: null, idempotencyKey: null, ref: result.ref }, new Date(now.getTime() + ACTION_TIMEOUT_MS));
        });
      }
      return { clientSecret: result.clientSecret, paymentIntent: result.ref };
    }
    if (!result.ok) {
      await this.declined(provider, result, a);
      return null; // not reached: declined() throws
    }
    if (a.ref && (result.amount !== a.amount || result.currency?.toUpperCase() !== a.currency || (result.status === 'authorized') !== (a.capture === 'manual'))) {
      // Not what was asked for: never taken; the provider's payment goes back.
      await this.release(provider, result, a, 'amount, currency or capture not as asked');
      throw refused('error.payment.processing_error');
    }
    try {
      if (a.packageId) await this.settleDeposit(user, provider, result, a, receipt);
      else await this.settleCard(user, provider, result, a, receipt);
    } catch (err) {
      // Not taken (the order was paid meanwhile, the box deposit is held already, the unit of work failed): released,
      // unless it is recorded (taken by this very order, or released already), which release() checks under the lock.
      await this.release(provider, result, a, `mifi ${a.orderId} not paid with it`)
        .catch((e: unknown) => this.d.log.error({ err: e, orderId: a.orderId }, 'mifi release not enqueued: the orphan guard will release it'));
      throw err;
    }
    return null;
  }

  /** A declined payment: recorded (once), its guards no longer needed; the refusal in the user's language. */
  private async declined(provider: PaymentProvider, result: Extract<AuthorizeResult, { ok: false }>, a: Attempt): Promise<never> {
    await this.cancelGuards(a, result.ref);
    // A second call racing the one that paid (its single-use card token already spent): say it is paid, not declined.
    if (!a.packageId && (await this.d.repo.order(a.orderId))?.status !== PS.unpaid) throw conflict('error.mifi.notUnpaid');
    const prior = result.ref ? await this.d.payments.repo.byRef(provider.id, result.ref) : undefined;
    // Released by its guard (the customer came back too late): said so, not as a declined card.
    if (prior && (prior.failure_code === 'abandoned' || (prior.order_id === a.orderId && prior.status !== 'declined'))) throw refused('error.payment.released');
    if (!prior) {
      await this.d.payments.record({ providerId: provider.id, result, userId: a.userId, orderId: a.orderId, purpose: a.purpose, amount: a.amount, currency: a.currency });
    }
    throw refused(declineMessageKey(result.declineCode));
  }

  private async cancelGuards(a: Attempt, ref: string | null) {
    if (a.idempotencyKey) await this.d.jobs.cancel(JOB_MIFI_ORPHAN, 'idempotencyKey', a.idempotencyKey);
    if (ref) await this.d.jobs.cancel(JOB_MIFI_ORPHAN, 'ref', ref);
  }

  /**
   * In the paying unit of work, under the charge's lock: was this provider payment recorded already? By this very
   * target (a replay: answered as paid) or not (released by its guard, or another order's: refused).
   */
  private async recorded(provider: PaymentProvider, ref: string, a: Attempt): Promise<boolean> {
    await this.d.payments.lockCharge(provider.id, ref);
    const prior = await this.d.payments.repo.byRef(provider.id, ref);
    if (!prior) return false;
    const took = a.packageId
      ? (await this.d.repo.pkg(a.packageId))?.deposit_payment_id === prior.id
      : (await this.d.repo.order(a.orderId))?.payment_id === prior.id;
    if (took) return true;
    if (prior.order_id === a.orderId && prior.status !== 'captured' && prior.status !== 'authorized') throw refused('error.payment.released');
    throw conflict('error.payment.alreadyUsed');
  }

  /** One unit of work: the method's money into the wallet, then spent on the order (settlePaid). */
  private async settleCard(user: UserRow, provider: PaymentProvider, result: Taken, a: Attempt, receipt?: () => Promise<unknown>) {
    await this.d.db.tx(async () => {
      if (!(await this.recorded(provider, result.ref, a))) {
        // Two calls paying the same order at once (a double tap, a retry racing the first): one settles it.
        await this.stillUnpaid(a.orderId);
        const paymentId = await this.d.payments.record({ providerId: provider.id, result, userId: user.id, orderId: a.orderId, purpose: a.purpose, amount: a.amount, currency: a.currency });
        const w = this.d.ledger;
        const clearing = await w.account(providerOwner(provider.id), 'clearing', a.currency);
        const wal = await w.account(userOwner(user.id), 'wallet', a.currency);
        // The method's money enters the user's wallet, and is spent from it exactly as a wallet payment.
        await w.transfer({ debit: clearing, credit: wal, amount: a.amount, code: 'mifi_topup', orderId: a.orderId, at: this.d.clock.now() });
        await this.settlePaid(a.orderId, user.id, paymentId, 'card');
      }
      await this.cancelGuards(a, result.ref);
      if (receipt) await commitIdempotencyKey(await receipt());
    });
  }

  /**
   * The orphan guard's job (JOB_MIFI_ORPHAN): a new payment's call is made again with its key (the provider answers
   * the first outcome, never a second payment), a payment awaiting its customer is read; whatever it took that no
   * order or deposit took is released (release()).
   */
  private async releaseOrphan(p: Record<string, unknown>) {
    const provider = this.d.payments.providerForMethod(String(p.paymentId), p.agent ? String(p.agent) : undefined);
    if (!provider) return;
    const capture = p.capture === 'manual' ? 'manual' : 'automatic';
    const packageId = p.packageId ? String(p.packageId) : null;
    const a: Attempt = {
      paymentId: String(p.paymentId), agent: p.agent ? String(p.agent) : null, userId: Number(p.userId), orderId: p.orderId ? String(p.orderId) : '',
      packageId, amount: Number(p.amount), currency: String(p.currency), capture, purpose: typeof p.purpose === 'string' ? p.purpose : purposeOf(packageId, capture),
      token: p.token ? String(p.token) : null, idempotencyKey: p.idempotencyKey ? String(p.idempotencyKey) : null, ref: p.ref ? String(p.ref) : null,
      methodType: p.methodType ? String(p.methodType) : null,
    };
    const result = a.ref
      ? await provider.resume(a.ref, a.userId)
      : await provider.authorize({
          token: a.token ?? '', amount: a.amount, currency: a.currency, capture: a.capture, idempotencyKey: a.idempotencyKey ?? '', userId: a.userId,
          purpose: a.purpose, methodType: a.methodType ?? undefined,
        });
    if (!result.ok) return;
    await this.release(provider, result, a, a.ref ? 'the customer did not come back' : 'the request did not finish', { fromGuard: true });
  }

  /**
   * A provider payment no order or deposit took: unless it is recorded already (taken, or released before), one unit
   * of work under the charge's lock records it released (so no later resume can take it) with its compensation job
   * (a charge refunded, a hold or a payment still waiting for the customer voided), run at once after the commit.
   */
  private async release(provider: PaymentProvider, result: Extract<AuthorizeResult, { ok: true }>, a: Attempt, reason: string, opts: { fromGuard?: boolean } = {}) {
    const comp = compensationsOf(this.d.jobs, this.d.payments.providers);
    const now = this.d.clock.now();
    const jobId = await this.d.db.tx(async () => {
      await this.d.payments.lockCharge(provider.id, result.ref);
      if (await this.d.payments.repo.byRef(provider.id, result.ref)) return null;
      this.d.log.warn({ orderId: a.orderId, ref: result.ref, reason }, 'releasing a Wi-Fi payment nothing took');
      const c = await this.d.payments.recordReleased(
        { providerId: provider.id, userId: a.userId, orderId: a.orderId || null, purpose: a.purpose, amount: a.amount, currency: a.currency }, result);
      return comp.enqueue({ providerId: provider.id, ref: result.ref, ...c, reason: `mifi ${a.orderId}: ${reason}` }, now);
    });
    if (!opts.fromGuard) await this.cancelGuards(a, result.ref);
    if (jobId !== null) await comp.runNow(jobId);
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
      await this.d.repo.move(cur.id, PS.unused, PS.revoked, { refunded_amount: cur.price + cur.deposit });
      const w = this.d.ledger;
      const wal = await w.account(userOwner(cur.user_id), 'wallet', cur.currency);
      const revenue = await w.account(PLATFORM, 'revenue', cur.currency);
      if (cur.price > 0) await w.transfer({ debit: revenue, credit: wal, amount: cur.price, code: 'mifi_refund', orderId: cur.order_id, at: now });
      // The box deposit: back to the wallet, or released at the method that holds it.
      await this.releaseDeposit(cur, now);
      if (cur.paid_from === 'card' && cur.payment_id) {
        // Back to the method the order was paid with (the package, and the box deposit when it came with the order; a
        // deposit paid later, cabinetDisposit, was released above): out of the wallet to the provider's clearing, then the refund job.
        const amount = cur.price + (cur.order_type === ORDER_TYPE.devicePackage ? cur.deposit : 0);
        const pay = await this.d.payments.find(cur.payment_id);
        if (pay && amount > 0) {
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

  /**
   * POST chargenow/mifi/cabinetDisposit: the box deposit for a package-only order, so a box can be picked up. From the
   * wallet (`wallet`, or no method token and a balance covering it); with a method that can hold, the deposit is
   * held (a pre-authorisation, released when the box comes back); with any other it is paid into the wallet and
   * held there (as a rental's deposit top-up). A method whose customer must act answers `action`, resumed with
   * paymentIntent. Returns that action, or null once the deposit is held.
   */
  async payDeposit(user: UserRow, b: DepositBody, agent?: string, receipt?: () => Promise<unknown>): Promise<PaymentAction | null> {
    const p = await this.own(user, b.mifiOrderId);
    const c: PayCall = { paymentId: b.paymentId, token: b.stripeToken, paymentIntent: b.paymentIntent, returnUrl: b.returnUrl, agent };
    if (b.paymentIntent) {
      const provider = this.d.payments.requireProvider(b.paymentId, agent);
      return this.payWith(user, provider, c, { orderId: p.order_id, packageId: p.id, amount: 0, currency: p.currency, capture: 'automatic', key: '' }, receipt);
    }
    if (!pickable(p)) throw conflict('error.mifi.notPickable');
    const deposit = await this.boxDeposit(p.currency);
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
        const holdId = await w.transfer({ debit: wal, credit: hold, amount: deposit, code: 'mifi_deposit', orderId: p.order_id, at: this.d.clock.now(), pending: true, mustNotOverdraw: true });
        await this.d.repo.setDevice(p.id, { deviceOrderStatus: DOS.awaitingPickup, holdTransferId: holdId, deposit });
        if (receipt) await commitIdempotencyKey(await receipt());
      });
      return null;
    }
    if (!b.stripeToken) throw refused('error.mifi.balanceLow');
    const provider = this.d.payments.requireProvider(b.paymentId, agent);
    const hold = this.d.payments.methodHolds(b.paymentId, agent);
    return this.payWith(user, provider, c, {
      orderId: p.order_id, packageId: p.id, amount: deposit, currency: p.currency, capture: hold ? 'manual' : 'automatic',
      // One key per token, as pay(): a retry with the same token replays, another is a new attempt.
      key: `mifidep_${p.id}_${b.stripeToken}`,
    }, receipt);
  }

  /**
   * One unit of work: the box deposit of a package, held by the method (clearing → deposit hold, pending, with the
   * guard of its expiry) or paid into the wallet and held from it; the package then waits for its box (5).
   */
  private async settleDeposit(user: UserRow, provider: PaymentProvider, result: Taken, a: Attempt, receipt?: () => Promise<unknown>) {
    await this.d.db.tx(async () => {
      if (!(await this.recorded(provider, result.ref, a))) {
        // Two calls at once: one holds the deposit.
        const cur = (await this.d.repo.pkg(a.packageId!, { lock: true }))!;
        if (!pickable(cur)) throw conflict('error.mifi.notPickable');
        const now = this.d.clock.now();
        const w = this.d.ledger;
        const paymentId = await this.d.payments.record({ providerId: provider.id, result, userId: user.id, orderId: cur.order_id, purpose: a.purpose, amount: a.amount, currency: a.currency });
        const clearing = await w.account(providerOwner(provider.id), 'clearing', a.currency);
        const hold = await w.account(userOwner(user.id), 'deposit_hold', a.currency);
        let holdId: string;
        if (result.status === 'authorized') {
          holdId = await w.transfer({ debit: clearing, credit: hold, amount: a.amount, code: 'mifi_deposit_preauth', orderId: cur.order_id, at: now, pending: true });
          if (result.captureBefore) {
            const at = new Date(Math.max(now.getTime(), result.captureBefore.getTime() - HOLD_RENEW_MARGIN_MS));
            await this.d.jobs.enqueue(JOB_MIFI_HOLD_EXPIRY, { packageId: cur.id, paymentId }, at);
          }
        } else {
          const wal = await w.account(userOwner(user.id), 'wallet', a.currency);
          await w.transfer({ debit: clearing, credit: wal, amount: a.amount, code: 'mifi_topup', orderId: cur.order_id, at: now });
          holdId = await w.transfer({ debit: wal, credit: hold, amount: a.amount, code: 'mifi_deposit', orderId: cur.order_id, at: now, pending: true, mustNotOverdraw: true });
        }
        await this.d.repo.setDevice(cur.id, { deviceOrderStatus: DOS.awaitingPickup, holdTransferId: holdId, deposit: a.amount, depositPaymentId: paymentId });
      }
      await this.cancelGuards(a, result.ref);
      if (receipt) await commitIdempotencyKey(await receipt());
    });
  }

  /**
   * A box deposit's hold is about to lapse while the box is still out (or still to be picked up): it is captured
   * now and kept, in one unit of work, as a deposit held from the wallet (clearing → deposit hold posted, → wallet,
   * → deposit hold pending), so the box never loses its guarantee; the box's return releases it to the wallet.
   * If the box came back while the capture was made, the money captured is refunded.
   */
  private async holdExpiring(packageId: string, paymentId: string) {
    const p = await this.d.repo.pkg(packageId);
    if (p?.deposit_payment_id !== paymentId || p.deposit_captured || !holdsBox(p)) return;
    const pay = await this.d.payments.find(paymentId);
    if (pay?.status !== 'authorized') return;
    const amount = Number(pay.amount);
    if ((await this.d.payments.settleAuthorization(paymentId, amount)) !== 'captured') return;
    const comp = compensationsOf(this.d.jobs, this.d.payments.providers);
    const jobId = await this.d.db.tx(async () => {
      const cur = (await this.d.repo.pkg(packageId, { lock: true }))!;
      if (cur.deposit_captured) return null;
      await this.d.repo.setDevice(cur.id, { depositCaptured: true });
      const now = this.d.clock.now();
      if (!holdsBox(cur) || !cur.hold_transfer_id) {
        return comp.enqueue({ providerId: pay.provider, ref: pay.provider_ref!, action: 'refund', amount, reason: `box deposit of ${cur.id} released while captured` }, now);
      }
      const w = this.d.ledger;
      await w.postPending(cur.hold_transfer_id, amount, now);
      const hold = await w.account(userOwner(cur.user_id), 'deposit_hold', cur.currency);
      const wal = await w.account(userOwner(cur.user_id), 'wallet', cur.currency);
      await w.transfer({ debit: hold, credit: wal, amount, code: 'mifi_deposit_captured', orderId: cur.order_id, at: now });
      const holdId = await w.transfer({ debit: wal, credit: hold, amount, code: 'mifi_deposit', orderId: cur.order_id, at: now, pending: true, mustNotOverdraw: true });
      await this.d.repo.setDevice(cur.id, { holdTransferId: holdId });
      return null;
    });
    if (jobId !== null) await comp.runNow(jobId);
  }

  /**
   * In the caller's unit of work: a package's box deposit is no longer needed (the box came back, the package was
   * cancelled): its hold in the ledger is voided (back to the wallet), and a hold at the provider released.
   */
  private async releaseDeposit(p: PackageRow, now: Date) {
    if (!p.hold_transfer_id || p.deposit <= 0) return;
    await this.d.ledger.voidPending(p.hold_transfer_id, now);
    if (!p.deposit_payment_id || p.deposit_captured) return;
    await this.d.jobs.cancel(JOB_MIFI_HOLD_EXPIRY, 'packageId', p.id);
    if ((await this.d.payments.find(p.deposit_payment_id))?.status === 'authorized') {
      await this.d.jobs.enqueue(JOB_MIFI_RELEASE_HOLD, { paymentId: p.deposit_payment_id }, now);
    }
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
    for (const row of await this.d.repo.packagesOfSn(sn)) {
      // Locked: the deposit's hold expiry (holdExpiring) decides under the same lock.
      const q = (await this.d.repo.pkg(row.id, { lock: true }))!;
      // Only the packages of the box's current holding: earlier holders' packages were settled at their return.
      if (q.device_order_status !== DOS.withUser) continue;
      await this.d.repo.setDevice(q.id, { deviceOrderStatus: DOS.returned });
      if (q.status === PS.activated) await this.d.repo.move(q.id, PS.activated, PS.refunded, { ended_at: now });
      if (q.status === PS.toBeActivated) await this.d.repo.move(q.id, PS.toBeActivated, PS.ended, { ended_at: now });
      await this.releaseDeposit(q, now);
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
