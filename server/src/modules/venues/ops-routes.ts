// The ops API's venues and price plans (docs/api.md "Ops API"): lists with filter, sort and cursor; one venue with
// its ETag, changes with If-Match (a save after another one answers 409); plans per venue or per agent and their
// fee preview. Reading needs fleet.read, writing a venue fleet.write and a plan pricing.write; every write carries its reason into the audit log.
import { Type } from 'typebox';
import type { Db } from '../../db/db.ts';
import type { Clock } from '../../lib/clock.ts';
import { badRequest } from '../../lib/errors.ts';
import type { Fleet } from '../../fleet.ts';
import type { App } from '../../lib/route.ts';
import { expectedVersion, sendVersion } from '../../lib/ops-concurrency.ts';
import {
  FeePreview,
  FeePreviewRequest,
  FleetIdParams,
  Plan,
  PlanChangeBody,
  PlanCreateBody,
  PlanDraftPreview,
  PlanIdParams,
  PlanList,
  PlanListQuery,
  Venue,
  VenueChangeBody,
  VenueCreateBody,
  VenueListQuery,
  VenuePage,
} from '#contract/ops/fleet.ts';
import { actorOf } from '../../plugins/ops-api.ts';
import type { AuditService } from '../audit/service.ts';
import { IMAGE_KINDS, IMAGE_MAX_BYTES } from '../media/images.ts';
import type { MediaStore } from '../media/store.ts';
import { VenueImages } from './images.ts';
import { VenuesOps } from './ops.ts';
import { VenuesOpsRepository } from './ops-repository.ts';
import { PlansOps, planTag } from './plans-ops.ts';

const IF_MATCH = 'Needs If-Match with the ETag read; a save after another one answers 409 and changes nothing.';

const ImageHeaders = Type.Object({
  'x-reason': Type.String({ minLength: 3, maxLength: 1500, description: 'why, URL-encoded (kept in the audit log)' }),
});
const ImageParams = Type.Object({
  id: FleetIdParams.properties.id,
  kind: Type.Union(IMAGE_KINDS.map((k) => Type.Literal(k))),
});

