import { Type } from 'typebox';
import { Envelope, ok } from '../../lib/envelope.ts';
import { t } from '../../lib/i18n.ts';
import type { App } from '../../lib/route.ts';
import type { ContentService } from './service.ts';

const Field = (max: number) => Type.Optional(Type.String({ maxLength: max }));

/** Under the API prefix: help list and the WeChat JS config. */
export default async function contentRoutes(app: App, opts: { content: ContentService }) {
  app.get('/cdb/help/list', {
    schema: {
      tags: ['content'],
      summary: "Help items (numbered, collapsible on the client) of a language; classId = 'help_' + lang",
      querystring: Type.Object({ classId: Type.String({ minLength: 5, maxLength: 40 }) }),
      response: { 200: Envelope(Type.Array(Type.Object({ pId: Type.Integer(), pTitle: Type.String(), pContent: Type.String() }))) },
    },
  }, async (req) => ok((await opts.content.help(req.query.classId)).map((h) => ({ pId: h.position, pTitle: h.title, pContent: h.content }))));

  app.post('/setting/js_config', {
    schema: {
      tags: ['content'],
      summary: 'WeChat JS-SDK config for a page: sha1 signature over jsapi_ticket, noncestr, timestamp and the URL without its hash',
      body: Type.Object({ url: Type.String({ minLength: 8, maxLength: 2000, pattern: '^https?://' }) }),
      response: { 200: Envelope(Type.Object({ appId: Type.String(), timestamp: Type.Integer(), noncestr: Type.String(), signature: Type.String() })) },
    },
  }, async (req) => ok(await opts.content.wechatConfig(req.body.url)));
}

/** At the host root (spec §7: POST {host}/crmLeads/add/public, JSON). */
export async function leadRoutes(app: App, opts: { content: ContentService }) {
  app.post('/crmLeads/add/public', {
    schema: {
      tags: ['content'],
      summary: 'Contact and franchise enquiry from the about-us page; Name, Email, Mobile, nation required (trimmed)',
      body: Type.Object({
        Name: Field(200), Email: Field(320), Mobile: Field(50), nation: Field(100), Content: Field(5000), source: Field(100),
      }),
      response: { 200: Envelope(Type.Object({ id: Type.Integer() })) },
    },
  }, async (req) => {
    const id = await opts.content.addLead(req.body, req.locale);
    return ok({ id }, 0, t(req.locale, 'status.operationSuccessful'));
  });
}
