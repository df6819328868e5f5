// A simulated cabinet of the "0xA8" family (the demo's and the tests'): it speaks what the family's document says —
// JSON commands in on /powerbank/{uuid}/user/get, binary frames out on /user/update, /user/heart and /user/upload —
// and keeps its slots (boards × positions, a serial per power bank) in memory. Sandbox only: the demo starts it
// (demo/vendors/index.ts) with SANDBOX=on; production never imports it.
import type { MqttClient } from 'mqtt';
import type { MqttConnector } from '../../mqtt/broker.ts';
import {
  a8Topics,
  encodeA8,
  encodePopupBySerial,
  encodePopupBySlot,
  encodeReturned,
  encodeStatus,
  parseA8Command,
  type A8Status,
} from '../../modules/cabinets/vendors/a8/codec.ts';

export class A8Cabinet {
  private client: MqttClient | null = null;
  private timer: NodeJS.Timeout | null = null;
  /** serials[board - 1][hole - 1]; null = empty. */
  readonly serials: (string | null)[][];
  readonly received: unknown[] = [];
  /** The next pop-up answers this result code instead of ejecting (e.g. 0x05, TTL expired). */
  failNextWith: number | null = null;

  constructor(
    readonly uuid: string,
    layout: (string | null)[][],
    private readonly clock: () => number,
  ) {
    this.serials = layout.map((b) => [...b]);
  }

  /** `reboot` commands carried out (the simulated firmware restarts in place). */
  restarts = 0;
  /** Its speaker volume, 0–100 (`volume`; the family reports it nowhere). */
  volume = 50;

  get online() {
    return this.client?.connected ?? false;
  }

  /**
   * Connects; with `everyMs`, it beats (/user/heart) and reports its slots (/user/upload) at once and then on
   * that interval, as the family's firmware does on its timer.
   */
  async connect(connector: MqttConnector, everyMs?: number) {
    const c = connector.connect({ clientId: `a8-${this.uuid}`, clean: true });
    this.client = c;
    c.on('message', (_topic, payload) => void this.command(payload).catch(() => undefined));
    await new Promise<void>((resolve) => c.once('connect', () => resolve()));
    await c.subscribeAsync(a8Topics(this.uuid).get, { qos: 1 });
    if (everyMs) {
      const beat = () => Promise.all([this.heart(), this.report()]).catch(() => undefined);
      await beat();
      this.timer = setInterval(() => void beat(), everyMs);
    }
  }

  async close() {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.client?.endAsync();
    this.client = null;
  }

  status(): A8Status {
    return {
      boards: this.serials.map((_, i) => ({ index: i + 1, temperature: 30, softVersion: 1, hardVersion: 1 })),
      slots: this.serials.flatMap((b, i) =>
        b.map((sn, h) => ({
          board: i + 1,
          hole: h + 1,
          status: sn ? 1 : 0,
          sn,
          area: 0,
          charge: sn ? 90 : null,
          temperature: sn ? 28 : null,
          voltage: sn ? 42 : null,
          current: sn ? 5 : null,
          softVersion: 1,
          hardVersion: 1,
        })),
      ),
    };
  }

  private pub(topic: string, frame: Buffer) {
    if (!this.client) return Promise.resolve(undefined);
    return this.client.publishAsync(topic, frame, { qos: 1 });
  }

  heart() {
    return this.pub(a8Topics(this.uuid).heart, encodeA8(0x7a));
  }

  /** Its own full report (as on a timer). */
  report() {
    return this.pub(a8Topics(this.uuid).upload, encodeStatus(this.status()));
  }

  /** Someone pushes power bank `sn` into a free position. */
  async insert(sn: string) {
    for (const [b, board] of this.serials.entries()) {
      const h = board.indexOf(null);
      if (h < 0) continue;
      board[h] = sn;
      await this.pub(
        a8Topics(this.uuid).upload,
        encodeReturned({ board: b + 1, hole: h + 1, state: 1, sn, charge: 80 }),
      );
      return { board: b + 1, hole: h + 1 };
    }
    throw new Error('no free position');
  }

  private async command(payload: Buffer) {
    const cmd = parseA8Command(payload);
    this.received.push(cmd);
    const t = a8Topics(this.uuid);
    if (!cmd) return;
    if (cmd.cmd === 'check_all' || cmd.cmd === 'check') return this.pub(t.update, encodeStatus(this.status()));
    if (cmd.cmd === 'upload_all') return this.report();
    if (cmd.cmd === 'reboot') return void this.restarts++;
    if (cmd.cmd === 'volume') {
      const level = Number(cmd.data);
      if (Number.isInteger(level) && level >= 0 && level <= 100) this.volume = level;
      return;
    }
    if (cmd.cmd !== 'popup_sn' && cmd.cmd !== 'popup') return;
    const code = this.refusal(cmd.timestamp, cmd.ttl);
    if (cmd.cmd === 'popup_sn') {
      const at = this.find(cmd.data);
      if (code !== 0x01 || !at)
        return this.pub(t.update, encodePopupBySerial(at?.board ?? 0, cmd.data, at ? code : 0x00));
      this.serials[at.board - 1]![at.hole - 1] = null;
      return this.pub(t.update, encodePopupBySerial(at.board, cmd.data, 0x01));
    }
    const board = Number(cmd.io);
    const hole = Number(cmd.data);
    const here = this.serials[board - 1]?.[hole - 1];
    if (code === 0x01 && here) this.serials[board - 1]![hole - 1] = null;
    return this.pub(t.update, encodePopupBySlot(board, hole, here ? code : 0x00));
  }

  /** 0x01 to go ahead; else the result code the document gives for a stale command. */
  private refusal(timestamp?: number, ttl?: number) {
    if (this.failNextWith !== null) {
      const c = this.failNextWith;
      this.failNextWith = null;
      return c;
    }
    if (timestamp === undefined || ttl === undefined) return 0x01;
    const now = Math.floor(this.clock() / 1000);
    if (timestamp > now + 60) return 0x04;
    return now > timestamp + ttl ? 0x05 : 0x01;
  }

  private find(sn: string) {
    for (const [b, board] of this.serials.entries()) {
      const h = board.indexOf(sn);
      if (h >= 0) return { board: b + 1, hole: h + 1 };
    }
    return null;
  }
}
