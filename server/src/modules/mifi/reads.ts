// The box's life (start and end times, telemetry) and what the user reads: packages, the device, traffic.
import { DEVICE_ORDER_STATUS as DOS, PACKAGE_STATUS as PS } from '#core/mifi.ts';
import { toMajor } from '#core/money.ts';
import { badRequest, notFound } from '../../lib/errors.ts';
import type { UserRow } from '../auth/service.ts';
import { currencySymbol } from '../venues/service.ts';
import type { PackageRow } from './repository.ts';
import { STATUS_TITLE, MifiPart } from './shared.ts';

export class MifiReads extends MifiPart {
  /** Start and end times: 1 → 2 at the start, 2 → 9 at the end (a job per package, and re-scheduled). */
  async tick(packageId: string) {
    const now = this.d.clock.now();
    await this.d.db.tx(async () => {
      const p = await this.d.repo.pkg(packageId, { lock: true });
      if (!p) return;
      if (p.status === PS.toBeActivated && now >= new Date(p.start_at)) {
        await this.d.repo.move(p.id, PS.toBeActivated, PS.activated, { activated_at: now });
        await this.s.orders.schedule(p.id, new Date(p.end_at));
      } else if (p.status === PS.activated && now >= new Date(p.end_at)) {
        await this.d.repo.move(p.id, PS.activated, PS.ended, { ended_at: now });
      } else if (p.status === PS.toBeActivated || p.status === PS.activated) {
        await this.s.orders.schedule(p.id, p.status === PS.toBeActivated ? new Date(p.start_at) : new Date(p.end_at));
      }
    });
  }

  /** Box telemetry (cabinet protocol 'box-telemetry'): recorded; the first traffic activates a waiting package. */
  async onTelemetry(e: {
    sn: string;
    ts: string;
    battery?: number | null;
    signal?: number | null;
    bytesTotal: number;
    online: boolean;
  }) {
    const at = new Date(Math.min(Date.parse(e.ts) || Infinity, this.d.clock.now().getTime()));
    const before = await this.d.boxesRepo.lastTelemetry(e.sn);
    await this.d.boxesRepo.insertTelemetry({
      sn: e.sn,
      at,
      battery: e.battery ?? null,
      signal: e.signal ?? null,
      bytesTotal: e.bytesTotal,
      online: e.online,
    });
    if (before && e.bytesTotal > before.bytes_total) {
      const id = await this.d.repo.toActivateOnTraffic(e.sn);
      if (id) {
        // The period starts at the last report before the traffic rose: that traffic is the package's.
        await this.d.repo.move(id, PS.toBeActivated, PS.activated, { activated_at: new Date(before.at) });
        const p = (await this.d.repo.pkg(id))!;
        await this.s.orders.schedule(id, new Date(p.end_at));
      }
    }
    // The holder's screens show the box's battery, signal, network and traffic as it reports them.
    const holder = await this.d.repo.holderOf(e.sn);
    if (holder) await this.d.live.publish(holder.user_id, { kind: 'order', orderId: holder.id });
  }

  /** The box's traffic counter as last reported (0 before any report): the demo adds traffic on top of it. */
  async lastBytes(sn: string) {
    return (await this.d.boxesRepo.lastTelemetry(sn))?.bytes_total ?? 0;
  }

  /** A package of the user (not found otherwise). */
  packageOf(user: UserRow, id: string) {
    return this.own(user, id);
  }

  /** One package of the user as the wire shows it (with its traffic). */
  async wire(user: UserRow, id: string) {
    return this.toWireWithUsage(await this.own(user, id));
  }

  async own(user: UserRow, id: string) {
    const p = await this.d.repo.pkg(id);
    if (p?.user_id !== user.id) throw notFound('error.mifi.orderNotFound');
    return p;
  }

  async list(user: UserRow, q: { current?: number; size?: number; isPicked?: number }) {
    const size = q.size ?? 100;
    const { rows, total } = await this.d.repo.list(user.id, {
      isPicked: q.isPicked,
      limit: size,
      offset: ((q.current ?? 1) - 1) * size,
    });
    const records = [];
    for (const r of rows) records.push(await this.toWireWithUsage(r));
    return { records, total };
  }

  /**
   * GET orderDetail (orderId or sn): the box as its current holder sees it, from their handover on (battery, online,
   * signal, the Wi-Fi network): anyone else, a former holder included, gets a 404. The password is the one the box
   * confirmed (boxes.wifiPassword): empty while a new one is being set.
   */
  async detail(user: UserRow, q: { orderId?: string; sn?: string }) {
    let sn = q.sn;
    let depositOf: PackageRow | undefined;
    if (q.orderId) {
      depositOf = await this.own(user, q.orderId);
      sn = depositOf.device_sn ?? undefined;
    }
    if (!sn) throw notFound('error.mifi.deviceNotActivated');
    const holding = (await this.holdings(user, sn)).find((h) => h.current);
    if (!holding || (depositOf && depositOf.device_order_status !== DOS.withUser))
      throw notFound('error.mifi.deviceNotFound');
    const packages = (await this.d.repo.packagesOfSn(sn)).filter(
      (p) => p.user_id === user.id && p.device_order_status === DOS.withUser,
    );
    const box = await this.d.boxesRepo.box(sn);
    const t = await this.d.boxesRepo.lastTelemetry(sn, new Date(holding.from));
    const first = depositOf ?? packages[packages.length - 1]!;
    const list = [];
    for (const p of packages) list.push(await this.toWireWithUsage(p));
    return {
      id: first.id,
      sn,
      dianliang: t?.battery ?? 0,
      online: t?.online ?? false,
      deviceJson: {
        wifiSSID: box?.ssid ?? '',
        wifiPassword: box ? this.s.boxes.wifiPassword(box) : '',
        lastKnownVsimSignalStrength: t?.signal ?? 0,
      },
      packageDtlList: list,
      typeName: 'mifi',
      depositAmount: toMajor(
        packages.reduce((s, p) => s + p.deposit, 0),
        first.currency,
      ),
      currency: first.currency,
    };
  }

