// All simulated cabinets of this process, built from the database's view of the seeded cabinets.
import type { Db } from '../../db/db.ts';
import type { Clock } from '../../lib/clock.ts';
import type { DeviceKind } from '#core/devices.ts';
import type { MqttConnector } from '../../mqtt/broker.ts';
import { Liveness } from '../../modules/cabinets/liveness.ts';
import { CabinetsRepository } from '../../modules/cabinets/repository.ts';
import { SimulatedCabinet } from './cabinet.ts';

type FleetOptions = {
  connector: MqttConnector;
  prefix: string;
  clock: Clock;
  heartbeatMs?: number;
  ejectDelayMs?: number;
  resendMs?: number;
};
/** The seeded cabinets and the power banks in their slots (CabinetsRepository.inventory()). */
export type FleetInventory = Awaited<ReturnType<CabinetsRepository['inventory']>>;

/** What the demo page and its control API need of a simulated cabinet, whatever its protocol. */
export interface DemoCabinet {
  readonly id: string;
  readonly online: boolean;
  inventory(): { slot: number; powerbankId: string | null; kind?: string }[];
  holds(powerbankId: string): boolean;
  /** Someone pushes a power bank into a free slot (the cabinet reports the return as its protocol says). */
  insert(powerbankId: string): Promise<{ slot: number }>;
  failNextEject(): void;
  stop(): Promise<void>;
}

export class SimulatorFleet {
  readonly cabinets = new Map<string, SimulatedCabinet>();
  /** Cabinets of the vendor families, played by their own simulators (demo/vendors/), by id. */
  readonly vendors = new Map<string, DemoCabinet>();
  /** Devices that are not power banks (power stations, Wi-Fi boxes), by id: a device keeps its kind in any cabinet. */
  readonly kinds = new Map<string, DeviceKind>();

  static async fromDb(db: Db, o: FleetOptions) {
    return SimulatorFleet.fromInventory(await new CabinetsRepository(db, new Liveness(o.clock)).inventory(), o);
  }

  /** From an inventory read elsewhere (a bench runs the fleet in another process than the database's owner). */
  static fromInventory({ cabinets: cabs, banks }: FleetInventory, o: FleetOptions) {
    const fleet = new SimulatorFleet();
    for (const b of banks) if (b.kind !== 'cdb') fleet.kinds.set(b.id, b.kind);
    // A vendor family's cabinet speaks its own protocol: the demo simulates it apart (demo/vendors/).
    for (const c of cabs.filter((x) => x.vendor === 'powerly')) {
      const slots: (string | null)[] = Array.from({ length: c.slot_count }, () => null);
      for (const b of banks)
        if (b.cabinet_id === c.id && b.slot >= 1 && b.slot <= c.slot_count) slots[b.slot - 1] = b.id;
      fleet.cabinets.set(c.id, new SimulatedCabinet({ cabinetId: c.id, slots, kinds: fleet.kinds, ...o }));
    }
    return fleet;
  }

  async start() {
    await Promise.all([...this.cabinets.values()].map((c) => c.start()));
  }

  get(id: string) {
    return this.cabinets.get(id);
  }

  list() {
    return [...this.cabinets.values()];
  }

  /** Any simulated cabinet, of the internal protocol or of a vendor family. */
  demoCabinet(id: string): DemoCabinet | undefined {
    return this.cabinets.get(id) ?? this.vendors.get(id);
  }

  /** Whether any simulated cabinet holds the device. */
  held(powerbankId: string) {
    return !!this.holder(powerbankId) || [...this.vendors.values()].some((c) => c.holds(powerbankId));
  }

  holder(powerbankId: string) {
    return [...this.cabinets.values()].find((c) => c.holds(powerbankId));
  }

  async stop() {
    await Promise.all([...this.cabinets.values()].map((c) => c.stop()));
  }
}
