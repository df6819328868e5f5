// The embed's server side: which origins may frame the widget for an agent (exact origins, no patterns),
// and the web-vitals store behind the performance view.
import type { Clock } from '../../lib/clock.ts';
import { notFound, AppError } from '../../lib/errors.ts';
import type { AuthService } from '../auth/service.ts';
import { issueCode, verifyCode } from './codes.ts';
import type { AgentRow, EmbedCodesRepository, EmbedRepository, VitalRow, VitalSummary } from './repository.ts';

export const AGENT_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** A serialised http(s) origin exactly as browsers send it; "null" and anything with a path never pass. */
export function isOrigin(s: string): boolean {
  if (s === 'null' || !/^https?:\/\/[^/?#\s*]+$/.test(s)) return false;
  try {
    return new URL(s).origin === s;
  } catch {
    return false;
  }
}

/** The CSP frame-ancestors value for an agent: its exact origins, or 'none' when it has none. */
export function frameAncestors(agent: AgentRow | undefined): string {
  const origins = (agent?.origins ?? []).filter(isOrigin);
  return origins.length ? origins.join(' ') : "'none'";
}

export interface EmbedServiceDeps {
  repo: EmbedRepository;
  codes: EmbedCodesRepository;
  /** Sessions are the auth module's: a redeemed code gets one of its sessions. */
  auth: Pick<AuthService, 'issueSession'>;
  clock: Clock;
  /** HMAC key of the one-time codes; the same on every API process (EMBED_SIGNING_KEY). */
  signingKey: string;
}

export class EmbedService {
  private readonly repo: EmbedRepository;
  private readonly clock: Clock;
  constructor(private readonly d: EmbedServiceDeps) {
    this.repo = d.repo;
    this.clock = d.clock;
  }

  /** A signed one-time code for a web-view of `agent`, bound to the signed-in user. */
  async issueCode(userId: number, agent: string): Promise<{ code: string; expiresAt: number }> {
    if (!(await this.agent(agent))) throw notFound('error.embedAgent');
    const { code, claims } = issueCode(this.d.signingKey, agent, this.clock.now().getTime());
    await this.d.codes.create({ jti: claims.j, agentId: agent, userId, expiresAt: new Date(claims.e) });
    return { code, expiresAt: claims.e };
  }

  /** Redeems a code once (valid signature, unexpired, unused, same agent) for a fresh session of its user. */
  async redeemCode(code: string, agent: string): Promise<{ token: string }> {
    const now = this.clock.now();
    const claims = verifyCode(this.d.signingKey, code, now.getTime());
    if (!claims || claims.a !== agent) throw new AppError(401, 'error.embedCode');
    const userId = await this.d.codes.use(claims.j, agent, now);
    if (userId === undefined) throw new AppError(401, 'error.embedCode');
    return { token: await this.d.auth.issueSession(userId) };
  }

  async agent(id: string): Promise<AgentRow | undefined> {
    return AGENT_ID.test(id) ? this.repo.agent(id) : undefined;
  }

  async saveAgent(a: AgentRow): Promise<void> {
    if (!AGENT_ID.test(a.id)) throw new Error(`bad agent id ${a.id}`);
    const bad = a.origins.filter((o) => !isOrigin(o));
    if (bad.length) throw new Error(`not exact origins: ${bad.join(', ')}`);
    await this.repo.upsertAgent(a);
  }

  recordVital(v: VitalRow): Promise<void> {
    return this.repo.addVital(v);
  }

  summary(days: number): Promise<VitalSummary[]> {
    return this.repo.summary(this.clock.now().getTime() - days * 86_400_000);
  }
}
