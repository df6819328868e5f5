// Staff sessions: a random token in an HttpOnly, SameSite=Strict cookie (Secure over HTTPS), its SHA-256 in
// staff_sessions; the CSRF token is derived from the session's token (plugins/ops-api.ts `csrfOfSession`). A session ends
// after `idleMs` without a request, after `maxMs` in any case, at sign-out, and everywhere at "sign out everywhere".
import type { Clock } from '../../lib/clock.ts';
import { randomToken, sha256 } from '../../lib/ids.ts';
import type { StaffRepository } from './repository.ts';

export interface SessionSettings {
  /** OPS_IDLE_MINUTES (default 30). */
  idleMs: number;
  /** OPS_SESSION_HOURS (default 12): the absolute lifetime. */
  maxMs: number;
}

export const DEFAULT_SESSION_SETTINGS: SessionSettings = { idleMs: 30 * 60_000, maxMs: 12 * 3_600_000 };

/** last_seen_at moves at most once a minute: a busy console writes no row per request. */
const TOUCH_EVERY_MS = 60_000;

export interface LiveSession {
  staffId: string;
  tokenHash: string;
}

export class StaffSessions {
  constructor(
    private readonly repo: StaffRepository,
    private readonly clock: Clock,
    readonly settings: SessionSettings,
  ) {}

  /** A new session's token (the cookie's value). */
  async open(staffId: string, method: string, from: { ip: string; userAgent: string }): Promise<string> {
    const token = randomToken();
    const at = this.clock.now();
    await this.repo.insertSession({
      tokenHash: sha256(token),
      staffId,
      method,
      ip: from.ip,
      userAgent: from.userAgent.slice(0, 300),
      at,
      expiresAt: new Date(at.getTime() + this.settings.maxMs),
    });
    return token;
  }

  /** The live session of a cookie's token; an idle or expired one is deleted and answers undefined. */
  async find(token: string | undefined): Promise<LiveSession | undefined> {
    if (!token) return undefined;
    const tokenHash = sha256(token);
    const s = await this.repo.session(tokenHash);
    if (!s) return undefined;
    const now = this.clock.now().getTime();
    const seen = new Date(s.last_seen_at).getTime();
    if (now - seen >= this.settings.idleMs || now >= new Date(s.expires_at).getTime()) {
      await this.repo.deleteSession(tokenHash);
      return undefined;
    }
    if (now - seen >= TOUCH_EVERY_MS) await this.repo.touchSession(tokenHash, this.clock.now());
    return { staffId: s.staff_id, tokenHash };
  }

  async close(tokenHash: string) {
    await this.repo.deleteSession(tokenHash);
  }

  /** Ends every session of the person (this one included): the count ended. */
  closeAll(staffId: string): Promise<number> {
    return this.repo.deleteSessionsOf(staffId);
  }
}
