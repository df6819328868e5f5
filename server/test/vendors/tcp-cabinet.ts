// A simulated cabinet of the binary TCP family (0x60–0x8F), test tree only: it connects to the gateway's port,
// logs in with its slots, answers borrows, inventories and heartbeats as the family's document says, and reports
// returns until the server answers them.
import net from 'node:net';
import {
  SLOT_BITS, TCP_CMD, TcpFramer, decodeTcp, encodeEjectResult, encodeInventory, encodeLogin, encodeReturn, encodeTcp,
} from '../../src/modules/cabinets/vendors/tcp60/codec.ts';

export class TcpCabinet {
  private socket: net.Socket | null = null;
  readonly banks: (string | null)[];
  /** Every frame the server sent (command and payload). */
  readonly received: { cmd: number; payload: Buffer }[] = [];
  /** The next borrow fails (jammed). */
  jamNext = false;
  private readonly waiters: { cmd: number; resolve: (p: Buffer) => void }[] = [];

  constructor(readonly boxId: string, banks: (string | null)[], private readonly secret: string) {
    this.banks = [...banks];
  }

  async connect(port: number) {
    const socket = net.connect(port, '127.0.0.1');
    this.socket = socket;
    const framer = new TcpFramer();
    socket.on('data', (chunk) => {
      for (const raw of framer.push(chunk)) {
        const f = decodeTcp(raw, this.secret);
        this.received.push({ cmd: f.cmd, payload: f.payload });
        this.answer(f.cmd, f.payload);
        const i = this.waiters.findIndex((w) => w.cmd === f.cmd);
        if (i >= 0) this.waiters.splice(i, 1)[0]!.resolve(f.payload);
      }
    });
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', () => resolve());
      socket.once('error', reject);
    });
    const slots = this.banks.map((id, i) => ({
      slot: i + 1, bankId: id, level: id ? 90 : 0, voltage: id ? 4100 : 0, current: 0, temperature: 25,
      status: id ? SLOT_BITS.present | SLOT_BITS.locked : 0, health: id ? 98 : 0,
    }));
    const ok = this.next(TCP_CMD.login);
    this.send(TCP_CMD.login, encodeLogin(this.boxId, slots));
    return ok;
  }

  close() {
    this.socket?.destroy();
    this.socket = null;
    return Promise.resolve();
  }

  send(cmd: number, payload: Buffer) {
    this.socket!.write(encodeTcp(cmd, payload, this.secret));
  }

  /** The next frame of this command from the server. */
  next(cmd: number) {
    return new Promise<Buffer>((resolve) => this.waiters.push({ cmd, resolve }));
  }

  heartbeat() {
    const inventory = this.next(TCP_CMD.inventory);
    this.send(TCP_CMD.heartbeat, Buffer.alloc(0));
    return inventory;
  }

  /** Someone pushes a power bank into the first free slot; resolves with the server's answer (slot, result). */
  insert(id: string) {
    const slot = this.banks.indexOf(null) + 1;
    if (slot < 1) throw new Error('no free slot');
    this.banks[slot - 1] = id;
    const answer = this.next(TCP_CMD.returned);
    this.send(TCP_CMD.returned, encodeReturn(slot, id));
    return answer;
  }

  private answer(cmd: number, p: Buffer) {
    const locks = () => this.banks.map((b) => b !== null);
    if (cmd === TCP_CMD.inventory) {
      this.send(TCP_CMD.inventory, encodeInventory(this.banks.flatMap((b, i) => (b ? [{ slot: i + 1, bankId: b, level: 90 }] : []))));
    } else if (cmd === TCP_CMD.borrow || cmd === TCP_CMD.forceEject) {
      const slot = p[0]!;
      const id = this.banks[slot - 1] ?? null;
      if (this.jamNext || !id) {
        this.jamNext = false;
        return this.send(cmd, encodeEjectResult({ slot, ok: false, bankId: id, locks: locks() }));
      }
      this.banks[slot - 1] = null;
      this.send(cmd, encodeEjectResult({ slot, ok: true, bankId: id, locks: locks() }));
    }
  }
}
