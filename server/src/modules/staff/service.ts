// Staff: who they are, their memberships (a role per agent), invitations by e-mail link (invitations.ts), changes
// with optimistic concurrency. Every write is recorded in the audit log in its own unit of work.
import type { Db } from '../../db/db.ts';
import type { Clock } from '../../lib/clock.ts';
import { badRequest, conflict, notFound } from '../../lib/errors.ts';
import { staleVersion } from '../../lib/ops-concurrency.ts';
import { decodeCursor, pageOf } from '../../lib/ops-query.ts';
import { ALL_AGENTS, inScope, permissionsOf, scopeOf, type Membership, type Scope } from '#core/opsAccess.ts';
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
import { checkMembership, forbidden, granter } from './grants.ts';
import { StaffInvitations } from './invitations.ts';
import type { StaffRepository, StaffRow } from './repository.ts';

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

export class StaffService {
  private readonly invites: StaffInvitations;

  constructor(private readonly d: StaffDeps) {
    this.invites = new StaffInvitations(d);
  }

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
      granter(inviter, agentId, change.role, ...(old ? [old.role] : []));
      const m: Membership = { agentId, role: change.role, venueIds: change.venueIds };
      await checkMembership(this.d.agentExists, m);
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
      if (!self) granter(caller, agentId, m.role);
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

  // ── Invitations: invitations.ts ────────────────────────────────────────────────────────────────────────────

  invite(inviter: StaffPrincipal, actor: Actor, input: InvitationCreate, consoleUrl: string, ssoOn = false) {
    return this.invites.invite(inviter, actor, input, consoleUrl, ssoOn);
  }
  invitations(scope: Scope, q: InvitationListQuery) {
    return this.invites.invitations(scope, q);
  }
  revokeInvitation(inviter: StaffPrincipal, scope: Scope, actor: Actor, id: string): Promise<InvitationShape> {
    return this.invites.revokeInvitation(inviter, scope, actor, id);
  }
  signInBySso(email: string, from: Omit<Actor, 'staffId' | 'email' | 'reason'>): Promise<StaffRow> {
    return this.invites.signInBySso(email, from);
  }
  invitation(token: string) {
    return this.invites.invitation(token);
  }
  accept(
    token: string,
    cred: { credentialId: string; publicKey: Uint8Array; counter: number; transports: string[] },
    from: Omit<Actor, 'staffId' | 'email' | 'reason'>,
  ): Promise<StaffRow> {
    return this.invites.accept(token, cred, from);
  }
  seedOwner(email: string, name: string): Promise<string | undefined> {
    return this.invites.seedOwner(email, name);
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
