// The build step that prerenders the app's first screens (docs/architecture.md, "First screen"): after Vite
// has written index.html's tags, it loads src/prerender.tsx in Node through a Vite SSR server with the app's
// aliases (React → preact/compat) and renders the real screens with the real strings:
//  - index.html: the landing in #root (en-US), the code-link entry and the two web-view pages as <template>s,
//    and the inline scripts of src/core/firstScreen.ts that pick the one the URL's hash route shows; the entry's
//    stylesheets inlined (inlineStylesheets);
//  - first/<screen>.<locale>.html: each web-view page in each locale, sent by the server for
//    /aboutUsApp/{lang} and /contactUsApp/{lang} (server/src/static.ts);
//  - first/package.html: the page the server fills in with the package screen it renders for a code link asked
//    for as a path, /?qrcode=… (server/src/codeLinkPage.ts; its slots: PACKAGE_PAGE_SLOTS).
// They pass through the build's compression like every other HTML file (.br, .gz).
import { resolve } from 'node:path';
import { createServer, type Plugin, type UserConfig } from 'vite';
import {
  FIRST_SCREEN_ROUTES,
  PACKAGE_PAGE,
  PACKAGE_PAGE_SLOTS,
  WEB_VIEW_SCREENS,
  webViewFile,
  type FirstScreen,
} from '../src/core/firstScreen.ts';
import {
  FIRST_SCREEN_BODY_SCRIPT,
  FIRST_SCREEN_HEAD_SCRIPT,
  FIRST_SCREEN_STYLE,
} from '../src/core/firstScreenScripts.ts';
import { DEFAULT_LOCALE, LOCALES, type Locale } from '../src/core/lang.ts';

type Render = (route: string, lang: Locale) => Promise<{ html: string; title: string }>;

const escapeAttr = (s: string) => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
const escapeText = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;');

/** index.html with a first screen in #root (and others as templates) and the scripts that choose. */
export function pageWithFirstScreen(
  html: string,
  page: {
    screen: FirstScreen;
    lang: Locale;
    markup: string;
    title: string;
    templates?: Partial<Record<FirstScreen, string>>;
    /** Each first screen's stylesheets that the page does not link already (its lazy chunk's). */
    css: Partial<Record<FirstScreen, string[]>>;
    /**
     * A stylesheet's text: given, the page's own screen's stylesheets are inlined (a page that is that screen
     * whenever its language is the rider's: the web-view pages, the code link's package page), so its first paint
     * waits on no stylesheet request; the head script writes the others' only.
     */
    cssText?: (href: string) => string | undefined;
  },
): string {
  const replaceOnce = (s: string, find: string | RegExp, by: string) => {
    const out = s.replace(find, () => by);
    if (out === s) throw new Error(`prerender: ${String(find)} not found in index.html`);
    return out;
  };
  let out = replaceOnce(html, /<html lang="[^"]*">/, `<html lang="${page.lang}" data-page="${page.screen}">`);
  // Last in <head>: before #root is parsed, and after the page's own stylesheets, so that the screen's, which it
  // writes (or which are inlined here), come after them as they would when its chunk loads (same cascade).
  const listed = { ...page.css };
  let own = '';
  if (page.cssText) {
    own = (listed[page.screen] ?? []).map((href) => `\n    ${inlineStylesheet(href, page.cssText!)}`).join('');
    delete listed[page.screen];
  }
  const css = `<meta name="powerly-first-css" content="${escapeAttr(JSON.stringify(listed))}" />${own}`;
  out = replaceOnce(
    out,
    '</head>',
    `  ${css}\n    <style>${FIRST_SCREEN_STYLE}</style>\n    <script>${FIRST_SCREEN_HEAD_SCRIPT}</script>\n  </head>`,
  );
  out = replaceOnce(out, /<title>[^<]*<\/title>/, `<title>${escapeText(page.title)}</title>`);
  const templates = Object.entries(page.templates ?? {})
    .map(([k, m]) => `\n    <template data-first="${escapeAttr(k)}">${m}</template>`)
    .join('');
  out = replaceOnce(
    out,
    '<div id="root"></div>',
    `<div id="root" data-first="${page.screen}">${page.markup}</div>${templates}\n    <script>${FIRST_SCREEN_BODY_SCRIPT}</script>`,
  );
  return out;
}

/** The source module of each first screen's chunk (the route table's loaders). */
const SCREEN_MODULES: Record<FirstScreen, string> = {
  landing: 'src/scan/HomeScan.tsx',
  code: 'src/scan/HomeScan.tsx',
  aboutUsApp: 'src/info/AboutUsApp.tsx',
  contactUsApp: 'src/info/ContactUsApp.tsx',
  package: 'src/rent/SelectPakage.tsx',
};

interface ChunkLike {
  type: 'chunk';
  facadeModuleId: string | null;
  imports: string[];
  viteMetadata?: { importedCss: Set<string> };
}

