// The demo's cabinets of the vendor families (SANDBOX=on with the simulator only; main.ts never reaches this with
// SANDBOX=off): one "0xA8" cabinet over the broker and one binary-TCP cabinet on the gateway's port, registered at
// the Vilnius venue with their power banks, each played by its family's simulator so that `npm start` rents from and
// returns to them end to end through the gateways (docs/cabinet-protocol.md "Vendor families").
import type { Db } from '../../db/db.ts';
import { fleetServices } from '../../fleet.ts';
import type { Clock } from '../../lib/clock.ts';
import { FieldErrors } from '../../lib/validate.ts';
import type { MqttConnector } from '../../mqtt/broker.ts';
import { Liveness } from '../../modules/cabinets/liveness.ts';
import { CabinetsRepository } from '../../modules/cabinets/repository.ts';
import type { VendorGateway } from '../../modules/cabinets/vendors/gateway.ts';
import { TcpGateway } from '../../modules/cabinets/vendors/tcp60/gateway.ts';
import type { DemoCabinet } from '../simulator/fleet.ts';
import { A8Cabinet } from './a8-cabinet.ts';
import { TcpCabinet } from './tcp-cabinet.ts';

const VENUE = 'v-vno-gedimino';
const A8_UUID = '860602069165357';
/** 2 boards of 3 positions; serials as the family reports them (decimal, 4 bytes). */
const A8_BOARDS = 2;
const A8_HOLES = 3;
const A8_BANKS = ['10000001', '10000002', '10000003', '10000004'];
const TCP_BOX = 'VNO01';
const TCP_SLOTS = 6;
const TCP_BANKS = ['BXPB0001', 'BXPB0002', 'BXPB0003', 'BXPB0004'];

/**
 * The vendor gateways' settings for the demo: the environment's, with the demo's defaults where unset (the 0xA8
 * family under `VL-`, the TCP family on a free port of this machine). The TCP cabinet signs with its own secret,
 * issued at every start (`start`'s `issue`) as an operator would.
 */
export function demoVendorEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return {
    ...env,
    VENDOR_A8_PREFIX: env.VENDOR_A8_PREFIX || 'VL-',
    VENDOR_TCP_PORT: env.VENDOR_TCP_PORT || '0',
    VENDOR_TCP_HOST: env.VENDOR_TCP_HOST || '127.0.0.1',
  };
}

interface Registered {
  id: string;
  vendor: 'a8' | 'tcp60';
  slots: number;
  banks: string[];
}

/** Registers the two cabinets and their power banks as an operator would (once; what moved since stays). */
async function seedVendorCabinets(db: Db, clock: Clock, cabinets: Registered[]) {
  const fleet = fleetServices({ db, clock });
  await db.tx(async () => {
    for (const c of cabinets) {
      try {
        await fleet.cabinets.register({ id: c.id, vendor: c.vendor, slots: c.slots, venueId: VENUE });
      } catch (err) {
        if (err instanceof FieldErrors && err.problems.every((p) => p.code === 'duplicate')) continue;
        throw err;
      }
      for (const [i, bank] of c.banks.entries())
        await fleet.cabinets.registerDevice({ id: bank, cabinetId: c.id, slot: i + 1 });
    }
  });
}

export interface DemoVendorOptions {
  db: Db;
  clock: Clock;
  connector: MqttConnector;
  env: NodeJS.ProcessEnv;
  gateways: VendorGateway[];
  heartbeatMs: number;
}

/** Seeds the vendor cabinets (at `prepare`), then plays them once the link and its gateways run (`start`). */
export async function prepareDemoVendors(o: DemoVendorOptions) {
  const a8Id = `${o.env.VENDOR_A8_PREFIX}${A8_UUID}`;
  const tcp = o.gateways.find((g): g is TcpGateway => g instanceof TcpGateway);
  const tcpId = `${o.env.VENDOR_TCP_PREFIX || 'BX-'}${TCP_BOX}`;
  const wanted: Registered[] = [
    ...(o.env.VENDOR_A8_PREFIX
      ? [{ id: a8Id, vendor: 'a8' as const, slots: A8_BOARDS * A8_HOLES, banks: A8_BANKS }]
      : []),
    ...(tcp ? [{ id: tcpId, vendor: 'tcp60' as const, slots: TCP_SLOTS, banks: TCP_BANKS }] : []),
  ];
  await seedVendorCabinets(o.db, o.clock, wanted);
  const cabinets = new Map<string, DemoCabinet>();

  /** What each slot holds now, by the records (power banks that moved since the seed stay where they are). */
  const slotsOf = async (id: string, count: number) => {
    const { banks } = await new CabinetsRepository(o.db, new Liveness(o.clock)).inventory();
    const slots: (string | null)[] = Array.from({ length: count }, () => null);
    for (const b of banks) if (b.cabinet_id === id && b.slot >= 1 && b.slot <= count) slots[b.slot - 1] = b.id;
    return slots;
  };

  return {
    cabinets,
    /** `issue`: the cabinets' credentials as the console issues them (the fleet service's issueCredentials). */
    async start(issue: (cabinetId: string) => Promise<{ password: string }>) {
      if (wanted.some((c) => c.vendor === 'a8')) {
        const flat = await slotsOf(a8Id, A8_BOARDS * A8_HOLES);
        const sim = new A8Cabinet(
          A8_UUID,
          Array.from({ length: A8_BOARDS }, (_, b) => flat.slice(b * A8_HOLES, (b + 1) * A8_HOLES)),
          () => o.clock.now().getTime(),
        );
        await sim.connect(o.connector, o.heartbeatMs);
        cabinets.set(a8Id, a8Demo(a8Id, sim));
      }
      if (tcp?.port) {
        const { password: secret } = await issue(tcpId);
        const sim = new TcpCabinet(TCP_BOX, await slotsOf(tcpId, TCP_SLOTS), secret);
        await sim.connect(tcp.port);
        sim.beatEvery(o.heartbeatMs);
        cabinets.set(tcpId, tcpDemo(tcpId, sim));
      }
    },
    async stop() {
      await Promise.all([...cabinets.values()].map((c) => c.stop()));
    },
  };
}

function a8Demo(id: string, sim: A8Cabinet): DemoCabinet {
  return {
    id,
    get online() {
      return sim.online;
    },
    inventory: () => sim.serials.flat().map((sn, i) => ({ slot: i + 1, powerbankId: sn })),
    holds: (bank) => sim.serials.flat().includes(bank),
    async insert(bank) {
      const { board, hole } = await sim.insert(bank);
      return { slot: (board - 1) * A8_HOLES + hole };
    },
    failNextEject: () => void (sim.failNextWith = 0x00),
    stop: () => sim.close(),
  };
}

function tcpDemo(id: string, sim: TcpCabinet): DemoCabinet {
  return {
    id,
    get online() {
      return sim.online;
    },
    inventory: () => sim.banks.map((bank, i) => ({ slot: i + 1, powerbankId: bank })),
    holds: (bank) => sim.banks.includes(bank),
    insert(bank) {
      // The server answers once the return is stored; the cabinet re-sends it with its heartbeats until then.
      void sim.insert(bank);
      return Promise.resolve({ slot: sim.banks.indexOf(bank) + 1 });
    },
    failNextEject: () => void (sim.jamNext = true),
    stop: () => sim.close(),
  };
}
