// A simulated cabinet of the binary TCP family (0x60–0x8F), the demo's and the tests': it connects to the
// gateway's port, logs in with its slots, answers borrows, inventories and heartbeats as the family's document
// says, and reports each return until the server answers it (again after a reconnect, and with every heartbeat).
// Sandbox only: the demo starts it (demo/vendors/index.ts) with SANDBOX=on; production never imports it.
import net from 'node:net';
import {
  SLOT_BITS,
  TCP_CMD,
  TcpFramer,
  decodeTcp,
  encodeEjectResult,
  encodeInventory,
  encodeLogin,
  encodeReturn,
  encodeTcp,
} from '../../modules/cabinets/vendors/tcp60/codec.ts';

export class TcpCabinet {
  private socket: net.Socket | null = null;
  private timer: NodeJS.Timeout | null = null;
  readonly banks: (string | null)[];
  /** Every frame the server sent (command and payload). */
  readonly received: { cmd: number; payload: Buffer }[] = [];
  /** Returns the server has not answered yet, by slot (re-sent until it does). */
  readonly unanswered = new Map<number, string>();
  /** The firmware version it reports (0x62). */
  firmware = 'BX-FW 2.4.1';
  /** Its speaker volume, 0–15 (0x70 sets it, 0x77 asks it). */
  volume = 8;
  /** Restarts (0x67) carried out: answered, then the connection ends and it logs in again. */
  restarts = 0;
  /** The next borrow fails (jammed). */
  jamNext = false;
  /** The next borrow ejects but its answer never reaches the server (lost with the process that sent it). */
  loseNextAnswer = false;
  /** The next borrow never reaches the cabinet (nothing ejected, no answer). */
  missNext = false;
  private readonly waiters: { cmd: number; resolve: (p: Buffer) => void }[] = [];

  /** `secret`: the token secret set in this cabinet (an operator changes it after a rotation). */
  constructor(
    readonly boxId: string,
    banks: (string | null)[],
    public secret: string,
  ) {
    this.banks = [...banks];
  }

  get online() {
    return !!this.socket && !this.socket.destroyed;
  }

  /** Connects and logs in; resolves with the server's answer to the login (0x01: accepted). */
  async connect(port: number, host = '127.0.0.1') {
    const socket = net.connect(port, host);
    this.socket = socket;
    const framer = new TcpFramer();
    socket.on('data', (chunk) => {
      for (const raw of framer.push(chunk)) {
        let f;
        try {
          f = decodeTcp(raw, this.secret);
        } catch {
          return void socket.destroy(); // not our server's token
        }
        this.received.push({ cmd: f.cmd, payload: f.payload });
        this.answer(f.cmd, f.payload);
        const i = this.waiters.findIndex((w) => w.cmd === f.cmd);
        if (i >= 0) this.waiters.splice(i, 1)[0]!.resolve(f.payload);
      }
    });
    socket.on('error', () => undefined);
    socket.on('close', () => {
      if (this.socket === socket) this.socket = null;
    });
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', () => resolve());
      socket.once('error', reject);
    });
    const slots = this.banks.map((id, i) => ({
      slot: i + 1,
      bankId: id,
      level: id ? 90 : 0,
      voltage: id ? 4100 : 0,
      current: 0,
      temperature: 25,
      status: id ? SLOT_BITS.present | SLOT_BITS.locked : 0,
      health: id ? 98 : 0,
    }));
    // A login refused before (its connection closed unanswered) waits no more: this one's answer is this login's.
    for (let i = this.waiters.length - 1; i >= 0; i--)
      if (this.waiters[i]!.cmd === TCP_CMD.login) this.waiters.splice(i, 1);
    const ok = this.next(TCP_CMD.login);
    this.send(TCP_CMD.login, encodeLogin(this.boxId, slots));
    const answer = await Promise.race([
      ok,
      new Promise<Buffer>((resolve) => socket.once('close', () => resolve(Buffer.alloc(0)))),
    ]);
    if (answer[0] === 0x01) this.resend();
    return answer;
  }

  /** Beats every `ms` (0x61; the server asks the inventory in return), re-sending unanswered returns with it. */
  beatEvery(ms: number) {
    if (this.timer) clearInterval(this.timer);
    this.timer = setInterval(() => {
      if (!this.online) return;
      this.send(TCP_CMD.heartbeat, Buffer.alloc(0));
      this.resend();
    }, ms);
  }

  close() {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.socket?.destroy();
    this.socket = null;
    return Promise.resolve();
  }

  send(cmd: number, payload: Buffer) {
    const s = this.socket;
    if (s && !s.destroyed) s.write(encodeTcp(cmd, payload, this.secret));
  }

  /** Raw bytes on the connection (a test's partial or broken frame). */
  raw(bytes: Buffer) {
    this.socket?.write(bytes);
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
    this.unanswered.set(slot, id);
    const answer = this.next(TCP_CMD.returned);
    this.send(TCP_CMD.returned, encodeReturn(slot, id));
    return answer;
  }

  private resend() {
    for (const [slot, id] of this.unanswered) this.send(TCP_CMD.returned, encodeReturn(slot, id));
  }

  private answer(cmd: number, p: Buffer) {
    const locks = () => this.banks.map((b) => b !== null);
    if (cmd === TCP_CMD.inventory) {
      this.send(
        TCP_CMD.inventory,
        encodeInventory(this.banks.flatMap((b, i) => (b ? [{ slot: i + 1, bankId: b, level: 90 }] : []))),
      );
    } else if (cmd === TCP_CMD.firmware) {
      this.send(TCP_CMD.firmware, Buffer.from(this.firmware, 'latin1'));
    } else if (cmd === TCP_CMD.setVolume) {
      const ok = p.length === 1 && p[0]! <= 15;
      if (ok) this.volume = p[0]!;
      this.send(TCP_CMD.setVolume, Buffer.from([ok ? 0x01 : 0x00]));
    } else if (cmd === TCP_CMD.volume) {
      this.send(TCP_CMD.volume, Buffer.from([this.volume]));
    } else if (cmd === TCP_CMD.restart) {
      this.restarts++;
      this.send(TCP_CMD.restart, Buffer.from([0x01]));
    } else if (cmd === TCP_CMD.returned) {
      if (p[1] === 0x01 && this.unanswered.get(p[0]!) === this.banks[p[0]! - 1]) this.unanswered.delete(p[0]!);
    } else if (cmd === TCP_CMD.borrow || cmd === TCP_CMD.forceEject) {
      const slot = p[0]!;
      const id = this.banks[slot - 1] ?? null;
      if (this.missNext) return void (this.missNext = false);
      if (this.jamNext || !id) {
        this.jamNext = false;
        return this.send(cmd, encodeEjectResult({ slot, ok: false, bankId: id, locks: locks() }));
      }
      this.banks[slot - 1] = null;
      if (this.loseNextAnswer) return void (this.loseNextAnswer = false);
      this.send(cmd, encodeEjectResult({ slot, ok: true, bankId: id, locks: locks() }));
    }
  }
}
