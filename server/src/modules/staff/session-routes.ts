// The ops API's sign-in (docs/api.md "Ops API"): the session state, passkey sign-in, single sign-on, sign-out
// (here or everywhere), the signed-in person's passkeys, and accepting an invitation with a new passkey.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { readCookie, setCookie } from '../../lib/cookies.ts';
import type { App } from '../../lib/route.ts';
import { Ok } from '#contract/ops/common.ts';
import {
  InvitationAccept,
  InvitationInfo,
  InvitationToken,
  PasskeyLoginVerify,
  PasskeyRegisterVerify,
  PasskeyShape,
  SessionState,
  WebAuthnOptions,
} from '#contract/ops/staff.ts';
import {
  actorOf,
  clearSessionCookie,
  csrfOfSession,
  OPS_PREFIX,
  preSessionCsrf,
  secure,
  sendSessionCookie,
  SESSION_COOKIE,
  staffOf,
} from '../../plugins/ops-api.ts';
import type { Passkeys, RelyingParty } from './passkeys.ts';
import type { StaffService } from './service.ts';
import type { StaffSessions } from './sessions.ts';
import type { SingleSignOn } from './sso.ts';

const CEREMONY_COOKIE = 'ops_ceremony';

export interface SessionRouteOptions {
  staff: StaffService;
  sessions: StaffSessions;
  passkeys: Passkeys;
  sso?: SingleSignOn;
  /** The console's origin (OPS_ORIGIN, else PUBLIC_URL); unset: the request's own. */
  origin?: string;
}

export function relyingParty(req: FastifyRequest, origin?: string): RelyingParty {
  const o = origin ? new URL(origin).origin : `${req.protocol}://${req.host}`;
  return { origin: o, rpId: new URL(o).hostname };
}

function setCeremony(req: FastifyRequest, reply: FastifyReply, id: string) {
  // Lax, not Strict: the single sign-on callback arrives as a navigation from the identity provider's site.
  setCookie(reply, CEREMONY_COOKIE, id, { path: OPS_PREFIX, sameSite: 'Lax', secure: secure(req), maxAgeS: 600 });
}

