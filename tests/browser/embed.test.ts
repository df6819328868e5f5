// The embed across real origins in Chromium: the Powerly server (API, iframe page, element script) on one
// origin, the partner site on another port. A rental end to end through the iframe and the element (in a native
// web view: embedNative.test.ts); messages from a foreign origin or a wrong window are ignored; two elements on one
// page do not interfere; headers; web-view pages.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import en from '../../locales/en-US.json';
import zh from '../../locales/zh-CN.json';
import lt from '../../locales/lt-LT.json';
import pt from '../../locales/pt-PT.json';
import { axeViolations } from './axe.ts';
import { launchChromium } from './chromium.ts';
import { continueToCabinetHome, type RunningProduct } from './product.ts';
import {
  frameOf,
  hostPage,
  log,
  payInFrame,
  powerbankOut,
  returnTo,
  startHosts,
  widgetFrame,
  type Hosts,
} from './embedHosts.ts';

let hosts: Hosts;
let product: RunningProduct;
let browser: Browser;
let partnerOrigin: string;
const contexts: BrowserContext[] = [];

beforeAll(async () => {
  hosts = await startHosts();
  ({ product, partnerOrigin } = hosts);
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await hosts?.close();
});

async function newPage(): Promise<Page> {
  const page = await hostPage(browser);
  contexts.push(page.context());
  return page;
}

/** The frame-ancestors directive of a Content-Security-Policy (the rest is the page policy, server/src/plugins/security.ts). */
const frameAncestorsOf = (csp: string | null) =>
  String(csp)
    .split(/;\s*/)
    .find((d) => d.startsWith('frame-ancestors'));

