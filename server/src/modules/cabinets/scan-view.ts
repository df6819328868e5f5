// What a scan answers (checkisok), from a read of the cabinet, its venue, plans and stock (ScanView): one
// projection for the signed-in scan and for the scan anyone sees (the server-rendered code link).
import { toMajor } from '#core/money.ts';
import type { RentalKind } from '#core/devices.ts';
import { LedgerService, numericAccount } from '../ledger/service.ts';
import { currencySymbol, depositPaymentReason, pricedVenue } from '../venues/service.ts';
import type { ScanView } from './repository.ts';

/** The scan cache's key for the read without a session: no session's token hash is empty. */
export const PUBLIC_SESSION = '';
/** A read without a session never expires by its session (the cache's other rules still apply). */
export const NEVER = new Date(8.64e15);

/** The scan's answer for `view` of `kind`, `online` by the liveness rule (liveness.ts). */
export function scanAnswer(view: ScanView, kind: RentalKind, online: boolean) {
  const cabinet = { ...view.cabinet, online };
  const priced = pricedVenue(view.venue, view.plan, view.agent);
  // An offline cabinet (offline status, last will, or missed heartbeats) can neither lend nor take back: the scan
  // still answers (online false, nothing to rent, no free slot) so that the first screen says so and lists the
  // nearest cabinets with stock around its position; every rent at it is refused before any money moves.
  const { venue, planRow, wire } = priced;
  const c = venue.currency;
  const balance = LedgerService.available(view.wallet && numericAccount(view.wallet));
  const zujieNum = view.openCount;
  const haveBatteryCount = cabinet.online ? view.available : 0;
  const deposit = priced.plan.deposit;
  // The deposit is paid (through confirm) when the wallet misses it, or at an agent whose deposits are always paid
  // when the wallet does not also cover the overtime fee: venues' depositPaymentReason, the rule the wallet borrow keeps too.
  const reason = depositPaymentReason(priced, balance);
  const needsPayment = reason === 'balance';
  const depositPayment = reason !== null;
  const mifiDeposit = view.mifiPlan ? pricedVenue(venue, view.mifiPlan).plan.deposit : undefined;
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
    // Offline: nothing to rent or return there (the screen lists the nearest cabinets with stock instead).
    freeSlots: cabinet.online ? view.returnSlots : 0,
    haveMifiBattery: cabinet.online && view.counts.mifi > 0 && view.planKinds.includes('mifi'),
    mifiBatteryCount: cabinet.online && view.planKinds.includes('mifi') ? view.counts.mifi : 0,
    mifiDeposit: mifiDeposit === undefined ? 0 : m(mifiDeposit),
    energyStorageFlag: view.planKinds.includes('station') && view.counts.station > 0 ? 1 : 0,
    haveStationCount: cabinet.online && view.planKinds.includes('station') ? view.counts.station : 0,
    deviceType: kind,
    productId: String(planRow.id),
    country: (view.venue.country?.trim() || view.agent.country) ?? '',
    yajinChongzhi: depositPayment ? ('Y' as const) : ('N' as const),
    online: cabinet.online,
    lat: venue.lat,
    lng: venue.lng,
    priceStrategy: wire,
    // The wallet shown: the one read (its row's agent), else the agent the scan read it for (an empty wallet).
    userWallet: {
      pBalance: m(balance),
      pCurrencySymbol: currencySymbol(c),
      pDailiId: view.wallet?.agent_id ?? view.walletAgent,
    },
  };
}

export type ScanAnswer = ReturnType<typeof scanAnswer>;
