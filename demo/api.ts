// The demo control API (/demo-api/, served only while the cabinet simulator runs in the server process).
import { createClient } from '../src/api/client.ts';
import { $lang } from '../src/stores/locale.ts';

export interface DemoSlot {
  slot: number;
  powerbankId: string | null;
  /** 'mifi' a Wi-Fi box, 'station' a power station; absent a power bank. */
  kind?: string;
}
export interface DemoCabinet {
  cabinetId: string;
  venueName: string;
  currency: string;
  online: boolean;
  slots: DemoSlot[];
}
export interface DemoState {
  cabinets: DemoCabinet[];
  outOnRent: { powerbankId: string; orderId: string; fromCabinetId: string }[];
  /** Wi-Fi boxes with a user, and the package each was picked up for. */
  boxesOut: { sn: string; packageId: string }[];
}

const demo = createClient({ baseURL: '/demo-api/', headers: () => ({ lang: $lang.get() }) });

export const demoState = () => demo.get<DemoState>('cabinets');

export const returnPowerbank = (cabinetId: string, powerbankId: string) =>
  demo.post<{ cabinetId: string; slot: number; powerbankId: string }>(
    `cabinets/${encodeURIComponent(cabinetId)}/return`,
    {
      body: { powerbankId },
      json: true,
    },
  );

export const failNextEject = (cabinetId: string) =>
  demo.post<{ cabinetId: string; failNextEject: boolean }>(
    `cabinets/${encodeURIComponent(cabinetId)}/fail-next-eject`,
    {
      body: {},
      json: true,
    },
  );

/** The box uses data: its traffic counter rises by `megabytes` (box-telemetry). */
export const pushTraffic = (sn: string, megabytes: number) =>
  demo.post<{ sn: string; bytesTotal: number }>(`boxes/${encodeURIComponent(sn)}/traffic`, {
    body: { megabytes },
    json: true,
  });

/** The box reads the pickup QR code the app shows. */
export const boxReadsCode = (sn: string, code: string) =>
  demo.post<{ sn: string; packageId: string }>(`boxes/${encodeURIComponent(sn)}/read-qr`, {
    body: { code },
    json: true,
  });
