// Runs after `npm run build` (browser project): the first load of every shape holds no map, QR scanner or
// payment SDK — those load only on the screens that need them. (size-limit checks the gzip budgets.)
import { readFileSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const HEAVY = /node_modules\/(maplibre-gl|qr-scanner|@zxing|jsqr|@stripe|@mercadopago|mercadopago|monri|@paypal|@adyen|braintree)/;

describe('first loads', () => {
  const reports = readdirSync('dist/size').filter((f) => f.endsWith('.modules.json'));
  it('cover the app and each embed shape', () => {
    expect(reports.sort()).toEqual(['app.modules.json', 'embed-element.modules.json', 'embed-frame.modules.json', 'embed-loader.modules.json']);
  });
  it.each(reports)('%s loads no map, QR scanner or payment SDK', (file) => {
    const { modules } = JSON.parse(readFileSync(`dist/size/${file}`, 'utf8')) as { modules: string[] };
    expect(modules.length).toBeGreaterThan(0);
    expect(modules.filter((m) => HEAVY.test(m))).toEqual([]);
  });
  it('the embed shapes are built against preact/compat, not React', () => {
    for (const f of ['embed-element', 'embed-frame']) {
      const { modules } = JSON.parse(readFileSync(`dist/size/${f}.modules.json`, 'utf8')) as { modules: string[] };
      expect(modules.some((m) => m.startsWith('node_modules/preact/compat/'))).toBe(true);
      expect(modules.filter((m) => /node_modules\/(react|react-dom)\//.test(m))).toEqual([]);
    }
  });
});
