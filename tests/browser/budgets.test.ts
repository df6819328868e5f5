// Runs after `npm run build` (browser project): the first load of every shape holds no map, QR scanner or
// payment SDK — those load only on the screens that need them. (size-limit checks the gzip budgets.)
// And both builds leave precompressed copies (.br, .gz) of what the server sends (server/test/transfer.test.ts).
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';

const HEAVY =
  /node_modules\/(maplibre-gl|qr-scanner|@zxing|jsqr|@stripe|@mercadopago|mercadopago|monri|@paypal|@adyen|braintree)/;

describe('first loads', () => {
  const reports = readdirSync('dist/size').filter((f) => f.endsWith('.modules.json'));
  it('cover the app and each embed shape', () => {
    expect(reports.sort()).toEqual([
      'app.modules.json',
      'embed-element.modules.json',
      'embed-frame.modules.json',
      'embed-loader.modules.json',
    ]);
  });
  it.each(reports)('%s loads no map, QR scanner or payment SDK', (file) => {
    const { modules } = JSON.parse(readFileSync(`dist/size/${file}`, 'utf8')) as { modules: string[] };
    expect(modules.length).toBeGreaterThan(0);
    expect(modules.filter((m) => HEAVY.test(m))).toEqual([]);
  });
  it('the iframe page is built against preact/compat, not React', () => {
    const { modules } = JSON.parse(readFileSync('dist/size/embed-frame.modules.json', 'utf8')) as { modules: string[] };
    expect(modules.some((m) => m.startsWith('node_modules/preact/compat/'))).toBe(true);
    expect(modules.filter((m) => /node_modules\/(react|react-dom)\//.test(m))).toEqual([]);
  });
  it("the iframe's first load carries its first screen's strings, not the whole en-US table (embed/firstStrings.ts)", () => {
    const { modules } = JSON.parse(readFileSync('dist/size/embed-frame.modules.json', 'utf8')) as { modules: string[] };
    expect(modules).not.toContain('locales/en-US.json');
    expect(modules.some((m) => m.endsWith('powerly:first-screen-strings'))).toBe(true);
    // The API client is ofetch, without the helpers older ofetch versions brought along (ufo, destr).
    expect(modules.some((m) => m.startsWith('node_modules/ofetch/'))).toBe(true);
    expect(modules.filter((m) => /node_modules\/(ufo|destr)\//.test(m))).toEqual([]);
  });
  it('the host side (element, loader) is plain DOM: no framework, no flows, no widget side of the bridge', () => {
    for (const f of ['embed-element', 'embed-loader']) {
      const { modules } = JSON.parse(readFileSync(`dist/size/${f}.modules.json`, 'utf8')) as { modules: string[] };
      expect(
        modules.filter(
          (m) =>
            /node_modules\/(preact|react|react-dom|nanostores)\//.test(m) || /^src\/(ui|stores|api|i18n)\//.test(m),
        ),
      ).toEqual([]);
    }
  });
});

describe('precompressed files', () => {
  const html = readFileSync('dist/index.html', 'utf8');
  const firstLoad = [...html.matchAll(/(?:src|href)="\/((?:assets|embed)\/[^"]+\.(?:js|css))"/g)].map(
    (m) => `dist/${m[1]}`,
  );
  // Files under 1 kB go as they are (the compression threshold of both vite configs).
  const above1k = [...firstLoad, 'dist/index.html', 'dist/embed/loader.js', 'dist/embed/powerly-rent.js'].filter(
    (f) => statSync(f).size >= 1024,
  );
  it.each(above1k)('%s has .br and .gz copies of its final bytes', (file) => {
    const bytes = readFileSync(file);
    expect(brotliDecompressSync(readFileSync(`${file}.br`)).equals(bytes)).toBe(true);
    expect(gunzipSync(readFileSync(`${file}.gz`)).equals(bytes)).toBe(true);
  });
  it("cover the app's entry script and its CSS", () => {
    expect(above1k.filter((f) => f.endsWith('.js')).length).toBeGreaterThan(1);
    expect(above1k.some((f) => f.endsWith('.css'))).toBe(true);
  });
  it('leave the size-limit inputs and the per-request embed page alone', () => {
    expect(readdirSync('dist/size').filter((f) => /\.(br|gz)$/.test(f))).toEqual([]);
    expect(existsSync('dist/embed/frame.html.br')).toBe(false);
  });
});
