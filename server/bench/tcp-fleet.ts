// The TCP cabinets of `npm run bench:tcp`, in a process of their own so that the API process's memory and CPU are
// the API's alone. Driven by server/bench/tcp-scale.ts over IPC:
//  - start: open `count` connections to the gateway, a few hundred at a time; each logs in (0x60) with its power
//    banks, answers the server's inventory requests (0x64) and sends a heartbeat (0x61) every `heartbeatMs`, the
//    first one at a random point of the period (cabinets are not switched on in the same second);
//  - count: the counts so far; from then on a connection the server closes is expected (the API process stops);
//  - stop: close every connection.
// Each cabinet is the family's frames over one socket (server/src/modules/cabinets/vendors/tcp60/codec.ts), as the
// simulator of the demo and the tests (server/src/demo/vendors/tcp-cabinet.ts) speaks them, without its bookkeeping per frame.
import net from 'node:net';
import {
  SLOT_BITS,
  TCP_CMD,
  TcpFramer,
  decodeTcp,
  encodeInventory,
  encodeLogin,
  encodeTcp,
} from '../src/modules/cabinets/vendors/tcp60/codec.ts';

export type TcpFleetCommand =
  | { type: 'start'; port: number; secret: string; count: number; heartbeatMs: number }
  | { type: 'count' }
  | { type: 'stop' };
export type TcpFleetReport =
  | { type: 'started'; connected: number; refused: number; ms: number; rss: number }
  | { type: 'counted'; heartbeats: number; inventories: number; closedByServer: number }
  | { type: 'stopped' };

/** The bench's box ids and power bank ids (the bench seeds cabinets `BX-<box id>`). */
export const boxId = (i: number) => `T${String(i + 1).padStart(6, '0')}`;
/** The family's power bank ids are at most 8 ASCII characters. */
export const bankId = (i: number, slot: number) => `B${String(i + 1).padStart(5, '0')}${slot}`;
export const TCP_SLOTS = 8;
export const TCP_BANKS = 5;

const send = (m: TcpFleetReport) => process.send!(m);
const sockets: net.Socket[] = [];
const timers: NodeJS.Timeout[] = [];
let stopping = false;
let heartbeats = 0;
let inventories = 0;
let closedByServer = 0;

function cabinet(i: number, c: Extract<TcpFleetCommand, { type: 'start' }>): Promise<boolean> {
  const banks = Array.from({ length: TCP_SLOTS }, (_, s) => (s < TCP_BANKS ? bankId(i, s + 1) : null));
  const frame = (cmd: number, payload: Buffer) => encodeTcp(cmd, payload, c.secret);
  const inventory = frame(
    TCP_CMD.inventory,
    encodeInventory(banks.flatMap((b, s) => (b ? [{ slot: s + 1, bankId: b, level: 90 }] : []))),
  );
  const heartbeat = frame(TCP_CMD.heartbeat, Buffer.alloc(0));
  return new Promise((resolve) => {
    const socket = net.connect(c.port, '127.0.0.1');
    const framer = new TcpFramer();
    let loggedIn = false;
    socket.on('data', (chunk) => {
      for (const raw of framer.push(chunk)) {
        const f = decodeTcp(raw, c.secret);
        if (f.cmd === TCP_CMD.login && !loggedIn) {
          loggedIn = true;
          resolve(f.payload[0] === 1);
          const first = setTimeout(() => {
            const beat = () => {
              if (socket.destroyed) return;
              socket.write(heartbeat);
              heartbeats++;
            };
            beat();
            timers.push(setInterval(beat, c.heartbeatMs));
          }, Math.random() * c.heartbeatMs);
          timers.push(first);
        } else if (f.cmd === TCP_CMD.inventory) {
          socket.write(inventory);
          inventories++;
        }
      }
    });
    socket.on('error', () => resolve(false));
    socket.on('close', () => {
      if (!stopping) closedByServer++;
      if (!loggedIn) resolve(false);
    });
    socket.once('connect', () => {
      socket.setNoDelay(true);
      const slots = banks.map((id, s) => ({
        slot: s + 1,
        bankId: id,
        level: id ? 90 : 0,
        voltage: id ? 4100 : 0,
        current: 0,
        temperature: 25,
        status: id ? SLOT_BITS.present | SLOT_BITS.locked : 0,
        health: id ? 98 : 0,
      }));
      socket.write(frame(TCP_CMD.login, encodeLogin(boxId(i), slots)));
    });
    sockets.push(socket);
  });
}

process.on('message', (m: TcpFleetCommand) => {
  void (async () => {
    if (m.type === 'start') {
      const t0 = performance.now();
      let connected = 0;
      let refused = 0;
      const BATCH = 200;
      for (let i = 0; i < m.count; i += BATCH) {
        const ok = await Promise.all(Array.from({ length: Math.min(BATCH, m.count - i) }, (_, k) => cabinet(i + k, m)));
        connected += ok.filter(Boolean).length;
        refused += ok.filter((x) => !x).length;
      }
      send({ type: 'started', connected, refused, ms: performance.now() - t0, rss: process.memoryUsage().rss });
    } else if (m.type === 'count') {
      stopping = true;
      send({ type: 'counted', heartbeats, inventories, closedByServer });
    } else {
      for (const t of timers) clearTimeout(t);
      for (const s of sockets) s.destroy();
      send({ type: 'stopped' });
    }
  })();
});
