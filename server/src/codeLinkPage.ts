// A code link asked for as a path (/?qrcode=<id>, what a cabinet's QR code opens): the page answered with the
// package screen already rendered, in the rider's language, from the scan's public read (the cabinet, its venue,
// prices, deposit, stock and free slots; CabinetsService.publicScan, from the scan's cache). The renderer is
// the app's own shell and screen bundled for Node (vite.ssr.config.ts → dist-ssr/render.js); the page is the
// build's first/package.html with its slots filled (build/prerender.ts, PACKAGE_PAGE_SLOTS), and carries the
// scan it shows as a JSON data block, which the client adopts instead of scanning again (src/scan/served.ts).
// No rider's data is in it (no session is read), and it may be kept only by the rider's browser, briefly.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { PACKAGE_PAGE, PACKAGE_PAGE_SLOTS, SERVED_SCAN_ID } from '#core/firstScreen.ts';
import { mapRouteLang, type Locale } from '#core/lang.ts';
import { pickLocale } from './lib/i18n.ts';

/** The page's Cache-Control: the rider's browser only (never a shared cache), and not for long (stock changes). */
export const CODE_LINK_CACHE = 'private, max-age=30';

interface Renderer {
  renderPackage(cabinet: unknown, lang: Locale): Promise<{ html: string; title: string }>;
}

/** The scan anyone may see (CabinetsService.publicScan). */
export type PublicScan = (code: string) => Promise<object | undefined>;

/** The renderer of dist's build (dist-ssr/ beside dist/), or null when that build has none. */
export async function codeLinkRenderer(distDir: string, scan: PublicScan) {
  const root = resolve(distDir);
  const module = resolve(`${root}-ssr`, 'render.js');
  if (!existsSync(module) || !existsSync(resolve(root, PACKAGE_PAGE))) return null;
  const renderer = (await import(pathToFileURL(module).href)) as Renderer;
  return {
    /** The page for `code` in `lang`; undefined when no cabinet has that code (the app's own page then says so). */
    async page(code: string, lang: Locale): Promise<string | undefined> {
      const cabinet = await scan(code);
      if (!cabinet) return undefined;
      // Read per request (a small file): a rebuild while the server runs serves the new asset names.
      const [template, { html, title }] = await Promise.all([
        readFile(resolve(root, PACKAGE_PAGE), 'utf8'),
        renderer.renderPackage(cabinet, lang),
      ]);
      const s = PACKAGE_PAGE_SLOTS;
      const data = `<script type="application/json" id="${SERVED_SCAN_ID}">${JSON.stringify(cabinet).replace(/</g, '\\u003c')}</script>`;
      return template
        .replace(`lang="${s.lang}"`, () => `lang="${lang}"`)
        .replace(`<title>${s.title}</title>`, () => `<title>${escapeText(title)}</title>`)
        .replace(s.root, () => html)
        .replace(s.data, () => data);
    },
  };
}

const escapeText = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;');

/** The code a page URL's query carries for a cabinet (qrcode, or qr of older labels), if any. */
export function codeOfQuery(q: { qrcode?: string; qr?: string }): string | undefined {
  return q.qrcode || q.qr || undefined;
}

/** The rider's language: the link's `lang` (mapped as a route parameter), else Accept-Language, else en-US. */
export function codeLinkLang(q: { lang?: string }, acceptLanguage: string | undefined): Locale {
  return mapRouteLang(q.lang) ?? pickLocale(acceptLanguage?.split(',')[0]?.split(';')[0]);
}
