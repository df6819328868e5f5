// Staff invitations: a person invited by e-mail to a membership the inviter may grant, who accepts with a passkey
// made at the link or (single sign-on) at their first sign-on with that e-mail; the list, revocation, and the demo's
// first owner. Every write is recorded in the audit log in its unit of work.
import { badRequest, conflict, notFound } from '../../lib/errors.ts';
import { randomToken, sha256 } from '../../lib/ids.ts';
import { decodeCursor, pageOf } from '../../lib/ops-query.ts';
import { ALL_AGENTS, inScope, type Scope } from '#core/opsAccess.ts';
import type { InvitationCreate, InvitationListQuery, InvitationShape } from '#contract/ops/staff.ts';
import type { Actor } from '../audit/service.ts';
import { checkMembership, granter } from './grants.ts';
import type { InvitationListRow, StaffRow } from './repository.ts';
import type { StaffDeps, StaffPrincipal } from './service.ts';
import { ssoRefused } from './sso.ts';

const INVITATION_MS = 7 * 24 * 3_600_000;

export class StaffInvitations {
  constructor(private readonly d: StaffDeps) {}

  /**
   * Invites a person by e-mail to a membership the inviter may grant: the link signs them up with a passkey, or
   * (signIn 'sso') their first single sign-on with that e-mail accepts it.
   */
  async invite(inviter: StaffPrincipal, actor: Actor, input: InvitationCreate, consoleUrl: string, ssoOn = false) {
    const m = input.membership;
    const signIn = input.signIn ?? 'passkey';
    granter(inviter, m.agentId, m.role);
    await checkMembership(this.d.agentExists, m);
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
      granter(inviter, row.agent_id, row.role);
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
