// The first screen a page URL shows (src/core/firstScreen.ts): the rules, and the inline script of index.html
// that applies them before the first paint, run here against the same rules.
import { describe, expect, it } from 'vitest';
import {
  firstRouteOf,
  firstScreenLang,
  firstScreenOf,
  webViewPathUrl,
  type FirstScreen,
} from '../../src/core/firstScreen.ts';
import { FIRST_SCREEN_HEAD_SCRIPT } from '../../src/core/firstScreenScripts.ts';
import { LOCALES, type Locale } from '../../src/core/lang.ts';

const loc = (url: string) => {
  const u = new URL(url, 'https://app.powerly.io');
  return { pathname: u.pathname, search: u.search, hash: u.hash };
};

/** Runs the head script on a page (its data-page, its lang) at `url` with `stored` in localStorage: its data-swap. */
const CSS = { aboutUsApp: ['/assets/a.css', '/assets/info.css'], contactUsApp: ['/assets/c.css'] };
let written: string[] = [];

function runHead(url: string, page: { screen: FirstScreen; lang: Locale }, stored: string | null): string | null {
  written = [];
  const attrs = new Map<string, string>([['data-page', page.screen]]);
  const documentElement = {
    lang: page.lang,
    getAttribute: (k: string) => attrs.get(k) ?? null,
    setAttribute: (k: string, v: string) => void attrs.set(k, v),
  };
  const localStorage = { getItem: (k: string) => (k === 'lang' ? stored : null) };
  const document = {
    documentElement,
    querySelector: (sel: string) => (sel === 'meta[name=powerly-first-css]' ? { content: JSON.stringify(CSS) } : null),
    write: (html: string) => void written.push(html),
  };
  new Function('document', 'location', 'localStorage', FIRST_SCREEN_HEAD_SCRIPT)(document, loc(url), localStorage);
  return attrs.get('data-swap') ?? null;
}

const URLS = [
  '/',
  '/#/',
  '/#',
  '/#/?qrcode=PWL-LIS-001',
  '/?qrcode=PWL-LIS-001',
  '/?zhcode=Z1',
  '/#/?qr=A',
  '/?lang=zh-CN',
  '/#/?lang=lt-LT',
  '/#/aboutUsApp/en-US',
  '/#/aboutUsApp/lt-LT',
  '/#/aboutUsApp',
  '/#/aboutUsApp/',
  '/#/contactUsApp/es-ES',
  '/#/contactUsApp/pt-BR',
  '/#/aboutUsApp/xx-YY',
  '/#/aboutUsApp/%E0%A4%A',
  '/#/aboutUsApp/en-US/x',
  '/#/aboutUs',
  '/#/wallet',
  '/#/login?x=1',
  '/aboutUsApp/lt-LT',
  '/aboutUsApp/en-US',
  '/contactUsApp',
  '/contactUsApp/zh-CN/',
  '/aboutUsApp/lt-LT#/wallet',
  '/aboutUsApp/en-US?join=1',
];
const PAGES: { screen: FirstScreen; lang: Locale }[] = [
  { screen: 'landing', lang: 'en-US' },
  { screen: 'aboutUsApp', lang: 'lt-LT' },
  { screen: 'contactUsApp', lang: 'en-US' },
  // The page the server renders for a code link asked for as a path.
  { screen: 'package', lang: 'lt-LT' },
  { screen: 'package', lang: 'en-US' },
];

describe('the first screen of a page URL', () => {
  it.each([
    ['/', 'landing'],
    ['/#/?qrcode=PWL-LIS-001', 'code'],
    ['/?qrcode=PWL-LIS-001', 'code'],
    ['/?lang=zh-CN', 'landing'],
    ['/#/aboutUsApp/en-US', 'aboutUsApp'],
    ['/contactUsApp/lt-LT', 'contactUsApp'],
    ['/#/wallet', null],
    ['/aboutUsApp/lt-LT#/wallet', null],
  ])('%s → %s', (url, screen) => expect(firstScreenOf(firstRouteOf(loc(url)))).toBe(screen));

  it('on the page the server rendered for a code link, the code link shows its package screen', () => {
    expect(firstScreenOf(firstRouteOf(loc('/?qrcode=PWL-LIS-001')), 'package')).toBe('package');
    expect(firstScreenOf(firstRouteOf(loc('/?qrcode=PWL-LIS-001')), 'landing')).toBe('code');
    expect(firstScreenOf(firstRouteOf(loc('/#/wallet')), 'package')).toBeNull();
    expect(firstScreenOf(firstRouteOf(loc('/')), 'package')).toBe('landing');
  });

  it("takes a web-view path's language, else the stored one, else the served page's, else en-US", () => {
    expect(firstScreenLang(firstRouteOf(loc('/?qrcode=A')), null, 'pt-PT')).toBe('pt-PT');
    expect(firstScreenLang(firstRouteOf(loc('/?qrcode=A')), 'zh-CN', 'pt-PT')).toBe('zh-CN');
    expect(firstScreenLang(firstRouteOf(loc('/?qrcode=A')), null)).toBe('en-US');
    expect(firstScreenLang(firstRouteOf(loc('/aboutUsApp/pt-BR')), 'zh-CN')).toBe('pt-PT');
    expect(firstScreenLang(firstRouteOf(loc('/#/aboutUsApp/xx-YY')), 'zh-CN')).toBe('zh-CN');
    expect(firstScreenLang(firstRouteOf(loc('/#/?qrcode=A')), 'lt-LT')).toBe('lt-LT');
  });

  it('turns a web-view path into its hash route, keeping the path', () => {
    expect(webViewPathUrl(loc('/aboutUsApp/lt-LT?join=1'))).toBe('/aboutUsApp/lt-LT?join=1#/aboutUsApp/lt-LT?join=1');
    expect(webViewPathUrl(loc('/contactUsApp/'))).toBe('/contactUsApp/#/contactUsApp');
    expect(webViewPathUrl(loc('/aboutUsApp/lt-LT#/aboutUsApp/lt-LT'))).toBeNull();
    expect(webViewPathUrl(loc('/?qrcode=A'))).toBeNull();
  });

  it("index.html's inline script shows a page's markup only for its screen in its language, else swaps", () => {
    let swaps = 0;
    for (const url of URLS) {
      for (const page of PAGES) {
        for (const stored of [null, 'en-US', 'lt-LT', 'zh-CN', 'nonsense']) {
          const storedLang = LOCALES.includes(stored as Locale) ? (stored as Locale) : null;
          const route = firstRouteOf(loc(url));
          const screen = firstScreenOf(route, page.screen);
          const want =
            screen && firstScreenLang(route, storedLang, screen === 'package' ? page.lang : undefined) === page.lang
              ? screen
              : '';
          const expected = want === page.screen ? null : want;
          if (expected !== null) swaps++;
          expect(runHead(url, page, stored), `${url} on ${page.screen}/${page.lang}, stored ${stored}`).toBe(expected);
          const css = want ? ((CSS as Record<string, string[]>)[want] ?? []) : [];
          expect(written, `${url}: the screen's stylesheets`).toEqual(
            css.map((h) => `<link rel="stylesheet" crossorigin href="${h}">`),
          );
        }
      }
    }
    expect(swaps).toBeGreaterThan(100);
  });
});
