// Where the scan goes ("Scan flow"). Pure: no DOM, no stores.
import type { ScanResult } from '../contract/cabinets.ts';

/**
 * The scan fields the rule reads: the cabinet holds Wi-Fi batteries (haveMifiBattery / a Wi-Fi battery count > 0),
 * a package type name, the venue. This server sends haveMifiBattery and mifiBatteryCount for a cabinet; typeName
 * and data are the fields of a scanned Wi-Fi device, which an operator back end may send.
 */
export type ScanResultInput = Partial<Pick<ScanResult, 'haveMifiBattery'>> & {
  shopid?: ScanResult['shopid'] | null;
  mifiBatteryCount?: number;
  typeName?: string | null;
  /** A scanned Wi-Fi box answers with its device data (a result with a data field opens packageDetail). */
  data?: unknown;
};

export type ScanTarget = '/selectPakage' | '/packageDetail' | '/home';

function present(v: unknown): boolean {
  return v !== undefined && v !== null && String(v).trim() !== '';
}

/**
 * In this order: a cabinet with a Wi-Fi battery → package selection; typeName present (or a result with
 * data: a Wi-Fi box) → package detail; shopid present → package selection; otherwise the cabinet home.
 */
export function scanTarget(c: ScanResultInput): ScanTarget {
  if (c.haveMifiBattery || (c.mifiBatteryCount ?? 0) > 0) return '/selectPakage';
  if (present(c.typeName) || present(c.data)) return '/packageDetail';
  if (present(c.shopid)) return '/selectPakage';
  return '/home';
}

/**
 * The open-rentals question ('you have {zujieNum} orders that are not closed') comes only for a power-bank
 * scan with open rentals, not for a scanned Wi-Fi device (a result with typeName or device data): a traveller's
 * open power-bank rental does not stand between them and their box.
 */
export function asksAboutOpenOrders(c: ScanResultInput & { zujieNum?: number }): boolean {
  return (c.zujieNum ?? 0) > 0 && !present(c.typeName) && !present(c.data);
}
