// A code link asked for as a path (/?qrcode=<id>, what a cabinet's QR code opens): the server answers it with the
// package screen already rendered in the rider's language from the scan's public read (server/src/codeLinkPage.ts),
// cacheable by the rider's browser only and briefly, with no rider's data; the client adopts that screen without
// a flash (the heading painted first is the one it then updates) and without a scan call of its own; an unknown
// cabinet gets the app's own page, whose code-link entry says so; a hash link keeps working as before.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { mounted } from './chromium.ts';
import { productInChromium } from './product.ts';

const env = productInChromium();
const en = JSON.parse(readFileSync(new URL('../../locales/en-US.json', import.meta.url), 'utf8'));
const lt = JSON.parse(readFileSync(new URL('../../locales/lt-LT.json', import.meta.url), 'utf8'));

const CABINET = 'PWL-LIS-001';
const plural = (forms: Record<string, string>, n: number, lang: string) =>
  (forms[new Intl.PluralRules(lang).select(n)] ?? forms.other!).replace('{{n}}', String(n));
/** The served scan block of a page. */
const servedScan = (html: string) =>
  JSON.parse(/<script type="application\/json" id="powerly-scan">([^<]*)<\/script>/.exec(html)?.[1] ?? 'null');

describe('the server-rendered code link', () => {
  it("answers with the package screen in the rider's language, private and short-lived, with no rider data", async () => {
    const res = await fetch(`${env.product.base}/?qrcode=${CABINET}`, {
      headers: { 'accept-language': 'lt-LT,lt;q=0.9,en;q=0.5' },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('private, max-age=30');
    expect(res.headers.get('vary')).toMatch(/Accept-Language/i);
    expect(res.headers.get('set-cookie')).toBeNull();
    const html = await res.text();
    expect(html).toContain('<html lang="lt-LT" data-page="package">');
    const scan = servedScan(html);
    expect(scan).toMatchObject({ qrcode: CABINET, myyue: 0, zujieNum: 0, online: true });
    const root = /<div id="root" data-first="package">([\s\S]*?)<\/div>\s*<script>/.exec(html)?.[1] ?? '';
    expect(root).toContain(scan.shopname);
    expect(root).toContain(lt.rentPricing.deposit);
    expect(root).toContain(plural(lt.rentPricing.stock, scan.haveBatteryCount, 'lt-LT'));
    expect(root).toContain(plural(lt.rentPricing.slots, scan.freeSlots, 'lt-LT'));
    // The link's own lang wins over the browser's.
    const pt = await (
      await fetch(`${env.product.base}/?qrcode=${CABINET}&lang=pt-BR`, { headers: { 'accept-language': 'lt-LT' } })
    ).text();
    expect(pt).toContain('<html lang="pt-PT" data-page="package">');
  });

  it("an unknown cabinet: the app's own page, whose code-link entry says so", async () => {
    const res = await fetch(`${env.product.base}/?qrcode=NO-SUCH-CAB`);
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain('data-page="landing"');
    expect(servedScan(html)).toBeNull();
    const page = await env.newPage();
    await page.goto(`${env.product.base}/?qrcode=NO-SUCH-CAB`);
    await expect
      .poll(() => page.getByRole('alert').filter({ hasText: en.scan.failedTitle }).count(), { timeout: 20_000 })
      .toBe(1);
  });

  it('is adopted without a flash and without a scan call: the painted screen is the one that works', async () => {
    const page = await env.newPage();
    const problems: string[] = [];
    const calls: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error' || m.type() === 'warning') problems.push(`${m.type()}: ${m.text()}`);
    });
    page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
    const stylesheets: string[] = [];
    const workers: string[] = [];
    page.on('request', (r) => {
      if (r.url().includes('/cdb-app-api/')) calls.push(new URL(r.url()).pathname);
      if (r.resourceType() === 'stylesheet') stylesheets.push(new URL(r.url()).pathname);
      if (r.url().includes('intlWarm.worker')) workers.push(new URL(r.url()).pathname);
    });
    await page.addInitScript(() => {
      // Every change of <html lang> (each restyles and lays out the whole page again).
      const langs: string[] = [];
      (window as unknown as { langs: string[] }).langs = langs;
      new MutationObserver((records) => {
        for (const r of records) if (r.target === document.documentElement) langs.push(document.documentElement.lang);
      }).observe(document, { attributes: true, attributeFilter: ['lang'], subtree: true });
      document.addEventListener('readystatechange', () => {
        if (document.readyState !== 'interactive') return;
        const root = document.getElementById('root')!;
        const w = window as unknown as { parsed: { h2: Element | null; text: string; hidden: boolean } };
        w.parsed = {
          h2: root.querySelector('h2.venue-name'),
          text: root.innerText,
          hidden: getComputedStyle(root).visibility === 'hidden',
        };
      });
    });
    await page.goto(`${env.product.base}/?qrcode=${CABINET}`);
    const parsed = await page.evaluate(
      () => (window as unknown as { parsed: { text: string; hidden: boolean } }).parsed,
    );
    expect(parsed.hidden).toBe(false);
    expect(parsed.text).toContain(en.rentPricing.deposit);
    await mounted(page);
    expect(await page.evaluate(() => location.hash)).toBe('#/selectPakage');
    // Hydrated, not rendered afresh: the venue heading painted from the HTML is the document's.
    expect(
      await page.evaluate(() => {
        const h2 = (window as unknown as { parsed: { h2: Element | null } }).parsed.h2;
        return !!h2 && h2.isConnected && document.querySelector('#root h2.venue-name') === h2;
      }),
    ).toBe(true);
    // Painted from the page alone: the screen's stylesheet is in it (no stylesheet request, before or after),
    // and the language the server rendered in is kept as it is (no restyle of the whole page).
    expect(stylesheets).toEqual([]);
    expect(await page.evaluate(() => (window as unknown as { langs: string[] }).langs)).toEqual([]);
    // ICU's number data was loaded by a worker, not by the hydration's task (src/platform/intlWarm.ts).
    expect(workers).toHaveLength(1);
    // Hydrated once the rider's (tourist) session was made; the served screen was not scanned again.
    const beforeNext = [...calls];
    expect(beforeNext.some((c) => c.endsWith('/saas/tourist/login'))).toBe(true);
    expect(beforeNext.filter((c) => c.endsWith('/checkisok'))).toEqual([]);
    // It works: the fee explanation opens, and Next goes on to the cabinet home with the rider's new session.
    await page.getByRole('button', { name: en.rentPricing.tipOpen }).click();
    await expect.poll(() => page.getByRole('dialog', { name: en.rentPricing.tipTitle }).count()).toBe(1);
    await page.getByRole('button', { name: en.rentPricing.tipClose }).click();
    await page.getByRole('button', { name: en.rentPricing.next }).click();
    await expect.poll(() => page.evaluate(() => location.hash)).toBe('#/home');
    expect(problems).toEqual([]);
  });

  it('a hash link keeps working as before', async () => {
    const page = await env.newPage();
    await page.goto(`${env.product.base}/#/?qrcode=${CABINET}`);
    await expect.poll(() => page.evaluate(() => location.hash), { timeout: 20_000 }).toMatch(/^#\/selectPakage/);
  });
});
