// Trust and clarity, as a person sees them in Chromium against the real server, database, broker and cabinet simulator:
// live updates without a reload, the jam screen, focus after navigation, and every screen in every language at
// 320 px without horizontal overflow or a cut title (also at 200 % text), with axe finding nothing.
import { describe, expect, it } from 'vitest';
import type { BrowserContextOptions, Page } from 'playwright-core';
import { LOCALES } from '../../src/core/lang.ts';
import { ROUTES } from '../../src/routes.ts';
import { touristToken } from '../../server/test/helper.ts';
import { axeViolations } from './axe.ts';
import { continueToCabinetHome, productInChromium } from './product.ts';

const env = productInChromium();

async function page(o: BrowserContextOptions & { token?: string; lang?: string } = {}): Promise<Page> {
  const { token, lang, ...options } = o;
  const context = await env.browser.newContext({ viewport: { width: 390, height: 844 }, locale: 'en-US', ...options });
  await context.addInitScript(
    ([t, l]) => {
      if (t) localStorage.setItem('token', t);
      if (l) localStorage.setItem('lang', l);
    },
    [token ?? '', lang ?? ''] as const,
  );
  const p = await context.newPage();
  p.setDefaultTimeout(15_000);
  return p;
}

async function payWithCard(p: Page) {
  await p.getByLabel('Card number').fill('4242 4242 4242 4242');
  await p.getByLabel('Expiry date (MM/YY)').fill('12/34');
  await p.getByLabel('CVC').fill('123');
  await p.getByRole('button', { name: /^Authorize/ }).click();
}

describe('live: the screens follow the cabinet without a reload', () => {
  it('the order list and detail show the return, with what it cost and what was released', async () => {
    const p = await page();
    const requested: string[] = [];
    p.on('request', (r) => requested.push(r.url()));
    await p.goto(`${env.product.base}/#/?qrcode=PWL-LIS-001`);
    await continueToCabinetHome(p, 'Time Out Market Lisboa');
    await p.getByRole('button', { name: /^Hold / }).click();
    await payWithCard(p);
    const out = p.getByRole('status').filter({ hasText: 'Your power bank is out!' });
    await out.waitFor();
    expect(await axeViolations(p)).toEqual([]);
    const powerbankId = (await out.textContent())!.match(/power bank (\S+) from slot/)![1]!;
    const orderId = new URLSearchParams((await p.evaluate(() => location.hash)).split('?')[1]).get('tradeNo')!;

    // The order list: one in use. A marker on window proves no reload happens from here on.
    await p.getByRole('button', { name: 'View my orders' }).click();
    await expect.poll(() => p.getByRole('tab', { name: /In use/ }).textContent()).toMatch(/\(1\)/);
    await p.evaluate(() => ((window as unknown as { __sameDocument: boolean }).__sameDocument = true));
    await p.getByRole('button', { name: `Details of order ${orderId}` }).click();
    await expect
      .poll(() => p.evaluate(() => `${document.activeElement?.tagName} ${document.activeElement?.textContent}`))
      .toBe('H1 Order details');
    await expect.poll(() => p.locator('.badge-live', { hasText: 'In use' }).count()).toBeGreaterThan(0);
    expect(await axeViolations(p)).toEqual([]);

    // The stream is open (the screens are told, not polling).
    await expect.poll(() => requested.some((u) => u.includes('/live/events?ticket='))).toBe(true);

    // 40 minutes later it goes into the Vilnius cabinet: €1.50 per 30 min, 5 free → 2 units = €3, €27 of €30 released.
    env.product.clock.advance(40 * 60_000);
    const ret = await env.product.app.inject({
      method: 'POST',
      url: '/demo-api/cabinets/PWL-VNO-001/return',
      payload: { powerbankId },
    });
    expect(ret.json()).toMatchObject({ code: 0 });
    const summary = p.getByTestId('return-summary');
    await summary.waitFor();
    expect(await summary.textContent()).toBe('Returned at GO9 Gedimino 9: €3 charged, €27 released');
    expect(await p.locator('.badge-live', { hasText: 'In use' }).count()).toBe(0);
    expect(await p.evaluate(() => (window as unknown as { __sameDocument?: boolean }).__sameDocument)).toBe(true);

    // Back to the list: the rental is ended, and its card says where it went back.
    await p.getByRole('button', { name: 'Back' }).click();
    await expect.poll(() => p.getByRole('tab', { name: /In use/ }).textContent()).toMatch(/\(0\)/);
    expect(await p.evaluate(() => (window as unknown as { __sameDocument?: boolean }).__sameDocument)).toBe(true);
  });

  it('a list left open updates when the power bank goes back', async () => {
    const token = await touristToken(env.product.app);
    const p = await page({ token });
    await p.goto(`${env.product.base}/#/?qrcode=PWL-LIS-001`);
    await continueToCabinetHome(p);
    await p.getByRole('button', { name: /^Hold / }).click();
    await payWithCard(p);
    const out = p.getByRole('status').filter({ hasText: 'Your power bank is out!' });
    await out.waitFor();
    const powerbankId = (await out.textContent())!.match(/power bank (\S+) from slot/)![1]!;
    await p.getByRole('button', { name: 'View my orders' }).click();
    await expect.poll(() => p.getByRole('tab', { name: /In use/ }).textContent()).toMatch(/\(1\)/);
    await p.evaluate(() => ((window as unknown as { __sameDocument: boolean }).__sameDocument = true));
    env.product.clock.advance(20 * 60_000);
    await env.product.app.inject({
      method: 'POST',
      url: '/demo-api/cabinets/PWL-LIS-001/return',
      payload: { powerbankId },
    });
    await expect.poll(() => p.getByRole('tab', { name: /In use/ }).textContent()).toMatch(/\(0\)/);
    // The toast says what it cost.
    await expect.poll(() => p.getByText(/^Returned at .*: .* charged, .* released$/).count()).toBe(1);
    expect(await p.evaluate(() => (window as unknown as { __sameDocument?: boolean }).__sameDocument)).toBe(true);
  });
});