export function sessionRoutes(o: SessionRouteOptions) {
  const from = (req: FastifyRequest) => ({ ip: req.ip, userAgent: String(req.headers['user-agent'] ?? '') });
  const signedIn = async (req: FastifyRequest, reply: FastifyReply, staffId: string, method: string) => {
    const token = await o.sessions.open(staffId, method, from(req));
    const csrf = sendSessionCookie(req, reply, token, o.sessions.settings.maxMs);
    const p = await o.staff.principal(staffId);
    return { csrf, me: p ? await o.staff.me(p) : undefined, sso: !!o.sso };
  };

  return async (ops: App) => {
    ops.get(
      '/session',
      { config: { permission: 'public' }, schema: { response: { 200: SessionState } } },
      async (req, reply) => {
        const token = readCookie(req, SESSION_COOKIE);
        if (req.staff && token) return { csrf: csrfOfSession(token), me: await o.staff.me(req.staff), sso: !!o.sso };
        return { csrf: preSessionCsrf(req, reply), sso: !!o.sso };
      },
    );

    ops.post(
      '/session/passkey/options',
      { config: { permission: 'public' }, schema: { response: { 200: WebAuthnOptions } } },
      async (req, reply) => {
        const { options, ceremony } = await o.passkeys.loginOptions(relyingParty(req, o.origin));
        setCeremony(req, reply, ceremony);
        return options;
      },
    );

    ops.post(
      '/session/passkey',
      { config: { permission: 'public' }, schema: { body: PasskeyLoginVerify, response: { 200: SessionState } } },
      async (req, reply) => {
        const staff = await o.passkeys.verifyLogin(
          relyingParty(req, o.origin),
          readCookie(req, CEREMONY_COOKIE),
          req.body.credential,
        );
        return signedIn(req, reply, staff.id, 'passkey');
      },
    );

    ops.get('/session/sso', { config: { permission: 'public' }, schema: { hide: true } }, async (req, reply) => {
      if (!o.sso) return reply.callNotFound();
      const rp = relyingParty(req, o.origin);
      const { url, ceremony } = await o.sso.start(`${rp.origin}${OPS_PREFIX}/session/sso/callback`);
      setCeremony(req, reply, ceremony);
      return reply.redirect(url);
    });

    ops.get(
      '/session/sso/callback',
      { config: { permission: 'public' }, schema: { hide: true } },
      async (req, reply) => {
        if (!o.sso) return reply.callNotFound();
        const rp = relyingParty(req, o.origin);
        const email = await o.sso.finish(
          new URL(req.url, rp.origin),
          `${rp.origin}${OPS_PREFIX}/session/sso/callback`,
          readCookie(req, CEREMONY_COOKIE),
        );
        const staff = await o.staff.signInBySso(email, from(req));
        await signedIn(req, reply, staff.id, 'oidc');
        return reply.redirect('/ops/');
      },
    );

    ops.delete(
      '/session',
      { config: { permission: 'signed-in' }, schema: { response: { 200: Ok } } },
      async (req, reply) => {
        if (req.opsSession) await o.sessions.close(req.opsSession.tokenHash);
        clearSessionCookie(req, reply);
        return { ok: true as const };
      },
    );

    ops.post(
      '/session/everywhere',
      {
        config: { permission: 'signed-in' },
        schema: {
          description: 'Ends every session of the signed-in person, this one included.',
          response: { 200: Type.Object({ ended: Type.Integer() }) },
        },
      },
      async (req, reply) => {
        const me = staffOf(req);
        const ended = await o.staff.signOutEverywhere(actorOf(req, null), me.id);
        clearSessionCookie(req, reply);
        return { ended };
      },
    );

    ops.get(
      '/me/passkeys',
      { config: { permission: 'signed-in' }, schema: { response: { 200: Type.Array(PasskeyShape) } } },
      async (req) => o.staff.passkeys(staffOf(req)),
    );

    ops.post(
      '/me/passkeys/options',
      { config: { permission: 'signed-in' }, schema: { response: { 200: WebAuthnOptions } } },
      async (req, reply) => {
        const me = staffOf(req);
        const { options, ceremony } = await o.passkeys.registrationOptions(relyingParty(req, o.origin), me);
        setCeremony(req, reply, ceremony);
        return options;
      },
    );

    ops.post(
      '/me/passkeys',
      { config: { permission: 'signed-in' }, schema: { body: PasskeyRegisterVerify, response: { 200: Ok } } },
      async (req) => {
        const me = staffOf(req);
        const cred = await o.passkeys.verifyRegistration(
          relyingParty(req, o.origin),
          readCookie(req, CEREMONY_COOKIE),
          req.body.credential,
        );
        if (cred.staffId !== me.id) throw new Error('ceremony of another person');
        const label = req.body.label?.trim() || 'passkey';
        await o.staff.addPasskey(actorOf(req, null), me.id, cred, label);
        return { ok: true as const };
      },
    );

    ops.get(
      '/invitation',
      {
        config: { permission: 'public' },
        schema: { errors: [404], querystring: InvitationToken, response: { 200: InvitationInfo } },
      },
      async (req) => {
        const i = await o.staff.invitation(req.query.token);
        return { email: i.email, name: i.name };
      },
    );

    ops.post(
      '/invitation/options',
      {
        config: { permission: 'public' },
        schema: { errors: [404, 409, 422], body: InvitationToken, response: { 200: WebAuthnOptions } },
      },
      async (req, reply) => {
        const i = await o.staff.invitation(req.body.token);
        const existing = await o.staff.repo.byEmail(i.email);
        const { options, ceremony } = await o.passkeys.registrationOptions(
          relyingParty(req, o.origin),
          { id: existing?.id ?? '', email: i.email, name: i.name },
          'passkey-invitation',
        );
        setCeremony(req, reply, ceremony);
        return options;
      },
    );

    ops.post(
      '/invitation/accept',
      {
        config: { permission: 'public' },
        schema: { errors: [404, 409, 422], body: InvitationAccept, response: { 200: SessionState } },
      },
      async (req, reply) => {
        const cred = await o.passkeys.verifyRegistration(
          relyingParty(req, o.origin),
          readCookie(req, CEREMONY_COOKIE),
          req.body.credential,
          'passkey-invitation',
        );
        const staff = await o.staff.accept(req.body.token, cred, from(req));
        return signedIn(req, reply, staff.id, 'invitation');
      },
    );
  };
}
