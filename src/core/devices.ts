// Device kinds (power bank, power station, Wi-Fi box). One vocabulary on the wire, in the database and
// in the cabinet protocol: 'cdb' a power bank, 'station' a power station (energyStorageFlag), 'mifi' a Wi-Fi box.
export const DEVICE_KINDS = ['cdb', 'station', 'mifi'] as const;
export type DeviceKind = (typeof DEVICE_KINDS)[number];
/** The kinds rented by time with a deposit (the power-bank lifecycle); a Wi-Fi box is rented with a package. */
export const RENTAL_KINDS = ['cdb', 'station'] as const;
export type RentalKind = (typeof RENTAL_KINDS)[number];

export function isDeviceKind(v: unknown): v is DeviceKind {
  return typeof v === 'string' && (DEVICE_KINDS as readonly string[]).includes(v);
}

/** A rental kind from a query value; anything else (absent, unknown, 'mifi') is a power bank. */
export function rentalKind(v: unknown): RentalKind {
  return v === 'station' ? 'station' : 'cdb';
}

/** The order's pType on the wire (chargeNowMifi for Wi-Fi). */
export function orderPType(kind: DeviceKind): string {
  return kind === 'mifi' ? 'chargeNowMifi' : kind === 'station' ? 'powerStation' : 'cdb';
}

/** The device of an order on the wire: its deviceType, else what its pType says. */
export function deviceOf(o: { deviceType?: DeviceKind; pType?: string }): DeviceKind {
  if (o.deviceType) return o.deviceType;
  return o.pType === 'chargeNowMifi' ? 'mifi' : o.pType === 'powerStation' ? 'station' : 'cdb';
}
