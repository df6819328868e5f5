// The callers of the ops API's role × scope tables: one signed-in console per role (agent A, agent B, the platform
// and a venue partner of venue V001), and the table runner that checks each operation's status for every caller.
import { expect, it } from 'vitest';
import type { Membership } from '#core/opsAccess.ts';
import { sha256 } from '../../src/lib/ids.ts';
import { csrfOfSession } from '../../src/plugins/ops-api.ts';
import type { Built } from '../helper.ts';
import { OpsConsole } from './console.ts';

export type Caller =
  'none' | 'platformOwner' | 'adminA' | 'adminB' | 'supportA' | 'financeA' | 'technicianA' | 'readOnlyA' | 'partnerA';
export const MEMBERSHIPS: Record<Exclude<Caller, 'none'>, Membership> = {
  platformOwner: { agentId: '*', role: 'owner', venueIds: [] },
  adminA: { agentId: 'agent-a', role: 'admin', venueIds: [] },
  adminB: { agentId: 'agent-b', role: 'admin', venueIds: [] },
  supportA: { agentId: 'agent-a', role: 'support', venueIds: [] },
  financeA: { agentId: 'agent-a', role: 'finance', venueIds: [] },
  technicianA: { agentId: 'agent-a', role: 'field_technician', venueIds: [] },
  readOnlyA: { agentId: 'agent-a', role: 'read_only', venueIds: [] },
  partnerA: { agentId: 'agent-a', role: 'venue_partner', venueIds: ['V001'] },
};
/** The order of a table's columns. */
export const CALLERS: Caller[] = [
  'none',
  'platformOwner',
  'adminA',
  'adminB',
  'supportA',
  'financeA',
  'technicianA',
  'readOnlyA',
  'partnerA',
];

/** A staff member with one membership, straight into the repository (the table is about the step, not invitations). */
export async function person(b: Built, email: string, m: Membership): Promise<string> {
  const staff = b.app.powerly.staff.repo;
  const s = await staff.create(email, email.split('@')[0]!, b.clock.now());
  await staff.setMembership(s.id, m);
  return s.id;
}

/** Agents A and B, and a signed-in console for every caller (`none` has a pre-session CSRF token only). */
export async function callerConsoles(b: Built): Promise<Map<Caller, OpsConsole>> {
  for (const id of ['agent-a', 'agent-b']) await b.app.powerly.embed.saveAgent({ id, name: id, origins: [] });
  const consoles = new Map<Caller, OpsConsole>();
  for (const caller of CALLERS) {
    const c = new OpsConsole(b.app);
    if (caller !== 'none') {
      const id = await person(b, `${caller}@example.com`, MEMBERSHIPS[caller]);
      const token = `session-of-${caller}-0123456789abcdef`;
      await b.app.powerly.staff.repo.insertSession({
        tokenHash: sha256(token),
        staffId: id,
        method: 'passkey',
        ip: '127.0.0.1',
        userAgent: 't',
        at: b.clock.now(),
        expiresAt: new Date(b.clock.now().getTime() + 3_600_000),
      });
      c.jar.set('ops_session', token);
      c.csrf = csrfOfSession(token);
    } else {
      await c.session();
    }
    consoles.set(caller, c);
  }
  return consoles;
}

/** One test per operation: every caller's status, in CALLERS order, equals the table's row. */
export function accessTable<Op extends string>(
  table: Record<Op, number[]>,
  consoles: () => Map<Caller, OpsConsole>,
  run: Record<Op, (c: OpsConsole) => Promise<{ statusCode: number }>>,
) {
  for (const [op, expected] of Object.entries(table) as Array<[Op, number[]]>) {
    it(`${op}: ${CALLERS.map((c, i) => `${c} ${expected[i]}`).join(', ')}`, async () => {
      const got: number[] = [];
      for (const caller of CALLERS) got.push((await run[op](consoles().get(caller)!)).statusCode);
      expect(got).toEqual(expected);
    });
  }
}