/** The stylesheets of each first screen's chunk and its static imports that `html` does not link yet. */
function screensCss(
  bundle: Record<string, { type: string }>,
  root: string,
  html: string,
): Partial<Record<FirstScreen, string[]>> {
  const chunks = Object.entries(bundle).filter(([, c]) => c.type === 'chunk') as [string, ChunkLike][];
  const byFile = new Map(chunks);
  const out: Partial<Record<FirstScreen, string[]>> = {};
  for (const [screen, mod] of Object.entries(SCREEN_MODULES) as [FirstScreen, string][]) {
    const entry = chunks.find(([, c]) => c.facadeModuleId && resolve(c.facadeModuleId) === resolve(root, mod));
    if (!entry) throw new Error(`prerender: no chunk for ${mod}`);
    const seen = new Set<string>();
    const walk = (file: string) => {
      if (seen.has(file)) return;
      seen.add(file);
      for (const i of byFile.get(file)?.imports ?? []) walk(i);
    };
    walk(entry[0]);
    const css = [...seen].flatMap((f) => [...(byFile.get(f)?.viteMetadata?.importedCss ?? [])]).map((f) => `/${f}`);
    const missing = [...new Set(css)].filter((href) => !html.includes(`href="${href}"`));
    if (missing.length) out[screen] = missing;
  }
  return out;
}

/**
 * The page's own stylesheets (the entry's, which Vite links) inlined: the first paint then waits on no request
 * but the page, and the first-screen script after them runs at once (an inline script waits for the stylesheets
 * before it). Each keeps a `disabled` link of its file, which the browser does not fetch: Vite's preloader finds
 * it there and does not add the file again when a lazy screen that also imports it loads.
 */
export function inlineStylesheets(html: string, css: (href: string) => string | undefined): string {
  return html.replace(/<link rel="stylesheet" crossorigin href="(\/assets\/[^"]+\.css)">/g, (_tag, href: string) =>
    inlineStylesheet(href, css),
  );
}

/** One stylesheet as a <style> with its file's `disabled` link (inlineStylesheets says why). */
function inlineStylesheet(href: string, css: (href: string) => string | undefined): string {
  const text = css(href);
  if (text === undefined) throw new Error(`prerender: no stylesheet ${href} in the bundle`);
  if (text.includes('</style')) throw new Error(`prerender: ${href} cannot be inlined`);
  return `<style>${text}</style>\n    <link rel="stylesheet" crossorigin href="${href}" disabled>`;
}

export function prerenderFirstScreens(ssrConfig: Pick<UserConfig, 'plugins' | 'resolve'>): Plugin {
  const pages = new Map<string, string>();
  let appHtml = '';
  let root = '';
  return {
    name: 'powerly-prerender',
    apply: 'build',
    enforce: 'post',
    configResolved(config) {
      root = config.root;
      appHtml = resolve(config.root, 'index.html');
    },
    transformIndexHtml: {
      order: 'post',
      async handler(html, ctx) {
        // The app's page only (the demo build reuses these plugins for its own pages).
        if (resolve(ctx.filename) !== appHtml) return html;
        const server = await createServer({
          ...ssrConfig,
          configFile: false,
          logLevel: 'error',
          appType: 'custom',
          server: { middlewareMode: true, hmr: false, ws: false },
          // Every module through Vite, so React resolves to preact/compat everywhere (@nanostores/react too) and
          // the renderer and the screens share one preact.
          ssr: { noExternal: true },
          optimizeDeps: { noDiscovery: true, include: [] },
        });
        try {
          const { prerender } = (await server.ssrLoadModule('/src/prerender.tsx')) as { prerender: Render };
          const css = screensCss(ctx.bundle ?? {}, root, html);
          const cssText = (href: string) => {
            const asset = ctx.bundle?.[href.slice(1)];
            if (asset?.type !== 'asset') return undefined;
            return typeof asset.source === 'string' ? asset.source : new TextDecoder().decode(asset.source);
          };
          html = inlineStylesheets(html, cssText);
          const en = async (s: FirstScreen) => prerender(FIRST_SCREEN_ROUTES[s], DEFAULT_LOCALE);
          const landing = await en('landing');
          const templates: Partial<Record<FirstScreen, string>> = {};
          for (const s of ['code', ...WEB_VIEW_SCREENS] as const) templates[s] = (await en(s)).html;
          for (const s of WEB_VIEW_SCREENS) {
            for (const lang of LOCALES) {
              const r = await prerender(FIRST_SCREEN_ROUTES[s], lang);
              pages.set(
                webViewFile(s, lang),
                pageWithFirstScreen(html, { screen: s, lang, markup: r.html, title: r.title, css, cssText }),
              );
            }
          }
          const slots = PACKAGE_PAGE_SLOTS;
          const packagePage = pageWithFirstScreen(html, {
            screen: 'package',
            lang: slots.lang as Locale,
            markup: slots.root,
            title: slots.title,
            css,
            cssText,
          });
          pages.set(PACKAGE_PAGE, packagePage.replace('</body>', `${slots.data}</body>`));
          // The app's page never shows the package screen (only first/package.html does): its stylesheets are not listed there.
          const appCss = { ...css };
          delete appCss.package;
          return pageWithFirstScreen(html, {
            screen: 'landing',
            lang: DEFAULT_LOCALE,
            markup: landing.html,
            title: landing.title,
            templates,
            css: appCss,
          });
        } finally {
          await server.close();
        }
      },
    },
    generateBundle() {
      for (const [fileName, source] of pages) this.emitFile({ type: 'asset', fileName, source });
    },
  };
}
