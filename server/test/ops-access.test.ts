// The ops API's authorisation step, as a table: role × scope × operation → the status each caller gets (an object
// outside the caller's scope is a 404, an operation their role lacks a 403, no session a 401); and the audit log
// is append-only on the database itself, and exported as CSV.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build, type Built } from './helper.ts';
import type { StaffRole } from '#core/opsAccess.ts';
import { accessTable, callerConsoles, person, type Caller } from './ops/callers.ts';
import type { OpsConsole } from './ops/console.ts';

type Op =
  | 'read staff of A'
  | 'list staff'
  | 'change staff of A'
  | 'change a role at A'
  | 'invite to A'
  | 'list invitations'
  | 'revoke an invitation to A'
  | 'read audit'
  | 'export audit';
//                 none platformOwner adminA adminB supportA financeA technicianA readOnlyA partnerA
const TABLE: Record<Op, number[]> = {
  'list staff': [401, 200, 200, 200, 200, 200, 403, 200, 403],
  'read staff of A': [401, 200, 200, 404, 200, 200, 403, 200, 403],
  'change staff of A': [401, 200, 200, 404, 403, 403, 403, 403, 403],
  'change a role at A': [401, 200, 200, 404, 403, 403, 403, 403, 403],
  'invite to A': [401, 200, 200, 403, 403, 403, 403, 403, 403],
  'list invitations': [401, 200, 200, 200, 200, 200, 403, 200, 403],
  'revoke an invitation to A': [401, 200, 200, 404, 403, 403, 403, 403, 403],
  'read audit': [401, 200, 200, 200, 200, 200, 403, 200, 403],
  'export audit': [401, 200, 200, 200, 403, 200, 403, 403, 403],
};