describe('iframe on a partner site (another origin)', () => {
  it('mounts through the queued loader call, rents, and reports ready, resize, eject.confirmed, rental.returned and the receipt', async () => {
    const page = await newPage();
    const urls: string[] = [];
    page.on('request', (r) => urls.push(r.url()));
    await page.goto(`${partnerOrigin}/demo/partner/`);
    const frame = await widgetFrame(page);
    expect(new URL(frame.url()).origin).toBe(new URL(product.base).origin);
    await expect.poll(() => log(page).textContent()).toContain('rent powerly:ready');
    await expect.poll(() => frame.getByText('Time Out Market Lisboa').count()).toBeGreaterThan(0);
    // The box keeps a height of its own from the first frame (the reserved one, then the content's).
    await expect
      .poll(() =>
        page.locator('#rent iframe').evaluate((el) => (el as HTMLIFrameElement).getBoundingClientRect().height),
      )
      .toBeGreaterThan(200);

    await payInFrame(frame);
    await expect.poll(() => log(page).textContent()).toMatch(/powerly:resize height=\d+/);
    await expect.poll(() => log(page).textContent()).toMatch(/rent powerly:eject\.confirmed orderId=\S+/);
    await returnTo(product.base, 'PWL-VNO-001', await powerbankOut(frame));
    await expect
      .poll(() => log(page).textContent(), { timeout: 20_000 })
      .toMatch(/rent powerly:rental\.returned orderId=\S+/);
    // The receipt (the rider's 'host' channel) reaches the host page as rental.notice, in the rider's language.
    await expect
      .poll(
        async () => {
          await product.app.powerly.jobs.runDue();
          return log(page).textContent();
        },
        { timeout: 20_000 },
      )
      .toMatch(
        /rent powerly:rental\.notice orderId=\S+ kind=receipt title=Power bank returned body=.+Returned at GO9 Gedimino 9/,
      );

    // The token is never in a URL, a cookie or the host's storage; the frame keeps it in its own origin's
    // (partitioned) storage under its agent and slot only, and drops the rental once it is returned.
    const storage = await frame.evaluate(() => ({
      keys: Object.keys(localStorage).sort(),
      session: sessionStorage.length,
      cookie: document.cookie,
    }));
    expect(storage).toEqual({
      keys: ['powerly:demo-partner:rent:token', 'powerly:demo-partner:rent:userType'],
      session: 0,
      cookie: '',
    });
    expect(await page.evaluate(() => localStorage.length + sessionStorage.length + document.cookie.length)).toBe(0);
    expect(urls.filter((u) => /token=/i.test(u))).toEqual([]);
  });

  it('ignores a message from a foreign origin or from a wrong window, in both directions', async () => {
    const page = await newPage();
    await page.goto(`${partnerOrigin}/demo/partner/`);
    const frame = await widgetFrame(page);
    await expect.poll(() => frame.getByText('Time Out Market Lisboa').count()).toBeGreaterThan(0);
    await expect.poll(() => log(page).textContent()).toContain('powerly:ready');

    // A same-origin child of the host (right origin, wrong window) and a frame of a foreign origin (a sandboxed
    // frame's opaque origin: the partner page's policy frames no other site but the widget's) both try to steer
    // the widget and to fake a result to the host.
    await page.evaluate(() => {
      const a = document.createElement('iframe');
      a.name = 'sibling';
      a.srcdoc = '<p>sibling</p>';
      const b = document.createElement('iframe');
      b.name = 'foreign';
      b.setAttribute('sandbox', 'allow-scripts');
      b.srcdoc = '<p>foreign</p>';
      document.body.append(a, b);
    });
    await expect
      .poll(() => page.frames().filter((f) => f.name() === 'sibling' || f.name() === 'foreign').length)
      .toBe(2);
    const widgetOrigin = new URL(product.base).origin;
    for (const name of ['sibling', 'foreign']) {
      const attacker = page.frames().find((f) => f.name() === name)!;
      await attacker.waitForLoadState();
      await attacker.evaluate(
        ({ widgetOrigin }) => {
          const msg = { powerly: 1, type: 'setQrcode', payload: { qrcode: 'PWL-VNO-001' } };
          // The widget iframe is the host's first frame.
          window.parent.frames[0]!.postMessage(msg, widgetOrigin);
          window.parent.postMessage({ powerly: 1, type: 'eject.confirmed', payload: { orderId: '999' } }, '*');
        },
        { widgetOrigin },
      );
    }
    await page.waitForTimeout(1500);
    expect(await frame.getByText('GO9 Gedimino 9').count()).toBe(0);
    expect(await frame.getByText('Time Out Market Lisboa').count()).toBeGreaterThan(0);
    expect(await log(page).textContent()).not.toContain('999');

    // The real host, through the loader: accepted.
    await page.evaluate(() =>
      (window as unknown as { Powerly: (...a: unknown[]) => void }).Powerly('open', '#rent', 'PWL-VNO-001'),
    );
    await expect.poll(() => frame.getByText('GO9 Gedimino 9').count()).toBeGreaterThan(0);
  });

  it('refuses to be framed by an origin not on the agent allowlist', async () => {
    const page = await newPage();
    // The partner origin is not on demo-venue's allowlist: the browser blocks the frame (frame-ancestors)
    // and the host gets the handshake timeout.
    const res = await fetch(
      `${product.base}/embed/frame.html?agent=demo-venue&origin=${encodeURIComponent(partnerOrigin)}`,
    );
    expect(frameAncestorsOf(res.headers.get('content-security-policy'))).toBe(
      `frame-ancestors ${new URL(product.base).origin}`,
    );
    await page.goto(`${partnerOrigin}/demo/partner/`);
    await page.evaluate(() => {
      const el = document.createElement('div');
      el.id = 'wrong';
      document.getElementById('partner')!.append(el);
      (window as unknown as { Powerly: (...a: unknown[]) => void }).Powerly('mount', '#wrong', {
        agent: 'demo-venue',
        qrcode: 'PWL-LIS-001',
      });
    });
    await page.locator('#wrong').scrollIntoViewIfNeeded(); // below the first widget: it boots near the viewport
    await expect
      .poll(() => log(page).textContent(), { timeout: 15_000 })
      .toContain('wrong powerly:error code=handshakeTimeout');
  });
});

describe('headers', () => {
  it("the app is never framed; the iframe page names its agent's exact origins", async () => {
    for (const path of ['/', '/demo/', '/demo/venue.html']) {
      const res = await fetch(product.base + path);
      expect(frameAncestorsOf(res.headers.get('content-security-policy')), path).toBe("frame-ancestors 'none'");
    }
    const framed = await fetch(`${product.base}/embed/frame.html?agent=demo-partner`);
    expect(frameAncestorsOf(framed.headers.get('content-security-policy'))).toBe(`frame-ancestors ${partnerOrigin}`);
    const html = await framed.text();
    expect(html).toContain(`"origins":["${partnerOrigin}"]`);
    const unknown = await fetch(`${product.base}/embed/frame.html?agent=nobody`);
    expect(frameAncestorsOf(unknown.headers.get('content-security-policy'))).toBe("frame-ancestors 'none'");
  });
});

