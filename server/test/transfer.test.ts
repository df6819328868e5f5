// What goes over the wire: the front end's precompressed files (.br/.gz made at build time) negotiated on
// Accept-Encoding with the right Cache-Control, and API responses compressed above 1 KiB (@fastify/compress).
// The front end here is a small fake dist/ in a temp folder, so this test does not need `npm run build`
// (tests/browser/budgets.test.ts checks that the real build writes the compressed files).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { brotliCompressSync, brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build, type Built } from './helper.ts';
import { createHash } from 'node:crypto';
import { webViewFile } from '../../src/core/firstScreen.ts';
import { FIRST_SCREEN_BODY_SCRIPT, FIRST_SCREEN_HEAD_SCRIPT } from '../../src/core/firstScreenScripts.ts';
import { LOCALES } from '../../src/core/lang.ts';

const API = '/cdb-app-api/v1/app';
// Compressible text above 1 kB, as a build makes it.
const JS = `export const screens = [${Array.from({ length: 200 }, (_, i) => `{ id: ${i}, path: '/screen-${i}' }`).join(', ')}];\n`;
const HTML =
  `<!doctype html><html><head><title>Powerly</title><script type="module" src="/assets/index-AbC123xy.js"></script></head>` +
  `<body><!-- ${'padding '.repeat(200)}--><div id="root"></div></body></html>\n`;
const FRAME = `<!doctype html><html><head><!--powerly-agent--></head><body><!-- ${'frame '.repeat(300)}--></body></html>\n`;
const LOADER = `(function () { ${'/* the embed loader */ '.repeat(80)} })();\n`;
const SMALL = '<!doctype html><title>venue</title>\n';
/** A prerendered web-view page (build/prerender.ts writes one per screen and locale). */
const webView = (screen: string, lang: string) =>
  `<!doctype html><html lang="${lang}"><body><div id="root">${screen} ${lang} ${'text '.repeat(300)}</div></body></html>\n`;

let dist: string;
let b: Built;

function put(rel: string, text: string, compressed = true) {
  const file = join(dist, rel);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
  if (!compressed) return;
  writeFileSync(`${file}.br`, brotliCompressSync(text));
  writeFileSync(`${file}.gz`, gzipSync(text, { level: 9 }));
}

beforeAll(async () => {
  dist = mkdtempSync(join(tmpdir(), 'powerly-dist-'));
  put('index.html', HTML);
  put('assets/index-AbC123xy.js', JS);
  put('embed/loader.js', LOADER);
  put('embed/assets/frame-Zz9Yy8Xx.js', JS);
  put('embed/frame.html', FRAME, false);
  put('demo/venue.html', SMALL, false);
  for (const lang of LOCALES)
    for (const screen of ['aboutUsApp', 'contactUsApp'] as const) put(webViewFile(screen, lang), webView(screen, lang));
  b = await build({ simulator: false, frontEnd: dist });
});
afterAll(async () => {
  await b?.close();
  rmSync(dist, { recursive: true, force: true });
});

const get = (url: string, headers: Record<string, string> = {}) => b.app.inject({ method: 'GET', url, headers });

/** The frame-ancestors directive of a Content-Security-Policy (plugins/security.ts). */
const frameAncestorsOf = (csp: unknown) =>
  String(csp)
    .split(/;\s*/)
    .find((d) => d.startsWith('frame-ancestors'));