describe('the authorisation step', () => {
  let b: Built;
  let consoles = new Map<Caller, OpsConsole>();
  let target: string;

  beforeAll(async () => {
    b = await build({ simulator: false });
    consoles = await callerConsoles(b);
    target = await person(b, 'target@a.example', { agentId: 'agent-a', role: 'support' as StaffRole, venueIds: [] });
  });
  afterAll(() => b.close());

  const run: Record<Op, (c: OpsConsole) => Promise<{ statusCode: number }>> = {
    'list staff': (c) => c.call('GET', '/staff'),
    'read staff of A': (c) => c.call('GET', `/staff/${target}`),
    'change staff of A': async (c) => {
      const read = await consoles.get('platformOwner')!.call('GET', `/staff/${target}`);
      return c.call(
        'PATCH',
        `/staff/${target}`,
        { name: 'Target', reason: 'table test' },
        { 'if-match': read.headers.etag as string },
      );
    },
    'change a role at A': async (c) => {
      const read = await consoles.get('platformOwner')!.call('GET', `/staff/${target}`);
      return c.call(
        'PUT',
        `/staff/${target}/memberships/agent-a`,
        { role: 'support', venueIds: [], reason: 'table test' },
        { 'if-match': read.headers.etag as string },
      );
    },
    'list invitations': (c) => c.call('GET', '/invitations'),
    'revoke an invitation to A': async (c) => {
      const made = await consoles.get('platformOwner')!.call('POST', '/invitations', {
        email: 'revoke@a.example',
        name: 'Revoke',
        membership: { agentId: 'agent-a', role: 'support', venueIds: [] },
        reason: 'table test',
      });
      return c.call('POST', `/invitations/${made.json<{ id: string }>().id}/revoke`, { reason: 'table test' });
    },
    'invite to A': (c) =>
      c.call('POST', '/invitations', {
        email: 'new@a.example',
        name: 'New',
        membership: { agentId: 'agent-a', role: 'support', venueIds: [] },
        reason: 'table test',
      }),
    'read audit': (c) => c.call('GET', '/audit'),
    'export audit': (c) => c.call('GET', '/audit.csv'),
  };

  accessTable(TABLE, () => consoles, run);

  it("lists only the staff inside the caller's agents", async () => {
    const ids = async (caller: Caller) =>
      (await consoles.get(caller)!.call('GET', '/staff?sort=email&limit=2')).json<{
        items: Array<{ email: string }>;
        next?: string;
      }>();
    const b1 = await ids('adminB');
    expect(b1.items.map((s) => s.email.toLowerCase())).toEqual(['adminb@example.com']);
    // Pages by cursor: every person of agent A, once.
    const seen: string[] = [];
    let url = '/staff?sort=email&limit=2';
    for (;;) {
      const page = (await consoles.get('adminA')!.call('GET', url)).json<{
        items: Array<{ email: string }>;
        next?: string;
      }>();
      seen.push(...page.items.map((s) => s.email.toLowerCase()));
      if (!page.next) break;
      url = `/staff?sort=email&limit=2&cursor=${page.next}`;
    }
    expect(seen).toEqual([...seen].sort());
    expect(seen).toContain('target@a.example');
    expect(seen).not.toContain('adminb@example.com');
    expect(new Set(seen).size).toBe(seen.length);
    expect((await consoles.get('adminA')!.call('GET', '/staff?cursor=bm90LWEtY3Vyc29y')).statusCode).toBe(400);
  });

  it('lets an admin grant only roles below owner, at their own agents, never to themselves', async () => {
    const adminA = consoles.get('adminA')!;
    const put = async (c: OpsConsole, id: string, agentId: string, role: string) => {
      const read = await consoles.get('platformOwner')!.call('GET', `/staff/${id}`);
      return c.call(
        'PUT',
        `/staff/${id}/memberships/${agentId}`,
        { role, venueIds: [], reason: 'role rules' },
        { 'if-match': read.headers.etag as string },
      );
    };
    expect((await put(adminA, target, 'agent-a', 'owner')).statusCode).toBe(403);
    expect((await put(adminA, target, 'agent-b', 'support')).statusCode).toBe(403);
    expect((await put(adminA, target, '*', 'support')).statusCode).toBe(403);
    const me = (await adminA.session()).me!;
    expect((await put(adminA, me.id, 'agent-a', 'support')).statusCode).toBe(400);
    // A venue partner needs venues; another role takes none.
    expect((await put(adminA, target, 'agent-a', 'venue_partner')).statusCode).toBe(400);
    const ok = await put(adminA, target, 'agent-a', 'finance');
    expect(ok.statusCode).toBe(200);
    expect(ok.json<{ memberships: unknown[] }>().memberships).toEqual([
      { agentId: 'agent-a', role: 'finance', venueIds: [] },
    ]);
    // adminB sees neither the person nor agent A's invitations.
    const invitations = (await consoles.get('adminB')!.call('GET', '/invitations?state=pending')).json<{
      items: Array<{ membership: { agentId: string } }>;
    }>();
    expect(invitations.items.filter((i) => i.membership.agentId !== 'agent-b')).toEqual([]);
    const ofA = (await adminA.call('GET', '/invitations?state=revoked&limit=1')).json<{
      items: Array<{ state: string; membership: { agentId: string } }>;
      next?: string;
    }>();
    expect(ofA.items[0]).toMatchObject({ state: 'revoked', membership: { agentId: 'agent-a' } });
    expect(ofA.next).toBeDefined();
  });

  it('keeps the audit log append-only: the database refuses UPDATE and DELETE', async () => {
    const before = (await b.db.query<{ n: number }>('select count(*)::int as n from audit_log')).rows[0]!.n;
    expect(before).toBeGreaterThan(0);
    await expect(b.db.query("update audit_log set reason = 'rewritten'")).rejects.toThrow(/append-only/);
    await expect(b.db.query('delete from audit_log')).rejects.toThrow(/append-only/);
    await expect(b.db.query('truncate audit_log')).rejects.toThrow(/append-only/);
    expect((await b.db.query<{ n: number }>('select count(*)::int as n from audit_log')).rows[0]!.n).toBe(before);
  });

  it("exports the audit log as CSV, with the agent's entries only", async () => {
    const res = await consoles.get('adminA')!.call('GET', '/audit.csv');
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    const lines = res.body.trim().split('\r\n');
    expect(lines[0]).toBe(
      'id,at,staff_id,staff_email,ip,user_agent,action,entity,entity_id,agent_id,before,after,reason',
    );
    expect(lines.length).toBeGreaterThan(1);
    expect(lines.slice(1).every((l) => l.includes(',agent-a,'))).toBe(true);
  });
});
