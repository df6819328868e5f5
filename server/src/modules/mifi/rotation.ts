// The Wi-Fi password of a box rotates at each handover: when the box comes back into a cabinet, the server makes a
// new password (crypto-random), keeps it pending and has the cabinet tell the box (the `wifi-password` command of
// docs/cabinet-protocol.md). The box's `box-password` event confirms it; only then is it the password a holder sees
// (while pending, none is shown). A durable job sends the command and sends it again until the box confirmed, so a
// process restart or a broker restart loses nothing: the job is in the database, the command is idempotent.
import { randomBytes } from 'node:crypto';
import { uuid } from '../../lib/ids.ts';
import type { WifiPasswordCommand } from '../cabinets/protocol.ts';
import { JOB_MIFI_ROTATE, MifiPart } from './shared.ts';

/** How long the job waits for the box's confirmation before it sends the command again. */
export const ROTATE_RESEND_MS = 30_000;
/** A command older than this is refused by the cabinet (it is sent again, fresh, by the next run). */
const ROTATE_TTL_MS = 60_000;

/** A new Wi-Fi password: 16 characters from 96 random bits (base64url: letters, digits, '-' and '_'). */
export function newWifiPassword() {
  return randomBytes(12).toString('base64url');
}

export class MifiRotation extends MifiPart {
  /**
   * In the caller's unit of work (the box's return): a new password for the box, pending until the box confirms it;
   * an earlier rotation not confirmed yet is replaced (its command id no longer matches, its confirmation is ignored).
   */
  async start(sn: string, now: Date) {
    if (!(await this.d.boxesRepo.box(sn))) return;
    const commandId = uuid();
    await this.d.boxesRepo.setPendingPassword(sn, newWifiPassword(), commandId);
    const cabinetId = (await this.d.cabinets.powerbanks([sn]))[0]?.cabinet_id ?? null;
    await this.d.jobs.cancel(JOB_MIFI_ROTATE, 'sn', sn);
    await this.d.jobs.enqueue(JOB_MIFI_ROTATE, { sn, commandId, cabinetId, sends: 0 }, now);
  }

  /**
   * The job: unless the box confirmed (or a newer rotation replaced this one), the command goes to the cabinet the box
   * sits in (else the one it came back to), and the job checks again after ROTATE_RESEND_MS. The link being down
   * fails the run: the runner retries it with its backoff.
   */
  async send(p: Record<string, unknown>) {
    const sn = String(p.sn);
    const commandId = String(p.commandId);
    const box = await this.d.boxesRepo.box(sn);
    if (box?.password_command_id !== commandId || !box.pending_password) return;
    const cabinetId =
      (await this.d.cabinets.powerbanks([sn]))[0]?.cabinet_id ?? (p.cabinetId ? String(p.cabinetId) : null);
    if (!cabinetId) throw new Error(`no cabinet to reach box ${sn} through`);
    if (!this.d.link.isUp()) throw new Error('cabinet link down');
    const now = this.d.clock.now();
    const cmd: WifiPasswordCommand = {
      v: 2,
      id: commandId,
      type: 'wifi-password',
      ts: now.toISOString(),
      ttlMs: ROTATE_TTL_MS,
      sn,
      password: box.pending_password,
    };
    await this.d.link.send(cabinetId, cmd);
    await this.d.jobs.enqueue(
      JOB_MIFI_ROTATE,
      { sn, commandId, cabinetId, sends: Number(p.sends ?? 0) + 1 },
      new Date(now.getTime() + ROTATE_RESEND_MS),
    );
  }

  /** The cabinet's `box-password` event: the box applied the pending password of that command; it is now the box's. */
  async confirmed(e: { commandId: string; sn: string }) {
    if (await this.d.boxesRepo.confirmPassword(e.sn, e.commandId, this.d.clock.now())) {
      await this.d.jobs.cancel(JOB_MIFI_ROTATE, 'commandId', e.commandId);
    }
  }
}
