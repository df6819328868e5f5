// Who may grant what: a role at an agent is granted from a membership there (or a platform-wide one) whose role may
// grant it (core/opsAccess.ts mayGrant); a membership names an agent that exists, and venues exactly for a venue partner.
import { AppError, badRequest } from '../../lib/errors.ts';
import { ALL_AGENTS, mayGrant, type Membership, type StaffRole } from '#core/opsAccess.ts';
import type { StaffPrincipal } from './service.ts';

export const forbidden = () => new AppError(403, 'ops.error.forbidden');

/** Refuses unless the inviter has a membership at `agentId` the inviter may grant `role` from (403 otherwise; the platform's: its owners only). */
export function granter(inviter: StaffPrincipal, agentId: string, ...roles: StaffRole[]): void {
  const g =
    inviter.memberships.find((x) => x.agentId === ALL_AGENTS) ?? inviter.memberships.find((x) => x.agentId === agentId);
  if (!g || roles.some((r) => !mayGrant(g.role, r)) || (agentId === ALL_AGENTS && g.role !== 'owner'))
    throw forbidden();
}

export async function checkMembership(agentExists: (id: string) => Promise<boolean>, m: Membership) {
  if (m.agentId !== ALL_AGENTS && !(await agentExists(m.agentId)))
    throw badRequest('ops.error.agent', { agent: m.agentId });
  if (m.role === 'venue_partner' ? !m.venueIds.length : m.venueIds.length) throw badRequest('ops.error.venues');
}
