// The demo control API (/demo-api/, served only while the cabinet simulator runs in the server process).
import { createClient } from '../src/api/client.ts';
import { $lang } from '../src/stores/locale.ts';

export interface DemoSlot {
  slot: number;
  powerbankId: string | null;
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
}

const demo = createClient({ baseURL: '/demo-api/', headers: () => ({ lang: $lang.get() }) });

export const demoState = () => demo.get<DemoState>('cabinets');

export const returnPowerbank = (cabinetId: string, powerbankId: string) =>
  demo.post<{ cabinetId: string; slot: number; powerbankId: string }>(`cabinets/${encodeURIComponent(cabinetId)}/return`, {
    body: { powerbankId },
    json: true,
  });

export const failNextEject = (cabinetId: string) =>
  demo.post<{ cabinetId: string; failNextEject: boolean }>(`cabinets/${encodeURIComponent(cabinetId)}/fail-next-eject`, {
    body: {},
    json: true,
  });
