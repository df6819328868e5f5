// The back office's staff identity: passkey sign-up (invitation) and sign-in with a software authenticator,
// single sign-on against the sandbox issuer, CSRF, the idle timeout, sign out everywhere, optimistic
// concurrency, errors in the operator's language, the ops API's own OpenAPI document.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build, type Built } from './helper.ts';
import type { MailMessage, Mailer } from '../src/modules/notify/mailer.ts';
import { SoftAuthenticator } from './ops/authenticator.ts';
import { HOST, OpsConsole, ORIGIN } from './ops/console.ts';

class Inbox implements Mailer {
  readonly kind = 'outbox' as const;
  readonly sent: MailMessage[] = [];
  async send(msg: MailMessage) {
    this.sent.push(msg);
    return { messageId: String(this.sent.length) };
  }
}

/** Signs in at the sandbox issuer as `email`: the callback's answer. */
async function ssoSignIn(c: OpsConsole, email: string) {
  const start = new URL((await c.call('GET', '/session/sso')).headers.location as string);
  const form = new URLSearchParams({ ...Object.fromEntries(start.searchParams), email });
  const cb = new URL(
    (
      await c.call('POST', '/sandbox-oidc/authorize', form.toString(), {
        'content-type': 'application/x-www-form-urlencoded',
      })
    ).headers.location as string,
  );
  return c.call('GET', cb.pathname + cb.search);
}