describe('live: the wallet', () => {
  it('a wallet left open in one tab shows a top-up made in another, without a reload', async () => {
    const a = await page();
    await a.goto(`${env.product.base}/#/?qrcode=PWL-NYC-001`);
    // The scan has answered (it opens the New York wallet in USD): only then to the wallet, or the list may not
    // have the USD wallet yet (the race behind this test's intermittent failures).
    await a.waitForFunction(() => location.hash.startsWith('#/selectPakage'));
    await a.goto(`${env.product.base}/#/wallet`);
    const balance = a.getByTestId('wallet-USD').getByTestId('balance');
    await expect.poll(() => balance.textContent()).toBe('$0');
    await a.evaluate(() => ((window as unknown as { __sameDocument: boolean }).__sameDocument = true));

    const b = await a.context().newPage();
    await b.goto(`${env.product.base}/#/wallet_in?currency=USD`);
    await b.getByRole('heading', { name: 'Top up' }).waitFor();
    await b.getByRole('button', { name: '$30', exact: true }).click();
    await b.getByLabel('Card number').fill('4242 4242 4242 4242');
    await b.getByLabel('Expiry date (MM/YY)').fill('12/34');
    await b.getByLabel('CVC').fill('123');
    await b.getByRole('button', { name: 'Pay $30' }).click();
    await b.getByRole('dialog', { name: 'Top-up successful' }).waitFor();

    await expect.poll(() => balance.textContent()).toBe('$30');
    expect(await a.evaluate(() => (window as unknown as { __sameDocument?: boolean }).__sameDocument)).toBe(true);
  });
});

describe('navigation', () => {
  it("moves focus to the new screen's heading and names it; the menu closes on Back", async () => {
    const p = await page();
    await p.goto(`${env.product.base}/#/homeMap`);
    await p.getByRole('heading', { level: 1 }).waitFor();
    await p.getByRole('button', { name: 'Menu' }).click();
    await p.getByRole('button', { name: 'About us' }).click();
    await expect.poll(() => p.evaluate(() => document.activeElement?.tagName)).toBe('H1');
    const title = await p.evaluate(() => document.activeElement?.textContent);
    expect(await p.locator('#route-announcer').textContent()).toBe(title);
    expect(await p.evaluate(() => document.title)).toContain(title!);
    await p.goBack();
    await expect.poll(() => p.evaluate(() => location.hash)).toBe('#/homeMap');
    expect(await p.locator('dialog.side-menu[open]').count()).toBe(0);
    await p.getByRole('button', { name: 'Menu' }).click();
    await expect.poll(() => p.locator('dialog.side-menu[open]').count()).toBe(1);
    await p.goBack();
    await expect.poll(() => p.locator('dialog.side-menu[open]').count()).toBe(0);
  });
});

