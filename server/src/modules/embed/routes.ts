// Web vitals: POST embed/vitals (public; sendBeacon posts text/plain JSON) and GET embed/vitals/summary
// (the performance view: p75 and rating counts per shape and metric).
import { Type } from 'typebox';
import { Envelope, ok } from '../../lib/envelope.ts';
import type { App } from '../../lib/route.ts';
import { currentUser } from '../../plugins/context.ts';
import type { EmbedService } from './service.ts';

const Vital = Type.Object({
  shape: Type.Union([Type.Literal('app'), Type.Literal('iframe'), Type.Literal('element'), Type.Literal('webview')]),
  name: Type.Union(['CLS', 'FCP', 'INP', 'LCP', 'TTFB'].map((n) => Type.Literal(n))),
  value: Type.Number({ minimum: 0, maximum: 600_000 }),
  rating: Type.Union([Type.Literal('good'), Type.Literal('needs-improvement'), Type.Literal('poor')]),
  // A route path only: no query string, so no token, order id or code can ride along.
  route: Type.String({ maxLength: 60, pattern: '^(/[A-Za-z0-9_/-]*)?$' }),
}, { additionalProperties: false });

const Summary = Type.Object({
  shape: Type.String(), name: Type.String(), count: Type.Integer(), p75: Type.Number(),
  good: Type.Integer(), needsImprovement: Type.Integer(), poor: Type.Integer(),
});

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

  app.post('/embed/vitals', {
    bodyLimit: 2048,
    schema: {
      tags: ['embed'], summary: 'Record one web-vitals metric from a front-end shape (no token, no personal data)', security: [],
      body: Vital,
      response: { 200: Envelope(Type.Null()) },
    },
  }, async (req) => {
    await opts.embed.recordVital(req.body);
    return ok(null);
  });

  app.get('/embed/vitals/summary', {
    schema: {
      tags: ['embed'], summary: 'Web-vitals p75 and rating counts per shape and metric (the performance view)', security: [],
      querystring: Type.Object({ days: Type.Optional(Type.Integer({ minimum: 1, maximum: 90, default: 7 })) }),
      response: { 200: Envelope(Type.Array(Summary)) },
    },
  }, async (req) => ok(await opts.embed.summary(req.query.days ?? 7)));

  // In-app transports (no origin): the native host asks for a code with its user's session …
  app.post('/embed/code', {
    preHandler: app.requireUser,
    schema: {
      tags: ['embed'], summary: 'A signed one-time code for a web-view page of an agent (native hosts)',
      body: Type.Object({ agent: Type.String({ pattern: '^[A-Za-z0-9_-]{1,64}$' }) }),
      response: { 200: Envelope(Type.Object({ code: Type.String(), expiresAt: Type.Integer() })) },
    },
  }, async (req) => ok(await opts.embed.issueCode(currentUser(req).id, req.body.agent)));

  // … and the web-view page redeems it once for a session of that user (kept in the page's memory).
  app.post('/embed/code/redeem', {
    schema: {
      tags: ['embed'], summary: 'Redeem a one-time code once for a session token', security: [],
      body: Type.Object({ code: Type.String({ maxLength: 600 }), agent: Type.String({ pattern: '^[A-Za-z0-9_-]{1,64}$' }) }),
      response: { 200: Envelope(Type.Object({ token: Type.String() })) },
    },
  }, async (req) => ok(await opts.embed.redeemCode(req.body.code, req.body.agent)));
}