describe('the front end, precompressed', () => {
  it('sends the brotli file to a client that accepts br', async () => {
    const res = await get('/assets/index-AbC123xy.js', { 'accept-encoding': 'gzip, deflate, br' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-encoding']).toBe('br');
    expect(res.headers['content-type']).toMatch(/^text\/javascript|^application\/javascript/);
    expect(res.headers.vary).toMatch(/accept-encoding/i);
    expect(Number(res.headers['content-length'])).toBe(res.rawPayload.length);
    expect(res.rawPayload.length).toBeLessThan(Buffer.byteLength(JS) / 4);
    expect(brotliDecompressSync(res.rawPayload).toString()).toBe(JS);
  });

  it('sends the gzip file to a client that accepts gzip only', async () => {
    const res = await get('/assets/index-AbC123xy.js', { 'accept-encoding': 'gzip' });
    expect(res.headers['content-encoding']).toBe('gzip');
    expect(res.headers.vary).toMatch(/accept-encoding/i);
    expect(gunzipSync(res.rawPayload).toString()).toBe(JS);
  });

  it('sends the file itself without Accept-Encoding, still saying Vary: Accept-Encoding', async () => {
    const res = await get('/assets/index-AbC123xy.js');
    expect(res.headers['content-encoding']).toBeUndefined();
    expect(res.headers.vary).toMatch(/accept-encoding/i);
    expect(res.body).toBe(JS);
    const identity = await get('/assets/index-AbC123xy.js', { 'accept-encoding': 'identity' });
    expect(identity.headers['content-encoding']).toBeUndefined();
    expect(identity.body).toBe(JS);
  });

  it('caches hashed files for a year, compressed or not', async () => {
    for (const url of ['/assets/index-AbC123xy.js', '/embed/assets/frame-Zz9Yy8Xx.js']) {
      for (const enc of ['br', 'gzip', '']) {
        const res = await get(url, enc ? { 'accept-encoding': enc } : {});
        expect(res.headers['cache-control'], `${url} ${enc}`).toBe('public, max-age=31536000, immutable');
      }
    }
  });

  it('has HTML revalidated (no-cache, ETag, Last-Modified) and never framed, compressed or not', async () => {
    for (const enc of ['br', 'gzip', '']) {
      const res = await get('/', enc ? { 'accept-encoding': enc } : {});
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-encoding']).toBe(enc || undefined);
      expect(res.headers['cache-control']).toBe('no-cache');
      expect(frameAncestorsOf(res.headers['content-security-policy'])).toBe("frame-ancestors 'none'");
      expect(res.headers['content-security-policy']).toContain("script-src 'self'");
      expect(res.headers.etag).toBeTruthy();
      expect(res.headers['last-modified']).toBeTruthy();
      const text =
        enc === 'br'
          ? brotliDecompressSync(res.rawPayload).toString()
          : enc === 'gzip'
            ? gunzipSync(res.rawPayload).toString()
            : res.body;
      expect(text).toBe(HTML);
      const again = await get('/', {
        ...(enc ? { 'accept-encoding': enc } : {}),
        'if-none-match': String(res.headers.etag),
      });
      expect(again.statusCode).toBe(304);
    }
  });

  it("allows the app pages' two inline scripts (the first screen's choice) by their hashes, and no other inline script", async () => {
    const csp = String((await get('/')).headers['content-security-policy']);
    const scriptSrc = csp.split(/;\s*/).find((d) => d.startsWith('script-src '))!;
    for (const s of [FIRST_SCREEN_HEAD_SCRIPT, FIRST_SCREEN_BODY_SCRIPT]) {
      expect(scriptSrc).toContain(`'sha256-${createHash('sha256').update(s).digest('base64')}'`);
    }
    expect(scriptSrc).not.toContain('unsafe-inline');
    expect(scriptSrc.match(/'sha256-/g)).toHaveLength(2);
  });

  it('sends the web-view pages asked for as paths in the mapped language, precompressed, as HTML pages', async () => {
    for (const [path, text] of [
      ['/aboutUsApp/lt-LT', webView('aboutUsApp', 'lt-LT')],
      ['/contactUsApp/zh-CN', webView('contactUsApp', 'zh-CN')],
      ['/aboutUsApp/pt-BR', webView('aboutUsApp', 'pt-PT')],
      ['/contactUsApp/es-ES', webView('contactUsApp', 'en-US')],
      ['/aboutUsApp/xx-YY', webView('aboutUsApp', 'en-US')],
      ['/aboutUsApp', webView('aboutUsApp', 'en-US')],
    ] as const) {
      const res = await get(path, { 'accept-encoding': 'br' });
      expect(res.statusCode, path).toBe(200);
      expect(res.headers['content-encoding'], path).toBe('br');
      expect(res.headers['content-type'], path).toMatch(/^text\/html/);
      expect(res.headers['cache-control'], path).toBe('no-cache');
      expect(frameAncestorsOf(res.headers['content-security-policy']), path).toBe("frame-ancestors 'none'");
      expect(brotliDecompressSync(res.rawPayload).toString(), path).toBe(text);
    }
    expect((await get('/aboutUsApp/lt-LT/more')).statusCode).toBe(404);
  });

  it("has the embed's fixed-name loader revalidated, with CORS, compressed or not", async () => {
    for (const enc of ['br', '']) {
      const res = await get('/embed/loader.js', enc ? { 'accept-encoding': enc } : {});
      expect(res.headers['content-encoding']).toBe(enc || undefined);
      expect(res.headers['cache-control']).toBe('no-cache');
      expect(res.headers['access-control-allow-origin']).toBe('*');
      expect(res.headers['cross-origin-resource-policy']).toBe('cross-origin');
    }
  });

  it('does not compress on the fly a small file that has no compressed copy', async () => {
    const res = await get('/demo/venue.html', { 'accept-encoding': 'br, gzip' });
    expect(res.headers['content-encoding']).toBeUndefined();
    expect(res.body).toBe(SMALL);
  });

  it('still rewrites the embed iframe page per request, compressed by the API compression', async () => {
    const res = await get('/embed/frame.html?agent=nobody', { 'accept-encoding': 'br' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-encoding']).toBe('br');
    expect(res.headers['cache-control']).toBe('no-store');
    expect(frameAncestorsOf(res.headers['content-security-policy'])).toBe("frame-ancestors 'none'");
    const html = brotliDecompressSync(res.rawPayload).toString();
    expect(html).toContain('<script type="application/json" id="powerly-agent">{"agent":"","origins":[]}</script>');
    const plain = await get('/embed/frame.html?agent=nobody');
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body).toBe(html);
  });
});

describe('API responses', () => {
  it('are compressed above 1 KiB when the client asks', async () => {
    const plain = await get(`${API}/openapi.json`);
    expect(plain.statusCode).toBe(200);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.rawPayload.length).toBeGreaterThan(1024);
    const spec = plain.json() as { openapi: string };
    expect(spec.openapi).toMatch(/^3\./);

    const br = await get(`${API}/openapi.json`, { 'accept-encoding': 'gzip, deflate, br' });
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers.vary).toMatch(/accept-encoding/i);
    expect(br.headers['content-type']).toMatch(/^application\/json/);
    expect(br.rawPayload.length).toBeLessThan(plain.rawPayload.length / 3);
    expect(JSON.parse(brotliDecompressSync(br.rawPayload).toString())).toEqual(spec);

    const gz = await get(`${API}/openapi.json`, { 'accept-encoding': 'gzip' });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(JSON.parse(gunzipSync(gz.rawPayload).toString())).toEqual(spec);
  });

  it('are left alone below 1 KiB, envelope and all', async () => {
    const res = await b.app.inject({
      method: 'POST',
      url: `${API}/saas/tourist/login`,
      headers: { 'accept-encoding': 'br, gzip' },
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-encoding']).toBeUndefined();
    expect(res.rawPayload.length).toBeLessThan(1024);
    expect(res.json()).toMatchObject({ code: 0, data: expect.any(String) });
  });
});
