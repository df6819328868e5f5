import { Envelope } from '#contract/envelope.ts';
import { HelpItem, HelpQuery, LeadBody, LeadResult, WeChatConfig, WeChatConfigBody } from '#contract/content.ts';
import { Type } from 'typebox';
import { ok } from '../../lib/envelope.ts';
import { t } from '../../lib/i18n.ts';
import type { App } from '../../lib/route.ts';
import type { ContentService } from './service.ts';

/** Under the API prefix: help list and the WeChat JS config. */
export default async function contentRoutes(app: App, opts: { content: ContentService }) {
  app.get(
    '/cdb/help/list',
    {
      schema: {
        tags: ['content'],
        summary: "Help items (numbered, collapsible on the client) of a language; classId = 'help_' + lang",
        querystring: HelpQuery,
        response: { 200: Envelope(Type.Array(HelpItem)) },
      },
    },
    async (req) =>
      ok(
        (await opts.content.help(req.query.classId)).map((h) => ({
          pId: h.position,
          pTitle: h.title,
          pContent: h.content,
        })),
      ),
  );

  app.post(
    '/setting/js_config',
    {
      schema: {
        tags: ['content'],
        summary:
          'WeChat JS-SDK config for a page: sha1 signature over jsapi_ticket, noncestr, timestamp and the URL without its hash',
        body: WeChatConfigBody,
        response: { 200: Envelope(WeChatConfig) },
      },
    },
    async (req) => ok(await opts.content.wechatConfig(req.body.url)),
  );
}

/** At the host root (POST {host}/crmLeads/add/public, JSON). */
export async function leadRoutes(app: App, opts: { content: ContentService }) {
  app.post(
    '/crmLeads/add/public',
    {
      schema: {
        tags: ['content'],
        summary: 'Contact and franchise enquiry from the about-us page; Name, Email, Mobile, nation required (trimmed)',
        body: LeadBody,
        response: { 200: Envelope(LeadResult) },
      },
    },
    async (req) => {
      const id = await opts.content.addLead(req.body, req.locale);
      return ok({ id }, 0, t(req.locale, 'status.operationSuccessful'));
    },
  );
}
