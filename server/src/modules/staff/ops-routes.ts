// The ops API's staff administration: the list (filter, sort, cursor), one person (ETag), changes (If-Match),
// a role per agent (If-Match), invitations (by passkey link or single sign-on; listed, revoked). Each route declares
// its permission; the scope it gets decides what is visible (else 404).
import type { App } from '../../lib/route.ts';
import { expectedVersion, sendVersion } from '../../lib/ops-concurrency.ts';
import {
  InvitationCreate,
  InvitationCreated,
  InvitationIdParams,
  InvitationListQuery,
  InvitationPage,
  InvitationRevoke,
  InvitationShape,
  MembershipChange,
  MembershipEnd,
  MembershipParams,
  StaffIdParams,
  StaffListQuery,
  StaffPage,
  StaffShape,
  StaffUpdate,
} from '#contract/ops/staff.ts';
import { actorOf, staffOf } from '../../plugins/ops-api.ts';
import type { StaffService } from './service.ts';

export function staffOpsRoutes(o: { staff: StaffService; origin?: string; ssoOn?: boolean }) {
  return async (ops: App) => {
    ops.get(
      '/staff',
      { config: { permission: 'staff.read' }, schema: { querystring: StaffListQuery, response: { 200: StaffPage } } },
      async (req) => o.staff.list(req.opsScope, req.query),
    );

    ops.get(
      '/staff/:id',
      { config: { permission: 'staff.read' }, schema: { params: StaffIdParams, response: { 200: StaffShape } } },
      async (req, reply) => {
        const s = await o.staff.get(req.opsScope, req.params.id);
        sendVersion(reply, s.version);
        return s;
      },
    );

    ops.patch(
      '/staff/:id',
      {
        config: { permission: 'staff.invite' },
        schema: {
          description: 'Needs If-Match with the ETag read; a save after another one answers 409.',
          params: StaffIdParams,
          body: StaffUpdate,
          response: { 200: StaffShape },
        },
      },
      async (req, reply) => {
        const s = await o.staff.update(
          req.opsScope,
          actorOf(req, req.body.reason),
          req.params.id,
          expectedVersion(req),
          req.body,
        );
        sendVersion(reply, s.version);
        return s;
      },
    );

    ops.put(
      '/staff/:id/memberships/:agentId',
      {
        config: { permission: 'staff.invite' },
        schema: {
          description:
            "Sets the person's role at an agent ('*': platform-wide, by platform owners only): changes their membership there or adds one. " +
            'The caller must be allowed to grant both the old and the new role (403), never to themselves (400). Needs If-Match with the ETag of ' +
            'GET /staff/{id}; a save after another one answers 409 and changes nothing.',
          errors: [404, 409],
          params: MembershipParams,
          body: MembershipChange,
          response: { 200: StaffShape },
        },
      },
      async (req, reply) => {
        const s = await o.staff.setMembership(
          staffOf(req),
          req.opsScope,
          actorOf(req, req.body.reason),
          req.params.id,
          req.params.agentId,
          expectedVersion(req),
          req.body,
        );
        sendVersion(reply, s.version);
        return s;
      },
    );

    ops.post(
      '/staff/:id/memberships/:agentId/end',
      {
        config: { permission: 'signed-in' },
        schema: {
          description:
            "Ends one membership of a person, not their account: the caller's own (leaving an agent), or another person's whose role there the " +
            "caller may grant (staff.invite; 403 otherwise, 404 outside their agents). The platform's last owner cannot be removed (409). The " +
            "person's sessions end (the caller's current one stays when they end their own). Needs If-Match with the ETag of GET /staff/{id} " +
            '(for the caller themselves: of GET /staff/{id} as well); a save after another one answers 409.',
          errors: [404, 409],
          ifMatch: true,
          params: MembershipParams,
          body: MembershipEnd,
          response: { 200: StaffShape },
        },
      },
      async (req, reply) => {
        const s = await o.staff.endMembership(
          staffOf(req),
          actorOf(req, req.body.reason),
          req.params.id,
          req.params.agentId,
          expectedVersion(req),
          req.opsSession?.tokenHash,
        );
        sendVersion(reply, s.version);
        return s;
      },
    );

    ops.get(
      '/invitations',
      {
        config: { permission: 'staff.read' },
        schema: {
          description: "Invitations to memberships inside the caller's agents, newest first.",
          querystring: InvitationListQuery,
          response: { 200: InvitationPage },
        },
      },
      async (req) => o.staff.invitations(req.opsScope, req.query),
    );

    ops.post(
      '/invitations',
      {
        config: { permission: 'staff.invite' },
        schema: { errors: [], body: InvitationCreate, response: { 200: InvitationCreated } },
      },
      async (req) => {
        const origin = o.origin ? new URL(o.origin).origin : `${req.protocol}://${req.host}`;
        return o.staff.invite(staffOf(req), actorOf(req, req.body.reason), req.body, `${origin}/ops/`, o.ssoOn);
      },
    );

    ops.post(
      '/invitations/:id/revoke',
      {
        config: { permission: 'staff.invite' },
        schema: {
          description:
            'Revokes an invitation not accepted yet: its link (or single sign-on) no longer lets the person in. 409 once accepted or revoked.',
          errors: [404, 409],
          params: InvitationIdParams,
          body: InvitationRevoke,
          response: { 200: InvitationShape },
        },
      },
      async (req) => o.staff.revokeInvitation(staffOf(req), req.opsScope, actorOf(req, req.body.reason), req.params.id),
    );
  };
}
