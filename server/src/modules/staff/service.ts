// Staff: who they are, their memberships (a role per agent), invitations by e-mail link, changes with optimistic
// concurrency. Every write is recorded in the audit log in its own unit of work.
import type { Db } from '../../db/db.ts';
import type { Clock } from '../../lib/clock.ts';
import { AppError, badRequest, conflict, notFound } from '../../lib/errors.ts';
import { randomToken, sha256 } from '../../lib/ids.ts';
import { staleVersion } from '../../lib/ops-concurrency.ts';
import { decodeCursor, pageOf } from '../../lib/ops-query.ts';
import {
  ALL_AGENTS,
  inScope,
  mayGrant,
  permissionsOf,
  scopeOf,
  type Membership,
  type Scope,
  type StaffRole,
} from '#core/opsAccess.ts';
import type {
  InvitationCreate,
  InvitationListQuery,
  InvitationShape,
  Me,
  MembershipChange,
  StaffListQuery,
  StaffShape,
  StaffUpdate,
} from '#contract/ops/staff.ts';
import type { Actor, AuditService } from '../audit/service.ts';
import type { Mailer } from '../notify/mailer.ts';
import type { InvitationListRow, StaffRepository, StaffRow } from './repository.ts';
import { ssoRefused } from './sso.ts';

const INVITATION_MS = 7 * 24 * 3_600_000;

export interface StaffDeps {
  db: Db;
  repo: StaffRepository;
  clock: Clock;
  audit: AuditService;
  mailer: Mailer;
  /** Whether an agent exists (the embed module's agents). */
  agentExists: (id: string) => Promise<boolean>;
}

/** A signed-in staff member as the authorisation step knows them. */
export interface StaffPrincipal {
  id: string;
  email: string;
  name: string;
  memberships: Membership[];
}

export const forbidden = () => new AppError(403, 'ops.error.forbidden');

export class StaffService {
  constructor(private readonly d: StaffDeps) {}

  get repo() {
    return this.d.repo;
  }

  /** The signed-in person with their memberships; undefined when disabled or gone. */
  async principal(id: string): Promise<StaffPrincipal | undefined> {
    const s = await this.d.repo.byId(id);
    if (!s || s.disabled_at) return undefined;
    const memberships = (await this.d.repo.memberships([id])).get(id) ?? [];
    return { id, email: s.email, name: s.name, memberships };
  }

  async me(p: StaffPrincipal): Promise<Me> {
    const passkeys = await this.d.repo.passkeysOf(p.id);
    const version = (await this.d.repo.byId(p.id))?.version;
    return {
      id: p.id,
      email: p.email,
      name: p.name,
      memberships: p.memberships,
      permissions: permissionsOf(p.memberships),
      passkeys: passkeys.length,
      ...(version === undefined ? {} : { version }),
    };
  }

  async passkeys(p: StaffPrincipal) {
    return (await this.d.repo.passkeysOf(p.id)).map((k) => ({
      id: k.credential_id,
      label: k.label,
      createdAt: new Date(k.created_at).toISOString(),
      ...(k.last_used_at ? { lastUsedAt: new Date(k.last_used_at).toISOString() } : {}),
    }));
  }

  async list(scope: Scope, q: StaffListQuery) {
    const limit = q.limit ?? 50;
    const rows = await this.d.repo.list({
      agents: scope.kind === 'all' ? null : scope.kind === 'agents' ? scope.agents : [],
      q: q.q,
      agentId: q.agentId,
      sort: q.sort ?? 'name',
      after: decodeCursor(q.cursor),
      limit: limit + 1,
    });
    const memberships = await this.d.repo.memberships(rows.map((r) => r.id));
    return pageOf(
      rows,
      limit,
      (r) => [r.sort_key, r.id],
      (r) => shape(r, memberships.get(r.id) ?? []),
    );
  }

  /** One person, when a membership of theirs is inside the scope (else 404: out of scope is not found). */
  async get(scope: Scope, id: string): Promise<StaffShape> {
    const s = await this.d.repo.byId(id);
    const memberships = s ? ((await this.d.repo.memberships([id])).get(id) ?? []) : [];
    if (!s || !visible(scope, memberships)) throw notFound('ops.error.notFound');
    return shape(s, memberships);
  }

