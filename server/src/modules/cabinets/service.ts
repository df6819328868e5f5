// Cabinets: the scan (checkisok) and the server's handling of everything a cabinet reports.
import { toMajor } from '#core/money.ts';
import type { Db } from '../../db/db.ts';
import type { Clock } from '../../lib/clock.ts';
import type { UserRow } from '../auth/repository.ts';
import type { RentalsService } from '../rentals/service.ts';
import { currencySymbol, pricedVenue } from '../venues/service.ts';
import { LedgerService } from '../ledger/service.ts';
import { DEFAULT_AGENT, numericAccount } from '../ledger/repository.ts';
import { cabinetCodeFrom } from '../rentals/service.ts';
import { OPEN_STATES } from '../rentals/order-state.ts';
import { conflict, notFound } from '../../lib/errors.ts';
import type { LinkHandler, Logger } from './link.ts';
import type { CabinetEvent, CabinetStatus, CommandAck } from './protocol.ts';
import type { CabinetsRepository } from './repository.ts';

export class CabinetsService implements LinkHandler {
  constructor(
    private readonly d: { db: Db; clock: Clock; log: Logger; repo: CabinetsRepository; rentals: RentalsService },
  ) {}

  /** POST cdb/cabinet/checkisok */
  async scan(user: UserRow, url: string) {
    // One round trip: cabinet, venue, plan, stock, the wallet in the venue currency and the open rentals
    // (the same rules as resolveCabinet, walletOf, openCount and availableCount, read together).
    const code = cabinetCodeFrom(url);
    const view = code ? await this.d.repo.scanView(code, user.id, OPEN_STATES, DEFAULT_AGENT) : undefined;
    if (!view) throw notFound('error.cabinetNotFound');
    const { cabinet } = view;
    const priced = pricedVenue(view.venue, view.plan);
    // An offline cabinet (offline status, last will, or missed heartbeats) cannot eject: no payment may start.
    // (`online` of the repository's cabinet already includes the missed-heartbeat rule, see liveness.ts.)
    if (!cabinet.online) throw conflict('error.cabinetOffline');
    const { venue, planRow, wire } = priced;
    const c = venue.currency;
    const balance = LedgerService.available(view.wallet && numericAccount(view.wallet));
    const zujieNum = view.openCount;
    const haveBatteryCount = view.available;
    const deposit = priced.plan.deposit;
    const needsPayment = balance < deposit;
    const m = (v: number) => toMajor(v, c);
    return {
      cabinetID: cabinet.id,
      qrcode: cabinet.id,
      shopid: venue.id,
      shopname: venue.name,
      shoplogo: venue.logo_url,
      shopAddress: venue.address,
      shopTime: venue.hours,
      shopContent: venue.description,
      currencyName: currencySymbol(c),
      currency: c,
      jifei: wire.pPrice,
      jifeiDanwei: wire.pPriceMinute,
      mianfei: wire.pFreeuseMinute,
      fengding: wire.pDayAmount,
      yajin: m(deposit),
      yajintype: planRow.deposit_type,
      myyue: m(balance),
      chongzhi: needsPayment ? ('Y' as const) : ('N' as const),
      overtimeAmount: wire.pOvertimeAmount,
      zujieNum,
      haveBatteryCount,
      freeSlots: Math.max(0, cabinet.slot_count - haveBatteryCount),
      haveMifiBattery: false,
      yajinChongzhi: needsPayment ? ('Y' as const) : ('N' as const),
      online: cabinet.online,
      lat: venue.lat,
      lng: venue.lng,
      priceStrategy: wire,
      userWallet: { pBalance: m(balance), pCurrencySymbol: currencySymbol(c), pDailiId: 'powerly' },
    };
  }

  // ---- LinkHandler ------------------------------------------------------------------------------------------

  async event(cabinetId: string, e: CabinetEvent) {
    if (!(await this.d.repo.find(cabinetId))) return this.d.log.warn({ cabinetId }, 'event from an unknown cabinet');
    const now = this.d.clock.now();
    if (e.type === 'heartbeat') {
      await this.d.repo.setOnline(cabinetId, true, now, e.slots);
      return;
    }
    await this.d.db.tx(async () => {
      // Deduplicate in the same transaction as the effect: a crash in between replays the event, never loses it.
      if (!(await this.d.repo.recordEvent({ id: e.id, cabinetId, type: e.type, ts: e.ts, payload: e, at: now }))) return;
      if (e.type === 'popped') await this.d.rentals.onPopped(cabinetId, e);
      else if (e.type === 'pop-failed') await this.d.rentals.onPopFailed(cabinetId, e);
      else if (e.type === 'returned') await this.d.rentals.onReturned(cabinetId, e);
      else if (e.type === 'powerbank-fault') await this.d.rentals.onFault(e);
    });
  }

  async status(cabinetId: string, s: CabinetStatus) {
    if (!(await this.d.repo.find(cabinetId))) return;
    await this.d.repo.setOnline(cabinetId, s.online, this.d.clock.now(), undefined);
  }

  async ack(cabinetId: string, a: CommandAck) {
    const cmd = await this.d.repo.command(a.commandId);
    if (!cmd || cmd.cabinet_id !== cabinetId) return;
    await this.d.repo.ackCommand(cmd.id, this.d.clock.now(), a.status === 'accepted' ? null : a.status);
  }
}
