// Web vitals: POST embed/vitals (public; sendBeacon posts text/plain JSON) and GET embed/vitals/summary
// (the performance view: p75 and rating counts per shape and metric).
import { Type } from 'typebox';
import { Envelope } from '#contract/envelope.ts';
import {
  EmbedCode,
  EmbedCodeBody,
  RedeemCodeBody,
  RedeemedSession,
  Vital,
  VitalsSummary,
  VitalsSummaryQuery,
} from '#contract/embed.ts';
import { ok } from '../../lib/envelope.ts';
import type { App } from '../../lib/route.ts';
import { currentUser } from '../../plugins/context.ts';
import type { EmbedService } from './service.ts';

export default async function embedRoutes(app: App, opts: { embed: EmbedService }) {
  // sendBeacon sends text/plain (a CORS-simple request): parse it as JSON in this plugin only.
  app.addContentTypeParser('text/plain', { parseAs: 'string', bodyLimit: 2048 }, (_req, body, done) => {
    try {
      done(null, JSON.parse(body as string));
    } catch {
      const err = new Error('invalid JSON') as Error & { statusCode: number };
      err.statusCode = 400;
      done(err, undefined);
    }
  });

  app.post(
    '/embed/vitals',
    {
      bodyLimit: 2048,
      schema: {
        tags: ['embed'],
        summary: 'Record one web-vitals metric from a front-end shape (no token, no personal data)',
        security: [],
        consumes: ['application/json', 'text/plain', 'application/x-www-form-urlencoded'],
        body: Vital,
        response: { 200: Envelope(Type.Null()) },
      },
    },
    async (req) => {
      await opts.embed.recordVital(req.body);
      return ok(null);
    },
  );

  app.get(
    '/embed/vitals/summary',
    {
      schema: {
        tags: ['embed'],
        summary: 'Web-vitals p75 and rating counts per shape and metric (the performance view)',
        security: [],
        querystring: VitalsSummaryQuery,
        response: { 200: Envelope(Type.Array(VitalsSummary)) },
      },
    },
    async (req) => ok(await opts.embed.summary(req.query.days ?? 7)),
  );

  // In-app transports (no origin): the native host asks for a code with its user's session …
  app.post(
    '/embed/code',
    {
      preHandler: app.requireUser,
      schema: {
        tags: ['embed'],
        summary: 'A signed one-time code for a web-view page of an agent (native hosts)',
        body: EmbedCodeBody,
        response: { 200: Envelope(EmbedCode) },
      },
    },
    async (req) => ok(await opts.embed.issueCode(currentUser(req).id, req.body.agent)),
  );

  // … and the web-view page redeems it once for a session of that user (kept in the page's memory).
  app.post(
    '/embed/code/redeem',
    {
      schema: {
        tags: ['embed'],
        summary: 'Redeem a one-time code once for a session token',
        security: [],
        errors: [401],
        body: RedeemCodeBody,
        response: { 200: Envelope(RedeemedSession) },
      },
    },
    async (req) => ok(await opts.embed.redeemCode(req.body.code, req.body.agent)),
  );
}
