// The ops API's staff administration: the list (filter, sort, cursor), one person (ETag), changes (If-Match),
// invitations. Each route declares its permission; the scope it gets decides what is visible (else 404).
import type { App } from '../../lib/route.ts';
import { expectedVersion, sendVersion } from '../../lib/ops-concurrency.ts';
import { InvitationCreate, InvitationCreated, StaffIdParams, StaffListQuery, StaffPage, StaffShape, StaffUpdate } from '#contract/ops/staff.ts';
import { actorOf, staffOf } from '../../plugins/ops-api.ts';
import type { StaffService } from './service.ts';

export function staffOpsRoutes(o: { staff: StaffService; origin?: string }) {
  return async (ops: App) => {
    ops.get('/staff', { config: { permission: 'staff.read' }, schema: { querystring: StaffListQuery, response: { 200: StaffPage } } }, async (req) =>
      o.staff.list(req.opsScope, req.query));

    ops.get('/staff/:id', { config: { permission: 'staff.read' }, schema: { params: StaffIdParams, response: { 200: StaffShape } } }, async (req, reply) => {
      const s = await o.staff.get(req.opsScope, req.params.id);
      sendVersion(reply, s.version);
      return s;
    });

    ops.patch('/staff/:id', {
      config: { permission: 'staff.invite' },
      schema: { description: 'Needs If-Match with the ETag read; a save after another one answers 409.', params: StaffIdParams, body: StaffUpdate, response: { 200: StaffShape } },
    }, async (req, reply) => {
      const s = await o.staff.update(req.opsScope, actorOf(req, req.body.reason), req.params.id, expectedVersion(req), req.body);
      sendVersion(reply, s.version);
      return s;
    });

    ops.post('/invitations', { config: { permission: 'staff.invite' }, schema: { body: InvitationCreate, response: { 200: InvitationCreated } } }, async (req) => {
      const origin = o.origin ? new URL(o.origin).origin : `${req.protocol}://${req.host}`;
      return o.staff.invite(staffOf(req), actorOf(req, req.body.reason), req.body, `${origin}/ops/`);
    });
  };
}
