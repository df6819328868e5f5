// The embed's server side: which origins may frame the widget for an agent (exact origins, no patterns),
// and the web-vitals store behind the performance view.
import type { Clock } from '../../lib/clock.ts';
import type { AgentRow, EmbedRepository, VitalRow, VitalSummary } from './repository.ts';

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

export class EmbedService {
  constructor(private readonly repo: EmbedRepository, private readonly clock: Clock) {}

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