describe('<powerly-rent> on a venue site', () => {
  it('two elements do not interfere; one rents while the other stays on its own cabinet', async () => {
    const page = await newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${product.base}/demo/venue.html`);
    // Loading the element's script a second time (another URL, so it runs again) must not throw.
    await page.evaluate(() => {
      const s = document.createElement('script');
      s.type = 'module';
      s.src = '/embed/powerly-rent.js?again';
      document.head.append(s);
    });
    await expect.poll(async () => (await log(page).textContent())!.includes('rent-lisbon ready')).toBe(true);
    // The second widget is below the fold of this phone-sized page: it has its reserved box and skeleton but no
    // frame yet (embed/mount.ts boots it near the viewport), and boots when the person scrolls to it.
    expect(await page.locator('#rent-vilnius iframe').count()).toBe(0);
    expect(await page.locator('#rent-vilnius .pw-box').evaluate((el) => el.getBoundingClientRect().height)).toBe(920);
    await page.locator('#rent-vilnius').scrollIntoViewIfNeeded();
    await expect.poll(async () => (await log(page).textContent())!.includes('rent-vilnius ready')).toBe(true);
    // Open shadow DOM with its own styles.
    const shadow = await page
      .locator('#rent-lisbon')
      .evaluate((el) => ({ open: !!el.shadowRoot, style: !!el.shadowRoot?.querySelector('style') }));
    expect(shadow).toEqual({ open: true, style: true });
    // The venue's page with both widgets and the demo's event log: nothing for axe.
    expect(await axeViolations(page)).toEqual([]);

    const lisbonFrame = await frameOf(page, '#rent-lisbon iframe');
    const vilniusFrame = await frameOf(page, '#rent-vilnius iframe');
    await expect.poll(() => lisbonFrame.getByText('Time Out Market Lisboa').count()).toBeGreaterThan(0);
    await expect.poll(() => vilniusFrame.getByText('GO9 Gedimino 9').count()).toBeGreaterThan(0);

    await payInFrame(lisbonFrame);
    await expect.poll(() => log(page).textContent()).toMatch(/rent-lisbon eject\.confirmed orderId=\S+/);
    expect(await log(page).textContent()).not.toContain('rent-vilnius eject.confirmed');
    // The other widget still shows its own cabinet, with its own session.
    expect(await vilniusFrame.getByText('GO9 Gedimino 9').count()).toBeGreaterThan(0);
    await continueToCabinetHome(vilniusFrame, 'GO9 Gedimino 9');
    await expect.poll(() => vilniusFrame.getByRole('button', { name: /^Hold / }).count()).toBe(1);
    await returnTo(product.base, 'PWL-LIS-001', await powerbankOut(lisbonFrame));
    await expect
      .poll(() => log(page).textContent(), { timeout: 20_000 })
      .toMatch(/rent-lisbon rental\.returned orderId=\S+/);
    expect(errors).toEqual([]);
  });
});

describe("<powerly-rent>'s first load", () => {
  it('is what the host page fetches before the first ready: at most 5 kB on the wire (brotli, as served)', async () => {
    const page = await newPage();
    await page.addInitScript(() => {
      const w = window as unknown as { readyAt?: number };
      document.addEventListener(
        'ready',
        (e) => {
          if ((e.target as Element).localName === 'powerly-rent') w.readyAt ??= performance.now();
        },
        true,
      );
    });
    await page.goto(`${product.base}/demo/venue.html`);
    await expect
      .poll(() => page.evaluate(() => (window as unknown as { readyAt?: number }).readyAt ?? 0))
      .toBeGreaterThan(0);
    // The host page's own fetches of the element's files (the iframe page and what it loads have their budget).
    const before = await page.evaluate(() => {
      const readyAt = (window as unknown as { readyAt: number }).readyAt;
      return (performance.getEntriesByType('resource') as PerformanceResourceTiming[])
        .filter(
          (r) =>
            new URL(r.name).pathname.startsWith('/embed/') && r.initiatorType !== 'iframe' && r.responseEnd <= readyAt,
        )
        .map((r) => ({ path: new URL(r.name).pathname, bytes: r.encodedBodySize }));
    });
    const paths = before.map((r) => r.path);
    expect(paths).toContain('/embed/powerly-rent.js');
    expect(paths.some((p) => p.startsWith('/embed/element-texts-'))).toBe(true);
    expect(paths.filter((p) => /web-vitals|element-vitals/.test(p))).toEqual([]);
    const total = before.reduce((a, r) => a + r.bytes, 0);
    expect(total, JSON.stringify(before)).toBeLessThanOrEqual(5_000);
    // The web vitals reporter comes once a widget is ready.
    await expect
      .poll(() =>
        page.evaluate(() =>
          performance.getEntriesByType('resource').some((r) => r.name.includes('/embed/element-vitals.js')),
        ),
      )
      .toBe(true);
  });
});

describe('<powerly-rent> attributes after mount', () => {
  it('a changed lang switches the running widget live; a changed qrcode moves it to that cabinet', async () => {
    const page = await newPage();
    await page.goto(`${product.base}/demo/venue.html`);
    await page.locator('#rent-vilnius').scrollIntoViewIfNeeded(); // below the fold: it boots near the viewport
    await expect.poll(async () => (await log(page).textContent())!.includes('rent-vilnius ready')).toBe(true);
    const frame = await frameOf(page, '#rent-vilnius iframe');
    // The scan lands on package selection; its Continue button shows the widget's language.
    await expect.poll(() => frame.getByRole('button', { name: en.rentPricing.next, exact: true }).count()).toBe(1);
    const src = await page.locator('#rent-vilnius iframe').getAttribute('src');

    await page.locator('#rent-vilnius').evaluate((el) => el.setAttribute('lang', 'lt-LT'));
    await expect.poll(() => frame.getByRole('button', { name: lt.rentPricing.next, exact: true }).count()).toBe(1);
    expect(await frame.evaluate(() => document.documentElement.lang)).toBe('lt-LT');
    // The same iframe (no remount, the session survives): the change travelled as a bridge message.
    expect(await page.locator('#rent-vilnius iframe').getAttribute('src')).toBe(src);
    expect(await page.locator('#rent-vilnius iframe').count()).toBe(1);

    await page.locator('#rent-vilnius').evaluate((el) => el.setAttribute('qrcode', 'PWL-LIS-001'));
    await expect.poll(() => frame.getByText('Time Out Market Lisboa').count()).toBeGreaterThan(0);
    // The other element keeps its own language.
    const lisbon = await frameOf(page, '#rent-lisbon iframe');
    expect(await lisbon.getByRole('button', { name: en.rentPricing.next, exact: true }).count()).toBe(1);
  });
});

describe('web-view pages', () => {
  const cases: [string, { about: { title: string }; contact: { title: string } }][] = [
    ['zh-CN', zh],
    ['en-US', en],
    ['lt-LT', lt],
    ['pt-BR', pt],
    ['es-ES', en],
    ['ru-RU', en],
    ['it-IT', en],
  ];
  it.each(cases)(
    '#/aboutUsApp/%s and #/contactUsApp/(same) render in the mapped language, without app chrome',
    async (lang, table) => {
      const page = await newPage();
      await page.goto(`${product.base}/#/aboutUsApp/${lang}`);
      await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe(table.about.title);
      expect(await page.getByRole('button', { name: en.common.back }).count()).toBe(0);
      await page.goto(`${product.base}/#/contactUsApp/${lang}`);
      await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe(table.contact.title);
      await page.context().close();
    },
  );
});