  async update(scope: Scope, actor: Actor, id: string, version: number, change: StaffUpdate): Promise<StaffShape> {
    return this.d.db.tx(async () => {
      const before = await this.get(scope, id);
      if (change.disabled !== undefined && id === actor.staffId) throw badRequest('ops.error.self');
      const row = await this.d.repo.update(id, version, {
        name: change.name,
        disabledAt: change.disabled === undefined ? undefined : change.disabled ? this.d.clock.now() : null,
      });
      if (!row) throw staleVersion();
      if (change.disabled) await this.d.repo.deleteSessionsOf(id);
      const after = shape(row, before.memberships);
      await this.d.audit.record(actor, { action: 'staff.update', entity: 'staff', entityId: id, before, after });
      return after;
    });
  }

  /** The membership at `agentId` the inviter may grant `role` from (403 otherwise; the platform's: its owners only). */
  private granter(inviter: StaffPrincipal, agentId: string, ...roles: StaffRole[]): void {
    const g =
      inviter.memberships.find((x) => x.agentId === ALL_AGENTS) ??
      inviter.memberships.find((x) => x.agentId === agentId);
    if (!g || roles.some((r) => !mayGrant(g.role, r)) || (agentId === ALL_AGENTS && g.role !== 'owner'))
      throw forbidden();
  }

  private async checkMembership(m: Membership) {
    if (m.agentId !== ALL_AGENTS && !(await this.d.agentExists(m.agentId)))
      throw badRequest('ops.error.agent', { agent: m.agentId });
    if (m.role === 'venue_partner' ? !m.venueIds.length : m.venueIds.length) throw badRequest('ops.error.venues');
  }

  /**
   * Invites a person by e-mail to a membership the inviter may grant: the link signs them up with a passkey, or
   * (signIn 'sso') their first single sign-on with that e-mail accepts it.
   */
  async invite(inviter: StaffPrincipal, actor: Actor, input: InvitationCreate, consoleUrl: string, ssoOn = false) {
    const m = input.membership;
    const signIn = input.signIn ?? 'passkey';
    this.granter(inviter, m.agentId, m.role);
    await this.checkMembership(m);
    if (signIn === 'sso' && !ssoOn) throw badRequest('ops.error.ssoOff');
    const token = randomToken();
    const expiresAt = new Date(this.d.clock.now().getTime() + INVITATION_MS);
    const id = await this.d.db.tx(async () => {
      const id = await this.d.repo.insertInvitation(
        sha256(token),
        {
          sign_in: signIn,
          email: input.email,
          name: input.name,
          agent_id: m.agentId,
          role: m.role,
          venue_ids: m.venueIds,
          invited_by: inviter.id,
          expires_at: expiresAt,
          accepted_at: null,
        },
        this.d.clock.now(),
      );
      await this.d.audit.record(actor, {
        action: 'staff.invite',
        entity: 'invitation',
        entityId: id,
        agentId: m.agentId === ALL_AGENTS ? null : m.agentId,
        after: { email: input.email, name: input.name, membership: m, signIn, expiresAt: expiresAt.toISOString() },
      });
      return id;
    });
    // Sent after the invitation is committed: a mail that fails leaves an invitation the admin can send again.
    // A single sign-on invitation carries no link that accepts it: the identity provider vouches for the e-mail.
    const how =
      signIn === 'sso'
        ? `Within 7 days, open ${consoleUrl} and choose "Sign in with single sign-on" with this e-mail address (${input.email}).`
        : `Open this link within 7 days to create your passkey:\n${consoleUrl}#/invitation?token=${encodeURIComponent(token)}`;
    await this.d.mailer.send({
      to: input.email,
      subject: 'Your invitation to the Powerly back office',
      text: `${inviter.name} invited you to the Powerly back office as ${m.role}.\n\n${how}\n`,
    });
    return { id, email: input.email, expiresAt: expiresAt.toISOString() };
  }

