// Where the scan goes (spec §4 "Scan flow"). Pure: no DOM, no stores.

export interface ScanResultInput {
  /** The cabinet holds Wi-Fi batteries (haveMifiBattery / a Wi-Fi battery count > 0). */
  haveMifiBattery?: boolean;
  mifiBatteryCount?: number;
  typeName?: string | null;
  shopid?: string | number | null;
}

export type ScanTarget = '/selectPakage' | '/packageDetail' | '/home';

function present(v: unknown): boolean {
  return v !== undefined && v !== null && String(v).trim() !== '';
}

/**
 * Spec §4, in this order: a cabinet with a Wi-Fi battery → package selection; typeName present → package
 * detail; shopid present → package selection; otherwise the cabinet home.
 */
export function scanTarget(c: ScanResultInput): ScanTarget {
  if (c.haveMifiBattery || (c.mifiBatteryCount ?? 0) > 0) return '/selectPakage';
  if (present(c.typeName)) return '/packageDetail';
  if (present(c.shopid)) return '/selectPakage';
  return '/home';
}