  /**
   * The user's holdings of a box, [handed over, returned] in ms (the current one until now): a box's data is its
   * holder's, for their own holding.
   */
  private async holdings(user: UserRow, sn: string) {
    const now = this.d.clock.now().getTime();
    const out: { from: number; to: number; current: boolean }[] = [];
    for (const p of await this.d.repo.packagesOfSn(sn)) {
      if (p.user_id !== user.id || !p.bound_at) continue;
      const current = p.device_order_status === DOS.withUser;
      out.push({
        from: new Date(p.bound_at).getTime(),
        to: current ? now : new Date(p.returned_at ?? p.bound_at).getTime(),
        current,
      });
    }
    return out;
  }

  /**
   * POST traffic usage {sn, packageStartTime, packageEndTime} (seconds): the box's traffic in that window, counted
   * only within the user's own holdings of the box (a window outside them all is a 404).
   */
  async traffic(user: UserRow, sn: string, from: number, to: number) {
    const hs = await this.holdings(user, sn);
    if (!hs.length) throw notFound('error.mifi.deviceNotFound');
    if (to < from) throw badRequest('error.validation.field', { field: 'packageEndTime' });
    let used = 0;
    let online = 0;
    let inside = false;
    for (const h of hs) {
      const a = Math.max(from * 1000, h.from);
      const z = Math.min(to * 1000, h.to);
      if (z < a) continue;
      inside = true;
      const u = await this.d.boxesRepo.usage(sn, new Date(a), new Date(z));
      used += u.used;
      online += u.onlineSeconds;
    }
    if (!inside) throw notFound('error.mifi.deviceNotFound');
    return { sn, totalUsage: used, onlineTimeDuration: online };
  }

  /** POST flowUsageList {sn}: usage per package period on the box. */
  async flowUsage(user: UserRow, sn: string) {
    const packages = (await this.d.repo.packagesOfSn(sn)).filter(
      (p) => p.user_id === user.id && (p.status === PS.activated || p.status === PS.ended || p.status === PS.refunded),
    );
    if (!(await this.d.repo.packagesOfSn(sn)).some((p) => p.user_id === user.id))
      throw notFound('error.mifi.deviceNotFound');
    const list = [];
    let total = 0;
    for (const p of packages) {
      const from = p.activated_at ? new Date(p.activated_at) : new Date(p.start_at);
      const to = new Date(
        Math.min((p.ended_at ? new Date(p.ended_at) : new Date(p.end_at)).getTime(), this.d.clock.now().getTime()),
      );
      const u = await this.d.boxesRepo.usage(sn, from, to);
      total += u.used;
      list.push({
        startTime: from.toISOString(),
        endTime: to.toISOString(),
        totalUsage: u.used,
        onlineTimeDuration: u.onlineSeconds,
        packageName: p.package_name,
      });
    }
    return { packageUsedTotal: total, sn, packageUsageDtlList: list };
  }

  private async toWireWithUsage(p: PackageRow) {
    let used = 0;
    if (p.device_sn && (p.status === PS.activated || p.status === PS.ended)) {
      const from = p.activated_at ? new Date(p.activated_at) : new Date(p.start_at);
      const end = new Date(p.ended_at ?? p.end_at).getTime();
      used = (await this.d.boxesRepo.usage(p.device_sn, from, new Date(Math.min(end, this.d.clock.now().getTime()))))
        .used;
    }
    return { ...this.toWire(p), usedBytes: used };
  }

  toWire(p: PackageRow) {
    const c = p.currency;
    const unit = p.is_package ? p.price : Math.round(p.price / Math.max(1, p.days));
    return {
      orderId: p.id,
      buyOrderNo: p.order_id,
      skuId: p.sku_id,
      packageName: p.package_name,
      Day: p.days,
      isPackage: p.is_package,
      country: p.country ?? '',
      flagUrl: p.flag_url,
      price: toMajor(unit, c),
      packagePrice: toMajor(p.price, c),
      totalAmount: toMajor(p.price + p.deposit, c),
      depositAmount: toMajor(p.deposit, c),
      currency: c,
      currencyName: currencySymbol(c),
      selectDays: p.days,
      reserverStartTime: new Date(p.start_at).toISOString(),
      reserverEndTime: new Date(p.end_at).toISOString(),
      timeZone: p.time_zone,
      packageStatus: p.status,
      packageStatusTitle: STATUS_TITLE[p.status] ?? '',
      deviceOrderStatus: p.device_order_status,
      productSendSn: p.device_sn ?? '',
      pickUpOrderId: p.id,
      renewalOf: p.renewal_of ?? '',
      orderType: p.order_type,
      usedBytes: 0,
    };
  }
}