  /** Invitations to memberships inside the scope (the platform's: to platform-wide callers only), newest first. */
  async invitations(scope: Scope, q: InvitationListQuery) {
    const limit = q.limit ?? 50;
    const after = decodeCursor(q.cursor);
    const rows = await this.d.repo.listInvitations({
      agents: scope.kind === 'all' ? null : scope.kind === 'agents' ? scope.agents.filter((a) => !scope.venues[a]) : [],
      state: q.state,
      q: q.q,
      agentId: q.agentId,
      now: this.d.clock.now(),
      after: after?.[1],
      limit: limit + 1,
    });
    return pageOf(
      rows,
      limit,
      (r) => ['', r.id],
      (r) => this.invitationShape(r),
    );
  }

  /** Revokes a pending invitation (404 outside the scope, 409 once accepted or revoked): its link stops working. */
  async revokeInvitation(inviter: StaffPrincipal, scope: Scope, actor: Actor, id: string): Promise<InvitationShape> {
    return this.d.db.tx(async () => {
      const row = await this.d.repo.invitationById(id);
      if (
        !row ||
        !(row.agent_id === ALL_AGENTS
          ? scope.kind === 'all'
          : inScope(scope, row.agent_id) && !(scope.kind === 'agents' && scope.venues[row.agent_id]))
      ) {
        throw notFound('ops.error.notFound');
      }
      this.granter(inviter, row.agent_id, row.role);
      const before = this.invitationShape(row);
      if (!(await this.d.repo.revokeInvitation(id, inviter.id, this.d.clock.now())))
        throw conflict('ops.error.invitationClosed');
      const after: InvitationShape = { ...before, state: 'revoked' };
      await this.d.audit.record(actor, {
        action: 'staff.invitation-revoke',
        entity: 'invitation',
        entityId: id,
        agentId: row.agent_id === ALL_AGENTS ? null : row.agent_id,
        before,
        after,
      });
      return after;
    });
  }

  private invitationShape(r: InvitationListRow): InvitationShape {
    const state = r.revoked_at
      ? 'revoked'
      : r.accepted_at
        ? 'accepted'
        : new Date(r.expires_at) <= this.d.clock.now()
          ? 'expired'
          : 'pending';
    return {
      id: r.id,
      email: r.email,
      name: r.name,
      membership: { agentId: r.agent_id, role: r.role, venueIds: r.venue_ids },
      signIn: r.sign_in,
      state,
      invitedBy: r.invited_by_email,
      createdAt: new Date(r.created_at).toISOString(),
      expiresAt: new Date(r.expires_at).toISOString(),
    };
  }

  /**
   * Sets a person's role at an agent (a new membership there, or a changed one): the caller may grant both the old
   * and the new role there, never to themselves. Needs the person's version (If-Match); their next request has it.
   */
  async setMembership(
    inviter: StaffPrincipal,
    scope: Scope,
    actor: Actor,
    id: string,
    agentId: string,
    version: number,
    change: MembershipChange,
  ): Promise<StaffShape> {
    return this.d.db.tx(async () => {
      const before = await this.get(scope, id);
      if (id === actor.staffId) throw badRequest('ops.error.selfRole');
      const old = before.memberships.find((m) => m.agentId === agentId);
      this.granter(inviter, agentId, change.role, ...(old ? [old.role] : []));
      const m: Membership = { agentId, role: change.role, venueIds: change.venueIds };
      await this.checkMembership(m);
      const row = await this.d.repo.bumpVersion(id, version);
      if (!row) throw staleVersion();
      await this.d.repo.setMembership(id, m);
      const after = shape(row, (await this.d.repo.memberships([id])).get(id) ?? []);
      await this.d.audit.record(actor, {
        action: 'staff.role',
        entity: 'staff',
        entityId: id,
        agentId: agentId === ALL_AGENTS ? null : agentId,
        before,
        after,
      });
      return after;
    });
  }

