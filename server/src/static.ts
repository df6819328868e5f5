// Serves the built front end: dist/ at / (the SPA's index.html) and dist/demo/ at /demo/, the web-view pages
// as paths (/aboutUsApp/{lang}, /contactUsApp/{lang}: their prerendered HTML in the path's language), and the
// embed's iframe page at /embed/frame.html?agent=A with that agent's origin allowlist as `frame-ancestors`, and
// a code link asked for as a path (/?qrcode=<id>) with the package screen rendered (codeLinkPage.ts).
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { relative, resolve } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { frameAncestors } from './modules/embed/service.ts';
import { DEFAULT_LOCALE, mapRouteLang } from '#core/lang.ts';
import { WEB_VIEW_SCREENS, webViewFile } from '#core/firstScreen.ts';
import { FIRST_SCREEN_BODY_SCRIPT, FIRST_SCREEN_HEAD_SCRIPT } from '#core/firstScreenScripts.ts';
import { CODE_LINK_CACHE, codeLinkLang, codeLinkRenderer, codeOfQuery } from './codeLinkPage.ts';

/** A page URL's query as the code link reads it; other parameters (agentOpenId, vc, …) pass through to the app. */
const CODE_LINK_QUERY = {
  type: 'object',
  properties: {
    qrcode: { type: 'string', maxLength: 200 },
    qr: { type: 'string', maxLength: 200 },
    lang: { type: 'string', maxLength: 20 },
  },
} as const;
type CodeLinkQuery = { qrcode?: string; qr?: string; lang?: string };

/** The app pages' inline scripts (the first screen's choice, src/core/firstScreen.ts), allowed by their hashes. */
const INLINE_SCRIPT_HASHES = [FIRST_SCREEN_HEAD_SCRIPT, FIRST_SCREEN_BODY_SCRIPT].map(
  (s) => `'sha256-${createHash('sha256').update(s).digest('base64')}'`,
);