export function venuesOpsRoutes(o: { db: Db; clock: Clock; fleet: Fleet; audit: AuditService; media: MediaStore }) {
  const repo = new VenuesOpsRepository(o.db);
  const venues = new VenuesOps({ db: o.db, venues: o.fleet.venues, repo, audit: o.audit });
  const images = new VenueImages({
    db: o.db,
    clock: o.clock,
    store: o.media,
    repo,
    venues: o.fleet.venues,
    ops: venues,
    audit: o.audit,
  });
  const plans = new PlansOps({ db: o.db, plans: o.fleet.plans, venues: o.fleet.venues, repo, audit: o.audit });
  return async (ops: App) => {
    ops.get(
      '/venues',
      { config: { permission: 'fleet.read' }, schema: { querystring: VenueListQuery, response: { 200: VenuePage } } },
      async (req) => venues.list(req.opsScope, req.query),
    );

    ops.get(
      '/venues/:id',
      { config: { permission: 'fleet.read' }, schema: { params: FleetIdParams, response: { 200: Venue } } },
      async (req, reply) => {
        const v = await venues.get(req.opsScope, req.params.id);
        sendVersion(reply, v.version);
        return v;
      },
    );

    ops.post(
      '/venues',
      { config: { permission: 'fleet.write' }, schema: { body: VenueCreateBody, response: { 200: Venue } } },
      async (req, reply) => {
        const { reason, ...venue } = req.body;
        const v = await venues.create(req.opsScope, actorOf(req, reason), venue);
        sendVersion(reply, v.version);
        return v;
      },
    );

    ops.patch(
      '/venues/:id',
      {
        config: { permission: 'fleet.write' },
        schema: { description: IF_MATCH, params: FleetIdParams, body: VenueChangeBody, response: { 200: Venue } },
      },
      async (req, reply) => {
        const { reason, ...change } = req.body;
        const v = await venues.update(req.opsScope, actorOf(req, reason), req.params.id, expectedVersion(req), change);
        sendVersion(reply, v.version);
        return v;
      },
    );

    // The image's bytes as the body, whatever Content-Type the browser gives it: the server decides what it is.
    ops.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: 4 * 1024 * 1024 }, (_req, body, done) =>
      done(null, body),
    );
    ops.put(
      '/venues/:id/images/:kind',
      {
        config: { permission: 'fleet.write' },
        schema: {
          description:
            `The logo (at most ${IMAGE_MAX_BYTES.logo / 1024} KB) or banner (${IMAGE_MAX_BYTES.banner / 1024} KB) as the raw body: PNG, JPEG, WebP or GIF, ` +
            'told by its bytes. Not an image: 400; too large: 413. The reason in X-Reason (URL-encoded). ' +
            IF_MATCH,
          params: ImageParams,
          consumes: ['image/png', 'image/jpeg', 'image/webp', 'image/gif'],
          headers: ImageHeaders,
          response: { 200: Venue },
        },
      },
      async (req, reply) => {
        let reason = '';
        try {
          reason = decodeURIComponent(req.headers['x-reason']).trim();
        } catch {
          // not URL-encoded: refused below
        }
        if (reason.length < 3 || reason.length > 500) throw badRequest('error.field.invalid', { field: 'X-Reason' });
        const bytes = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
        const v = await images.upload(
          req.opsScope,
          actorOf(req, reason),
          req.params.id,
          expectedVersion(req),
          req.params.kind,
          bytes,
        );
        sendVersion(reply, v.version);
        return v;
      },
    );

    ops.get(
      '/plans',
      {
        config: { permission: 'fleet.read' },
        schema: { querystring: PlanListQuery, errors: [404], response: { 200: PlanList } },
      },
      async (req) => plans.list(req.opsScope, req.query),
    );

    ops.get(
      '/plans/:id',
      { config: { permission: 'fleet.read' }, schema: { params: PlanIdParams, response: { 200: Plan } } },
      async (req, reply) => {
        const p = await plans.get(req.opsScope, Number(req.params.id));
        void reply.header('ETag', planTag(p));
        return p;
      },
    );

    ops.post(
      '/plans',
      { config: { permission: 'pricing.write' }, schema: { body: PlanCreateBody, response: { 200: Plan } } },
      async (req, reply) => {
        const { reason, ...plan } = req.body;
        const p = await plans.create(req.opsScope, actorOf(req, reason), plan);
        void reply.header('ETag', planTag(p));
        return p;
      },
    );

    ops.patch(
      '/plans/:id',
      {
        config: { permission: 'pricing.write' },
        schema: {
          description: `${IF_MATCH} Only a plan not yet in effect changes (409 once it is).`,
          params: PlanIdParams,
          body: PlanChangeBody,
          response: { 200: Plan },
        },
      },
      async (req, reply) => {
        const { reason, ...change } = req.body;
        const p = await plans.update(
          req.opsScope,
          actorOf(req, reason),
          Number(req.params.id),
          req.headers['if-match'],
          change,
        );
        void reply.header('ETag', planTag(p));
        return p;
      },
    );

    ops.post(
      '/plans/:id/preview',
      {
        config: { permission: 'fleet.read' },
        schema: { params: PlanIdParams, body: FeePreviewRequest, response: { 200: FeePreview } },
      },
      async (req) => plans.preview(req.opsScope, Number(req.params.id), req.body.minutes),
    );

    ops.post(
      '/plans/preview',
      {
        config: { permission: 'fleet.read' },
        schema: {
          description: 'The fees of a plan not saved yet, by the same rule a rental is charged with.',
          body: PlanDraftPreview,
          response: { 200: FeePreview },
        },
      },
      async (req) => plans.previewDraft(req.opsScope, req.body),
    );
  };
}