  /**
   * Ends one membership of a person (their account and other memberships stay): the caller's own (leaving an
   * agent), or another's whose role the caller may grant there (403; outside the caller's scope 404). The
   * platform's last owner cannot go (409). The person's sessions end (but the caller's current one): they come back
   * with what remains. Needs the person's version (If-Match).
   */
  async endMembership(
    caller: StaffPrincipal,
    actor: Actor,
    id: string,
    agentId: string,
    version: number,
    currentSession?: string,
  ): Promise<StaffShape> {
    return this.d.db.tx(async () => {
      const self = id === caller.id;
      const scope = scopeOf(caller.memberships, 'staff.invite');
      if (!self && scope.kind === 'none') throw forbidden();
      const before = self ? await this.own(id) : await this.get(scope, id);
      const m = before.memberships.find((x) => x.agentId === agentId);
      // Another's membership outside the caller's agents is not found, even when the person is visible through another.
      const reach =
        scope.kind === 'all' ||
        (agentId !== ALL_AGENTS && inScope(scope, agentId) && !(scope.kind === 'agents' && scope.venues[agentId]));
      if (!m || (!self && !reach)) throw notFound('ops.error.notFound');
      if (!self) this.granter(caller, agentId, m.role);
      if (
        agentId === ALL_AGENTS &&
        m.role === 'owner' &&
        (await this.d.repo.platformOwnersLocked()).filter((o) => o !== id).length === 0
      ) {
        throw conflict('ops.error.lastOwner');
      }
      const row = await this.d.repo.bumpVersion(id, version);
      if (!row) throw staleVersion();
      await this.d.repo.deleteMembership(id, agentId);
      const sessionsEnded = await this.d.repo.deleteSessionsOf(id, self ? currentSession : undefined);
      const after = shape(row, (await this.d.repo.memberships([id])).get(id) ?? []);
      await this.d.audit.record(actor, {
        action: 'staff.membership-end',
        entity: 'staff',
        entityId: id,
        agentId: agentId === ALL_AGENTS ? null : agentId,
        before,
        after: { ...after, sessionsEnded },
      });
      return after;
    });
  }

  private async own(id: string): Promise<StaffShape> {
    const s = await this.d.repo.byId(id);
    if (!s) throw notFound('ops.error.notFound');
    return shape(s, (await this.d.repo.memberships([id])).get(id) ?? []);
  }

  /**
   * The staff member a single sign-on's verified e-mail stands for: pending single sign-on invitations of that
   * e-mail are accepted first (making the person when new). Nobody else gets in (401).
   */
  async signInBySso(email: string, from: Omit<Actor, 'staffId' | 'email' | 'reason'>): Promise<StaffRow> {
    return this.d.db.tx(async () => {
      const pending = await this.d.repo.pendingSsoInvitations(email, this.d.clock.now());
      let staff = await this.d.repo.byEmail(email);
      if (!staff && pending[0]) staff = await this.d.repo.create(pending[0].email, pending[0].name, this.d.clock.now());
      if (!staff || staff.disabled_at) throw ssoRefused();
      for (const i of pending) {
        if (!(await this.d.repo.acceptInvitation(i.token_hash, staff.id, this.d.clock.now()))) continue;
        const membership = { agentId: i.agent_id, role: i.role, venueIds: i.venue_ids };
        await this.d.repo.setMembership(staff.id, membership);
        await this.d.audit.record(
          { ...from, staffId: staff.id, email: staff.email, reason: null },
          {
            action: 'staff.accept',
            entity: 'staff',
            entityId: staff.id,
            agentId: i.agent_id === ALL_AGENTS ? null : i.agent_id,
            after: { email: staff.email, membership, signIn: 'sso' },
          },
        );
      }
      return staff;
    });
  }

  /** The invitation of a link, while it can be accepted. */
  async invitation(token: string) {
    const i = await this.d.repo.invitation(sha256(token));
    if (!i || i.accepted_at || i.revoked_at || i.sign_in !== 'passkey' || new Date(i.expires_at) <= this.d.clock.now())
      throw notFound('ops.error.invitation');
    return i;
  }