describe('web vitals', () => {
  it('every shape reports, with no token, query or personal data', async () => {
    const page = await newPage();
    await page.goto(`${product.base}/#/`);
    await page.getByRole('main').first().waitFor();
    // web-vitals is loaded after the first screen: its first report (TTFB) says it listens before the page is left.
    await expect
      .poll(async () => (await product.db.query(`select 1 from web_vitals where shape = 'app'`)).rows.length, {
        timeout: 20_000,
      })
      .toBeGreaterThan(0);
    await page.goto('about:blank'); // page hide flushes the remaining metrics
    await expect
      .poll(
        async () => {
          const { rows } = await product.db.query<{ shape: string }>('select distinct shape from web_vitals');
          return rows.map((r) => r.shape).sort();
        },
        { timeout: 20_000 },
      )
      .toEqual(['app', 'element', 'iframe', 'webview']);
    const { rows } = await product.db.query<{ route: string }>('select route from web_vitals');
    for (const r of rows) expect(r.route).toMatch(/^(\/[A-Za-z0-9_/-]*)?$/);
    const res = await fetch(`${product.base}/cdb-app-api/v1/app/embed/vitals/summary`);
    const body = (await res.json()) as { code: number; data: { shape: string; name: string; count: number }[] };
    expect(body.code).toBe(0);
    expect(body.data.some((s) => s.shape === 'iframe' && s.name === 'TTFB' && s.count > 0)).toBe(true);
  });
});

afterAll(async () => {
  for (const c of contexts) await c.close().catch(() => undefined);
});