describe('an empty cabinet and the map', () => {
  it('an empty cabinet says so on the first screen after the scan, with the nearest cabinets with stock', async () => {
    // Every power bank of the New York cabinet is out (as if rented).
    await env.product.db.query(
      `update powerbanks set state = 'rented', cabinet_id = null, slot = null where cabinet_id = 'PWL-NYC-001'`,
    );
    const p = await page();
    await p.goto(`${env.product.base}/#/?qrcode=PWL-NYC-001`);
    await expect.poll(() => p.evaluate(() => location.hash), { timeout: 20_000 }).toMatch(/^#\/selectPakage/);
    await expect.poll(() => p.getByTestId('stock').textContent()).toBe('This cabinet has no power bank right now.');
    const nearest = p.getByRole('region', { name: 'Nearest cabinets with power banks' });
    await expect.poll(() => nearest.getByRole('button').count()).toBeGreaterThan(0);
    expect(await nearest.getByRole('button', { name: /Grand Central/ }).count()).toBe(0);
    expect(await axeViolations(p)).toEqual([]);
    // A cabinet with stock shows it, with its free slots, on the same screen.
    await p.goto(`${env.product.base}/#/?qrcode=PWL-LIS-001`);
    await expect
      .poll(() => p.getByTestId('stock').textContent(), { timeout: 20_000 })
      .toMatch(/^\d+ power banks to rent · \d+ free slots to return$/);
  });

  it('the map search finds any venue by name or address, not only those in view', async () => {
    const token = await touristToken(env.product.app);
    const p = await page({ token });
    // No position: the map opens at its default centre, far from Vilnius.
    await p.goto(`${env.product.base}/#/google_map`);
    await p.getByRole('heading', { level: 1 }).waitFor();
    await p
      .getByRole('button', { name: /Search/ })
      .first()
      .click();
    const dialog = p.getByRole('dialog', { name: 'Search venues' });
    await dialog.getByLabel('Venue name or address').fill('Gedimino');
    await dialog.getByRole('button', { name: /GO9 Gedimino 9/ }).click();
    await expect.poll(() => p.getByRole('region', { name: 'GO9 Gedimino 9' }).count()).toBe(1);
    expect(await axeViolations(p)).toEqual([]);
    // The return filter is a labelled control.
    expect(await p.getByLabel('Only cabinets with a free slot to return').count()).toBe(1);
  });
});

/** Every route with a screen, the token-less one with a made-up order (its not-found state). */
const SCREENS = ROUTES.filter((r) => r.screen && r.path !== '/login_wechat' && r.path !== '/login_alipay').map((r) =>
  r.path === '/orderDetail' ? '/orderDetail?orderId=none' : r.path === '/selectPakage' ? '/selectPakage' : r.path,
);

/** Every screen in one language at 320 px, and at 200 % text: what overflows, cuts a title or misaligns fields. */
async function checkLanguage(token: string, lang: string, problems: string[]): Promise<void> {
  const p = await page({ token, lang, viewport: { width: 320, height: 640 } });
  await p.goto(`${env.product.base}/#/order`);
  await p.getByRole('heading', { level: 1 }).waitFor();
  for (const path of SCREENS) {
    await p.evaluate((h) => (location.hash = h), path);
    await p.waitForTimeout(50);
    await p
      .waitForFunction(
        () => document.querySelector('h1') && !document.querySelector('[aria-busy="true"].screen-loading'),
        undefined,
        { timeout: 15_000 },
      )
      .catch(() => undefined);
    await p.waitForLoadState('networkidle').catch(() => undefined);
    const here = await p.evaluate(() => location.hash);
    const measure = () =>
      p.evaluate(() => {
        const h1 = document.querySelector('h1');
        return {
          overflow: document.documentElement.scrollWidth - window.innerWidth,
          cut: h1 ? h1.scrollWidth - h1.clientWidth : 0,
          title: h1?.textContent ?? '',
          // Inputs side by side (expiry and CVC) stay level and the same height whatever their labels do.
          misaligned: [...document.querySelectorAll('.field-row')].filter((row) => {
            const boxes = [...row.querySelectorAll('input')].map((i) => i.getBoundingClientRect());
            return boxes.some(
              (b) => Math.abs(b.top - boxes[0]!.top) > 0.5 || Math.abs(b.height - boxes[0]!.height) > 0.5,
            );
          }).length,
        };
      });
    const m = await measure();
    if (m.overflow > 0) problems.push(`${lang} ${here}: ${m.overflow} px horizontal overflow`);
    if (m.cut > 1) problems.push(`${lang} ${here}: title "${m.title}" cut`);
    if (m.misaligned) problems.push(`${lang} ${here}: fields side by side not level`);
    await p.evaluate(() => (document.documentElement.style.fontSize = '200%'));
    const big = await measure();
    if (big.cut > 1) problems.push(`${lang} ${here} at 200 %: title "${big.title}" cut`);
    if (big.misaligned) problems.push(`${lang} ${here} at 200 %: fields side by side not level`);
    await p.evaluate(() => (document.documentElement.style.fontSize = ''));
    if (lang === 'en-US') for (const v of await axeViolations(p)) problems.push(`axe ${here}: ${v}`);
  }
  await p.context().close();
}

describe('layout in every language at 320 px', () => {
  it(
    'no horizontal overflow and no cut title on any screen, nor at 200 % text; axe finds nothing',
    { timeout: 600_000 },
    async () => {
      const token = await touristToken(env.product.app);
      const problems: string[] = [];
      // The languages side by side, each in its own context: most of a screen's time is waiting for the network
      // to fall quiet, which five pages can do at once.
      await Promise.all(LOCALES.map((lang) => checkLanguage(token, lang, problems)));
      expect(problems).toEqual([]);
    },
  );
});