  /**
   * Accepts an invitation with the passkey just made: the person (new, or existing by e-mail) gets the membership
   * and the passkey, once.
   */
  async accept(
    token: string,
    cred: { credentialId: string; publicKey: Uint8Array; counter: number; transports: string[] },
    from: Omit<Actor, 'staffId' | 'email' | 'reason'>,
  ): Promise<StaffRow> {
    return this.d.db.tx(async () => {
      const i = await this.invitation(token);
      const staff =
        (await this.d.repo.byEmail(i.email)) ?? (await this.d.repo.create(i.email, i.name, this.d.clock.now()));
      if (staff.disabled_at) throw notFound('ops.error.invitation');
      if (!(await this.d.repo.acceptInvitation(sha256(token), staff.id, this.d.clock.now())))
        throw conflict('ops.error.invitation');
      const membership = { agentId: i.agent_id, role: i.role, venueIds: i.venue_ids };
      await this.d.repo.setMembership(staff.id, membership);
      await this.d.repo.insertPasskey({ ...cred, staffId: staff.id, label: 'passkey', at: this.d.clock.now() });
      await this.d.audit.record(
        { ...from, staffId: staff.id, email: staff.email, reason: null },
        {
          action: 'staff.accept',
          entity: 'staff',
          entityId: staff.id,
          agentId: i.agent_id === ALL_AGENTS ? null : i.agent_id,
          after: { email: staff.email, membership },
        },
      );
      return staff;
    });
  }

  async addPasskey(
    actor: Actor,
    staffId: string,
    cred: { credentialId: string; publicKey: Uint8Array; counter: number; transports: string[] },
    label: string,
  ) {
    await this.d.db.tx(async () => {
      await this.d.repo.insertPasskey({ ...cred, staffId, label, at: this.d.clock.now() });
      await this.d.audit.record(actor, {
        action: 'staff.passkey-add',
        entity: 'staff',
        entityId: staffId,
        after: { credentialId: cred.credentialId, label },
      });
    });
  }

  /** Ends every session of the person (the caller's included); the count ended. */
  async signOutEverywhere(actor: Actor, staffId: string): Promise<number> {
    return this.d.db.tx(async () => {
      const ended = await this.d.repo.deleteSessionsOf(staffId);
      await this.d.audit.record(actor, {
        action: 'staff.signout-everywhere',
        entity: 'staff',
        entityId: staffId,
        after: { sessionsEnded: ended },
      });
      return ended;
    });
  }

  /**
   * The demo's platform owner (SANDBOX=on only): made once, when nobody is staff yet, with an invitation to create
   * its passkey; the link is printed in the start-up banner.
   */
  async seedOwner(email: string, name: string): Promise<string | undefined> {
    return this.d.db.tx(async () => {
      if ((await this.d.repo.count()) > 0) return undefined;
      const owner = await this.d.repo.create(email, name, this.d.clock.now());
      await this.d.repo.setMembership(owner.id, { agentId: ALL_AGENTS, role: 'owner', venueIds: [] });
      const token = randomToken();
      await this.d.repo.insertInvitation(
        sha256(token),
        {
          sign_in: 'passkey',
          email,
          name,
          agent_id: ALL_AGENTS,
          role: 'owner',
          venue_ids: [],
          invited_by: owner.id,
          expires_at: new Date(this.d.clock.now().getTime() + INVITATION_MS),
          accepted_at: null,
        },
        this.d.clock.now(),
      );
      return token;
    });
  }
}

/** Whether a person is visible in the scope: a membership of theirs lies inside it (platform staff: only to 'all'). */
function visible(scope: Scope, memberships: Membership[]): boolean {
  if (scope.kind === 'all') return true;
  return memberships.some(
    (m) =>
      m.agentId !== ALL_AGENTS && inScope(scope, m.agentId) && !(scope.kind === 'agents' && scope.venues[m.agentId]),
  );
}

function shape(s: StaffRow, memberships: Membership[]): StaffShape {
  return { id: s.id, email: s.email, name: s.name, disabled: s.disabled_at != null, version: s.version, memberships };
}