describe('staff identity', () => {
  let b: Built;
  const inbox = new Inbox();
  let owner: OpsConsole;
  let ownerKey: SoftAuthenticator;

  beforeAll(async () => {
    b = await build({ simulator: false, mailer: inbox });
    const token = await b.app.powerly.staff.seedOwner('owner@powerly.local', 'Olivia Owner');
    owner = new OpsConsole(b.app);
    ownerKey = await owner.accept(token!);
  });
  afterAll(() => b.close());

  it('signs the seeded owner up with a passkey, once; a second seed makes nobody', async () => {
    const s = await owner.session();
    expect(s.me).toMatchObject({ email: 'owner@powerly.local' });
    expect(s.me?.permissions).toContain('staff.invite');
    expect(await b.app.powerly.staff.seedOwner('x@powerly.local', 'X')).toBeUndefined();
  });

  it('signs in with the passkey; refuses an assertion from another origin and a replayed ceremony', async () => {
    const c = new OpsConsole(b.app);
    const ok = await c.signInWith(ownerKey);
    expect(ok.statusCode).toBe(200);
    expect(ok.headers['set-cookie']).toEqual(
      expect.arrayContaining([expect.stringMatching(/^ops_session=.*HttpOnly; SameSite=Strict/)]),
    );
    expect((await c.session()).me?.email).toBe('owner@powerly.local');

    const phish = new OpsConsole(b.app);
    await phish.session();
    const options = (await phish.call('POST', '/session/passkey/options')).json<{ challenge: string }>();
    const bad = await phish.call('POST', '/session/passkey', {
      credential: ownerKey.assert(options, 'https://evil.example'),
    });
    expect(bad.statusCode).toBe(401);
    // The ceremony was used up by the refused answer.
    const again = await phish.call('POST', '/session/passkey', { credential: ownerKey.assert(options) });
    expect(again.statusCode).toBe(400);
  });

  it('refuses an unsafe method without the CSRF token, or with another one', async () => {
    const c = new OpsConsole(b.app);
    await c.signInWith(ownerKey);
    const token = c.csrf;
    c.csrf = '';
    expect((await c.call('POST', '/session/everywhere')).statusCode).toBe(403);
    c.csrf = 'x'.repeat(token.length);
    expect((await c.call('POST', '/session/everywhere')).json()).toMatchObject({ statusCode: 403, error: 'forbidden' });
    // Before signing in too (double submit): the pre-session token must match its cookie.
    const anon = new OpsConsole(b.app);
    expect((await anon.call('POST', '/session/passkey/options')).statusCode).toBe(403);
  });

  it('ends a session after the idle timeout, and every session at "sign out everywhere"', async () => {
    const idle = new OpsConsole(b.app);
    await idle.signInWith(ownerKey);
    b.clock.advance(29 * 60_000);
    expect((await idle.call('GET', '/me/passkeys')).statusCode).toBe(200);
    b.clock.advance(30 * 60_000 + 1);
    expect((await idle.call('GET', '/me/passkeys')).statusCode).toBe(401);

    const one = new OpsConsole(b.app);
    const two = new OpsConsole(b.app);
    await one.signInWith(ownerKey);
    await two.signInWith(ownerKey);
    const out = await one.call('POST', '/session/everywhere');
    expect(out.json<{ ended: number }>().ended).toBeGreaterThanOrEqual(2);
    expect((await two.call('GET', '/me/passkeys')).statusCode).toBe(401);
    expect((await owner.call('GET', '/me/passkeys')).statusCode).toBe(401);
    await owner.signInWith(ownerKey);
    const audit = (await owner.call('GET', '/audit?action=staff.signout-everywhere')).json<{
      items: Array<{ staffEmail: string; ip: string }>;
    }>();
    expect(audit.items[0]).toMatchObject({ staffEmail: 'owner@powerly.local', ip: '127.0.0.1' });
  });

  it('invites by e-mail link; the invited person signs up with a passkey; a second save with the same version is a 409', async () => {
    await owner.session();
    const res = await owner.call('POST', '/invitations', {
      email: 'sam@powerly.local',
      name: 'Sam Support',
      membership: { agentId: '*', role: 'support', venueIds: [] },
      reason: 'new support hire',
    });
    expect(res.statusCode).toBe(200);
    const mail = inbox.sent.at(-1)!;
    expect(mail.to).toBe('sam@powerly.local');
    const token = decodeURIComponent(/token=([^\s]+)/.exec(mail.text)![1]!);
    expect(mail.text).toContain(`${ORIGIN}/ops/#/invitation?token=`);
    const sam = new OpsConsole(b.app);
    await sam.accept(token);
    const me = (await sam.session()).me!;
    expect(me.permissions).toEqual(expect.arrayContaining(['staff.read', 'audit.read']));
    expect(me.permissions).not.toContain('staff.invite');
    // The link works once.
    expect((await new OpsConsole(b.app).call('GET', `/invitation?token=${encodeURIComponent(token)}`)).statusCode).toBe(
      404,
    );

    const read = await owner.call('GET', `/staff/${me.id}`);
    const etag = read.headers.etag as string;
    expect(etag).toMatch(/^"v\d+"$/);
    expect((await owner.call('PATCH', `/staff/${me.id}`, { name: 'Sam S.', reason: 'typo' })).statusCode).toBe(428);
    const first = await owner.call(
      'PATCH',
      `/staff/${me.id}`,
      { name: 'Sam S.', reason: 'name as on the contract' },
      { 'if-match': etag },
    );
    expect(first.statusCode).toBe(200);
    const second = await owner.call(
      'PATCH',
      `/staff/${me.id}`,
      { name: 'Samuel', reason: 'name change' },
      { 'if-match': etag, 'accept-language': 'pt-PT,pt;q=0.9' },
    );
    expect(second.statusCode).toBe(409);
    expect(second.json<{ message: string }>().message).toMatch(/^Outra pessoa guardou este registo/);

    const audit = (await owner.call('GET', `/audit?entity=staff&entityId=${me.id}&action=staff.update`)).json<{
      items: Array<{ before: { name: string }; after: { name: string }; reason: string }>;
    }>();
    expect(audit.items).toHaveLength(1);
    expect(audit.items[0]).toMatchObject({
      before: { name: 'Sam Support' },
      after: { name: 'Sam S.' },
      reason: 'name as on the contract',
    });
  });

  it('signs in with single sign-on at the sandbox issuer (authorization code with PKCE)', async () => {
    const c = new OpsConsole(b.app);
    const start = await c.call('GET', '/session/sso');
    expect(start.statusCode).toBe(302);
    const auth = new URL(start.headers.location as string);
    expect(auth.origin + auth.pathname).toBe(`${ORIGIN}/sandbox-oidc/authorize`);
    expect(auth.searchParams.get('code_challenge_method')).toBe('S256');
    const form = new URLSearchParams({ ...Object.fromEntries(auth.searchParams), email: 'OWNER@powerly.local' });
    const back = await c.call('POST', '/sandbox-oidc/authorize', form.toString(), {
      'content-type': 'application/x-www-form-urlencoded',
    });
    const callback = new URL(back.headers.location as string);
    expect(callback.pathname).toBe('/ops-api/v1/session/sso/callback');
    const done = await c.call('GET', callback.pathname + callback.search);
    expect(done.statusCode).toBe(302);
    expect(done.headers.location).toBe('/ops/');
    expect((await c.session()).me?.email).toBe('owner@powerly.local');

    // Someone the identity provider knows but who is not staff is refused.
    const stranger = new OpsConsole(b.app);
    const s2 = new URL((await stranger.call('GET', '/session/sso')).headers.location as string);
    const f2 = new URLSearchParams({ ...Object.fromEntries(s2.searchParams), email: 'nobody@example.com' });
    const cb2 = new URL(
      (
        await stranger.call('POST', '/sandbox-oidc/authorize', f2.toString(), {
          'content-type': 'application/x-www-form-urlencoded',
        })
      ).headers.location as string,
    );
    expect((await stranger.call('GET', cb2.pathname + cb2.search)).statusCode).toBe(401);
  });

  it("changes a person's role (If-Match; a second save with the same version is a 409); never one's own", async () => {
    await owner.session();
    const list = (await owner.call('GET', '/staff?q=sam')).json<{ items: Array<{ id: string; version: number }> }>();
    const sam = list.items[0]!;
    const etag = `"v${sam.version}"`;
    const first = await owner.call(
      'PUT',
      `/staff/${sam.id}/memberships/*`,
      { role: 'finance', venueIds: [], reason: 'moved to finance' },
      { 'if-match': etag },
    );
    expect(first.statusCode).toBe(200);
    expect(first.json()).toMatchObject({ memberships: [{ agentId: '*', role: 'finance', venueIds: [] }] });
    const second = await owner.call(
      'PUT',
      `/staff/${sam.id}/memberships/*`,
      { role: 'admin', venueIds: [], reason: 'promotion' },
      { 'if-match': etag },
    );
    expect(second.statusCode).toBe(409);
    expect(
      (await owner.call('PUT', `/staff/${sam.id}/memberships/*`, { role: 'admin', venueIds: [], reason: 'promotion' }))
        .statusCode,
    ).toBe(428);
    const me = (await owner.session()).me!;
    const mine = await owner.call(
      'PUT',
      `/staff/${me.id}/memberships/*`,
      { role: 'admin', venueIds: [], reason: 'oops' },
      { 'if-match': (await owner.call('GET', `/staff/${me.id}`)).headers.etag as string },
    );
    expect(mine.statusCode).toBe(400);
    const audit = (await owner.call('GET', `/audit?entity=staff&entityId=${sam.id}&action=staff.role`)).json<{
      items: Array<{ before: unknown; after: unknown; reason: string }>;
    }>();
    expect(audit.items).toHaveLength(1);
    expect(audit.items[0]).toMatchObject({
      before: { memberships: [{ role: 'support' }] },
      after: { memberships: [{ role: 'finance' }] },
      reason: 'moved to finance',
    });
  });

  it('revokes an invitation: its link stops working; a second revoke is a 409', async () => {
    await owner.session();
    const made = (
      await owner.call('POST', '/invitations', {
        email: 'gone@powerly.local',
        name: 'Gone',
        membership: { agentId: '*', role: 'read_only', venueIds: [] },
        reason: 'trial',
      })
    ).json<{ id: string }>();
    const token = decodeURIComponent(/token=([^\s]+)/.exec(inbox.sent.at(-1)!.text)![1]!);
    expect((await new OpsConsole(b.app).call('GET', `/invitation?token=${encodeURIComponent(token)}`)).statusCode).toBe(
      200,
    );
    const pending = (await owner.call('GET', '/invitations?state=pending&q=gone')).json<{
      items: Array<{ id: string; state: string; invitedBy: string }>;
    }>();
    expect(pending.items).toEqual([
      expect.objectContaining({ id: made.id, state: 'pending', invitedBy: 'owner@powerly.local' }),
    ]);
    const revoked = await owner.call('POST', `/invitations/${made.id}/revoke`, { reason: 'hired someone else' });
    expect(revoked.statusCode).toBe(200);
    expect(revoked.json()).toMatchObject({ state: 'revoked' });
    expect((await new OpsConsole(b.app).call('GET', `/invitation?token=${encodeURIComponent(token)}`)).statusCode).toBe(
      404,
    );
    expect((await owner.call('POST', `/invitations/${made.id}/revoke`, { reason: 'again' })).statusCode).toBe(409);
    expect((await owner.call('POST', '/invitations/999999/revoke', { reason: 'nothing' })).statusCode).toBe(404);
    const audit = (
      await owner.call('GET', `/audit?entity=invitation&entityId=${made.id}&action=staff.invitation-revoke`)
    ).json<{ items: Array<{ reason: string }> }>();
    expect(audit.items).toEqual([expect.objectContaining({ reason: 'hired someone else' })]);
  });

  it('invites by single sign-on: the first sign-on with that e-mail accepts it; a revoked one lets nobody in', async () => {
    await owner.session();
    const made = await owner.call('POST', '/invitations', {
      email: 'Ines@powerly.local',
      name: 'Ines',
      membership: { agentId: '*', role: 'support', venueIds: [] },
      signIn: 'sso',
      reason: 'uses the company login',
    });
    expect(made.statusCode).toBe(200);
    const mail = inbox.sent.at(-1)!;
    expect(mail.to).toBe('Ines@powerly.local');
    expect(mail.text).not.toContain('token=');
    expect(mail.text).toContain('single sign-on');
    const ines = new OpsConsole(b.app);
    expect((await ssoSignIn(ines, 'ines@powerly.local')).headers.location).toBe('/ops/');
    const me = (await ines.call('GET', '/session')).json<{ me: { email: string; memberships: unknown[] } }>().me;
    expect(me).toMatchObject({
      email: 'Ines@powerly.local',
      memberships: [{ agentId: '*', role: 'support', venueIds: [] }],
    });
    const state = (await owner.call('GET', '/invitations?q=ines')).json<{
      items: Array<{ state: string; signIn: string }>;
    }>();
    expect(state.items).toEqual([expect.objectContaining({ state: 'accepted', signIn: 'sso' })]);

    const other = (
      await owner.call('POST', '/invitations', {
        email: 'otto@powerly.local',
        name: 'Otto',
        membership: { agentId: '*', role: 'support', venueIds: [] },
        signIn: 'sso',
        reason: 'trial',
      })
    ).json<{ id: string }>();
    await owner.call('POST', `/invitations/${other.id}/revoke`, { reason: 'not hired' });
    expect((await ssoSignIn(new OpsConsole(b.app), 'otto@powerly.local')).statusCode).toBe(401);
  });

  it('serves its own OpenAPI document; the rider document does not list the ops routes', async () => {
    const ops = (await b.app.inject({ url: '/ops-api/v1/openapi.json', headers: { host: HOST } })).json<{
      paths: Record<string, unknown>;
    }>();
    expect(Object.keys(ops.paths)).toEqual(
      expect.arrayContaining(['/ops-api/v1/staff', '/ops-api/v1/staff/{id}', '/ops-api/v1/audit']),
    );
    const rider = (await b.app.inject({ url: '/cdb-app-api/v1/app/openapi.json' })).json<{
      paths: Record<string, unknown>;
    }>();
    expect(Object.keys(rider.paths).filter((p) => p.startsWith('/ops-api'))).toEqual([]);
  });
});