export async function serveFrontEnd(app: FastifyInstance, distDir: string): Promise<boolean> {
  const root = resolve(distDir);
  if (!existsSync(resolve(root, 'index.html'))) {
    const msg = 'The front end is not built yet: run `npm run build` (or `npm start`), then restart the server.\n';
    app.get('/', { schema: { hide: true } }, async (_req, reply) =>
      reply.type('text/plain; charset=utf-8').status(503).send(msg),
    );
    app.get('/demo/', { schema: { hide: true } }, async (_req, reply) =>
      reply.type('text/plain; charset=utf-8').status(503).send(msg),
    );
    return false;
  }
  serveEmbedFrame(app, resolve(root, 'embed/frame.html'));
  const codeLink = await codeLinkRenderer(root, (code) => app.powerly.cabinets.publicScan(code));
  await app.register(async (files) => {
    // These files are compressed at build time, or small enough to go as they are: @fastify/compress (app.ts)
    // does not compress them again on the fly (its documented per-request opt-out). A rendered code link is
    // made per request: compressed on the fly like an API answer.
    files.addHook('onRequest', async (req) => {
      if (!(req.url.startsWith('/?') && codeLink && codeOfQuery(req.query as CodeLinkQuery)))
        req.headers['x-no-compression'] = '1';
    });
    // The app's page; for a code link of a known cabinet, with its package screen rendered (codeLinkPage.ts).
    files.get<{ Querystring: CodeLinkQuery }>(
      '/',
      { schema: { hide: true, querystring: CODE_LINK_QUERY } },
      async (req, reply) => {
        const code = codeOfQuery(req.query);
        const page =
          code && codeLink
            ? await codeLink.page(code, codeLinkLang(req.query, req.headers['accept-language']))
            : undefined;
        if (page === undefined) return reply.sendFile('index.html');
        return reply
          .header('Cache-Control', CODE_LINK_CACHE)
          .header('Vary', 'Accept-Language')
          .header('Content-Security-Policy', app.pageCsp("'none'", INLINE_SCRIPT_HASHES))
          .type('text/html; charset=utf-8')
          .send(page);
      },
    );
    await files.register(fastifyStatic, {
      root,
      prefix: '/',
      index: ['index.html'],
      // The build writes x.br and x.gz beside every compressible file above 1 kB (vite-plugin-compression2):
      // a client that accepts br or gzip gets one of them with Content-Encoding, every response says
      // Vary: Accept-Encoding, and a file without a compressed copy goes out as it is.
      preCompressed: true,
      setHeaders(res, path) {
        // `path` is the file actually sent (…/x.js.br for x.js): the rules are about the file asked for.
        const file = relative(root, path)
          .replace(/\\/g, '/')
          .replace(/\.(br|gz)$/, '');
        if (file.endsWith('.html')) {
          res.header('Cache-Control', 'no-cache');
          // The app and the demo pages are never framed; only /embed/frame.html is (below).
          res.header('Content-Security-Policy', app.pageCsp("'none'", INLINE_SCRIPT_HASHES));
        } else if (file.startsWith('assets/') || file.startsWith('embed/assets/') || file.startsWith('ops/assets/')) {
          // Content-hashed names (the app's assetsDir, the embed's and the console's): a new build makes new names.
          res.header('Cache-Control', 'public, max-age=31536000, immutable');
        } else {
          // Fixed names (embed/loader.js, embed/powerly-rent.js, …): revalidate (ETag / Last-Modified) every time.
          res.header('Cache-Control', 'no-cache');
        }
        // The loader and the custom element are module scripts that other origins load (CORS, no credentials).
        if (/^embed\/.*\.js$/.test(file)) {
          res.header('Access-Control-Allow-Origin', '*');
          res.header('Cross-Origin-Resource-Policy', 'cross-origin');
        }
      },
    });
    // The web-view pages asked for as paths (routes; native apps load either form): the prerendered page
    // in the path's language (mapping); no or an unknown language → the en-US page, and the app then
    // shows the stored language. The app turns the path into its hash route.
    for (const screen of WEB_VIEW_SCREENS) {
      const send = (lang: string | undefined, reply: FastifyReply) => {
        const file = webViewFile(screen, mapRouteLang(lang) ?? DEFAULT_LOCALE);
        return existsSync(resolve(root, file)) ? reply.sendFile(file) : reply.callNotFound();
      };
      files.get(`/${screen}`, { schema: { hide: true } }, (_req, reply) => send(undefined, reply));
      files.get<{ Params: { lang: string } }>(`/${screen}/:lang`, { schema: { hide: true } }, (req, reply) =>
        send(req.params.lang, reply),
      );
    }
  });
  return true;
}

/**
 * The iframe page: the agent's exact origins go out as `frame-ancestors` (the browser refuses any other
 * parent) and into the page, where the bridge accepts messages from those origins only. An unknown agent
 * gets `frame-ancestors 'none'`.
 */
function serveEmbedFrame(app: FastifyInstance, file: string) {
  app.get<{ Querystring: { agent?: string } }>(
    '/embed/frame.html',
    {
      schema: {
        hide: true,
        querystring: {
          type: 'object',
          properties: { agent: { type: 'string', maxLength: 64 }, origin: { type: 'string', maxLength: 200 } },
        },
      },
    },
    async (req, reply) => {
      // Read per request (a small file): a rebuild while the server runs serves the new asset names.
      const html = await readFile(file, 'utf8').catch(() => null);
      if (!html)
        return reply
          .status(503)
          .type('text/plain; charset=utf-8')
          .send('The embed is not built yet: run `npm run build`.\n');
      const agent = await app.powerly.embed.agent(req.query.agent ?? '');
      const config = JSON.stringify({ agent: agent?.id ?? '', origins: agent?.origins ?? [] }).replace(/</g, '\\u003c');
      return (
        reply
          .header('Cache-Control', 'no-store')
          .header('Content-Security-Policy', app.pageCsp(frameAncestors(agent)))
          // Opened as a popup by another page, it gets its own browsing context group: the opener loses its handle.
          .header('Cross-Origin-Opener-Policy', 'same-origin')
          .header('Referrer-Policy', 'no-referrer')
          .type('text/html; charset=utf-8')
          .send(
            html.replace(
              '<!--powerly-agent-->',
              `<script type="application/json" id="powerly-agent">${config}</script>`,
            ),
          )
      );
    },
  );
}
