// Ending one membership of a person (not their account): who may (role × scope), the person keeps their other
// memberships, their sessions end (the caller's own current one stays when they leave an agent themselves), the
// audit log records it, a stale version conflicts, and the platform's last owner cannot go.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build, type Built } from './helper.ts';
import { sha256 } from '../src/lib/ids.ts';
import { csrfOfSession } from '../src/plugins/ops-api.ts';
import type { Membership } from '#core/opsAccess.ts';
import { accessTable, callerConsoles, person, type Caller } from './ops/callers.ts';
import { OpsConsole } from './ops/console.ts';

//                 none platformOwner adminA adminB supportA financeA technicianA readOnlyA partnerA
const TABLE = { 'end a membership at A': [401, 200, 200, 404, 403, 403, 403, 403, 403] };
const support = (agentId: string): Membership => ({ agentId, role: 'support', venueIds: [] });
let n = 0;

describe('ending one membership', () => {
  let b: Built;
  let consoles = new Map<Caller, OpsConsole>();
  const owner = () => consoles.get('platformOwner')!;

  /** A person with the given memberships, signed in (their console). */
  async function member(...ms: Membership[]) {
    const email = `member${n++}@example.com`;
    const id = await person(b, email, ms[0]!);
    for (const m of ms.slice(1)) await b.app.powerly.staff.repo.setMembership(id, m);
    return { id, console: await signedIn(id) };
  }
  async function signedIn(id: string) {
    const c = new OpsConsole(b.app);
    const token = `session-${id}-${n++}-0123456789abcdef`;
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
    return c;
  }
  async function end(c: OpsConsole, id: string, agentId: string, etag?: string) {
    const version = etag ?? ((await owner().call('GET', `/staff/${id}`)).headers.etag as string);
    return c.call(
      'POST',
      `/staff/${id}/memberships/${encodeURIComponent(agentId)}/end`,
      { reason: 'membership ends' },
      { 'if-match': version },
    );
  }

  beforeAll(async () => {
    b = await build({ simulator: false });
    consoles = await callerConsoles(b);
  });
  afterAll(() => b.close());

  accessTable(TABLE, () => consoles, {
    'end a membership at A': async (c) => end(c, (await member(support('agent-a'), support('agent-b'))).id, 'agent-a'),
  });

  it("ends only that membership: the others stay, the person's sessions end, the audit log says who and why", async () => {
    const p = await member(support('agent-a'), { agentId: 'agent-b', role: 'read_only', venueIds: [] });
    expect((await p.console.call('GET', '/session')).json().me.memberships).toHaveLength(2);
    const res = await end(consoles.get('adminA')!, p.id, 'agent-a');
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().memberships).toEqual([{ agentId: 'agent-b', role: 'read_only', venueIds: [] }]);
    expect(res.json().disabled).toBe(false);
    // Their open console is signed out: they sign in again with what remains.
    expect((await p.console.call('GET', '/staff')).statusCode).toBe(401);
    const again = await signedIn(p.id);
    expect((await again.call('GET', '/session')).json().me.memberships).toEqual([
      { agentId: 'agent-b', role: 'read_only', venueIds: [] },
    ]);
    const { rows } = await b.db.query<{
      action: string;
      agent_id: string;
      reason: string;
      after: { sessionsEnded: number };
    }>(
      "select action, agent_id, reason, after from audit_log where entity_id = $1 and action = 'staff.membership-end'",
      [p.id],
    );
    expect(rows).toEqual([
      expect.objectContaining({
        agent_id: 'agent-a',
        reason: 'membership ends',
        after: expect.objectContaining({ sessionsEnded: 1 }),
      }),
    ]);
    // Ending it again: there is no such membership any more.
    expect((await end(owner(), p.id, 'agent-a')).statusCode).toBe(404);
  });

  it('lets a person leave one of their agents themselves, keeping the session they do it from', async () => {
    const p = await member(support('agent-a'), { agentId: 'agent-b', role: 'read_only', venueIds: [] });
    const elsewhere = await signedIn(p.id);
    const etag = (await p.console.call('GET', `/staff/${p.id}`)).headers.etag as string;
    const res = await end(p.console, p.id, 'agent-b', etag);
    expect(res.statusCode, res.body).toBe(200);
    expect((await p.console.call('GET', '/session')).json().me.memberships).toEqual([support('agent-a')]);
    expect((await elsewhere.call('GET', '/staff')).statusCode).toBe(401);
  });

  it('refuses a save over a stale version (409) and one without If-Match (428)', async () => {
    const p = await member(support('agent-a'), support('agent-b'));
    const stale = (await owner().call('GET', `/staff/${p.id}`)).headers.etag as string;
    await b.app.powerly.staff.repo.bumpVersion(p.id, Number(/\d+/.exec(stale)![0]));
    expect((await end(owner(), p.id, 'agent-a', stale)).statusCode).toBe(409);
    expect(
      (await owner().call('POST', `/staff/${p.id}/memberships/agent-a/end`, { reason: 'membership ends' })).statusCode,
    ).toBe(428);
  });

  it("never removes the platform's last owner", async () => {
    const me = (await owner().session()).me!;
    const last = await end(owner(), me.id, '*', (await owner().call('GET', `/staff/${me.id}`)).headers.etag as string);
    expect(last.statusCode).toBe(409);
    expect(last.json().message).toBe("This is the platform's last owner: make someone else an owner first.");
    // With a second owner, the first may step down (and the second may not then leave too).
    const second = await member({ agentId: '*', role: 'owner', venueIds: [] });
    expect((await end(second.console, me.id, '*')).statusCode).toBe(200);
    const alone = await end(
      second.console,
      second.id,
      '*',
      (await second.console.call('GET', `/staff/${second.id}`)).headers.etag as string,
    );
    expect(alone.statusCode).toBe(409);
  });
});
