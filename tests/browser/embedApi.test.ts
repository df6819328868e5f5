// The embed's public API in Chromium across real origins (docs/embed.md): the size follows the content both
// ways without shifting the host page (CLS from the host's own PerformanceObserver through a whole rental),
// a host reload goes back to the open rental while a second host site sees nothing, the appearance API
// (attributes, init, live setTheme, refused values), every event in a real rental and every method.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Frame, Page } from 'playwright-core';
import lt from '../../locales/lt-LT.json';
import { launchChromium } from './chromium.ts';
import type { RunningProduct } from './product.ts';
import {
  embedContext,
  frameOf,
  log,
  payInFrame,
  powerbankOut,
  returnTo,
  startHosts,
  type Hosts,
} from './embedHosts.ts';
import { CLS_OBSERVER, cls, frameCls, heights, touchHost } from './embedLayout.ts';

let hosts: Hosts;
let product: RunningProduct;
let browser: Browser;
let partnerOrigin: string;

beforeAll(async () => {
  hosts = await startHosts({ otherSite: true });
  ({ product, partnerOrigin } = hosts);
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await hosts?.close();
});

const newContext = (): Promise<BrowserContext> => embedContext(browser);

async function pageIn(context: BrowserContext): Promise<Page> {
  const page = await context.newPage();
  page.setDefaultTimeout(20_000);
  await page.addInitScript(CLS_OBSERVER);
  return page;
}

const partnerUrl = (origin: string) => `${origin}/demo/partner/`;

/** The widget's event log on the host page, one line per event. */
const logLines = (page: Page) => log(page).locator('li').allTextContents();

describe('size follows content; the host page does not shift', () => {
  it('partner page: grows and shrinks with the screens through a whole rental, host CLS < 0.01', async () => {
    const context = await newContext();
    const page = await pageIn(context);
    await page.goto(partnerUrl(partnerOrigin));
    const box = '#rent .pw-box';
    // The box has its reserved height from the first frame, before the widget has said anything.
    expect(await page.locator(box).evaluate((el) => el.getBoundingClientRect().height)).toBeGreaterThanOrEqual(600);
    const frame = await frameOf(page, '#rent iframe');
    await expect.poll(() => frame.getByText('Time Out Market Lisboa').count()).toBeGreaterThan(0);
    const seen: number[] = [];
    const settle = async () => {
      await expect
        .poll(async () => {
          await touchHost(page);
          const h = await heights(page, box, frame);
          return Math.abs(h.outer - Math.max(200, h.inner)) <= 2 ? 'same' : JSON.stringify(h);
        })
        .toBe('same');
      seen.push((await heights(page, box, frame)).outer);
    };
    await settle();
    await payInFrame(frame);
    const id = await powerbankOut(frame);
    await settle();
    await expect.poll(() => log(page).textContent()).toMatch(/powerly:eject\.confirmed/);
    // The host calls open/close from its own buttons (a person's click on the host page).
    await page.evaluate(() => {
      const P = (window as unknown as { Powerly: (...a: unknown[]) => void }).Powerly;
      for (const [label, run] of [
        ['Help', () => P('open', '#rent', '/help')],
        ['Close', () => P('close', '#rent')],
      ] as const) {
        const b = document.createElement('button');
        b.textContent = label;
        b.onclick = run;
        // Fixed in a corner: adding it shifts nothing, and the widget's box resizing under it cannot move it between
        // Playwright's check of the click target and the click (a moved button let the click land in the frame).
        b.style.cssText = `position: fixed; top: 0; left: ${label === 'Help' ? 0 : 120}px; z-index: 10`;
        document.body.append(b);
      }
    });
    await page.getByRole('button', { name: 'Help', exact: true }).click();
    await expect.poll(() => frame.evaluate(() => location.hash)).toMatch(/^#\/help/);
    await settle();
    await page.getByRole('button', { name: 'Close', exact: true }).click();
    await expect.poll(() => frame.evaluate(() => location.hash)).not.toMatch(/^#\/help/);
    await settle();
    await returnTo(product.base, 'PWL-VNO-001', id);
    await expect.poll(() => log(page).textContent(), { timeout: 20_000 }).toMatch(/powerly:rental\.returned/);
    // Both ways: some screen made it taller, some shorter, and it always matched the content.
    const steps = seen.slice(1).map((h, i) => h - seen[i]!);
    expect(
      steps.some((d) => d > 0),
      `heights ${seen.join(' → ')}`,
    ).toBe(true);
    expect(
      steps.some((d) => d < 0),
      `heights ${seen.join(' → ')}`,
    ).toBe(true);
    const shift = await cls(page);
    console.info(
      `[embed] partner page: heights ${seen.join(' → ')} px, host CLS ${shift.toFixed(4)}`,
      await page.evaluate(() => JSON.stringify((window as unknown as { __where?: string[] }).__where)),
    );
    expect(shift).toBeLessThan(0.01);
    expect(await frameCls(frame)).toBeLessThan(0.01);
    await context.close();
  });

  it('venue page: two widgets through a rental in one, host CLS < 0.01; the untouched one does not grow', async () => {
    const context = await newContext();
    const page = await pageIn(context);
    await page.goto(`${product.base}/demo/venue.html`);
    await expect.poll(async () => (await log(page).textContent())!.includes('rent-lisbon ready')).toBe(true);
    const lisbon = await frameOf(page, '#rent-lisbon iframe');
    // It did not take the focus from the host page (its landing on the prices is no navigation of the person's).
    expect(await page.evaluate(() => [document.activeElement?.tagName, window.scrollY])).toEqual(['BODY', 0]);
    // The second one is below the fold: it boots when the person scrolls to it (embed/mount.ts).
    await page.locator('#rent-vilnius').scrollIntoViewIfNeeded();
    await expect.poll(async () => (await log(page).textContent())!.includes('rent-vilnius ready')).toBe(true);
    const vilnius = await frameOf(page, '#rent-vilnius iframe');
    await expect.poll(() => vilnius.getByText('GO9 Gedimino 9').count()).toBeGreaterThan(0);
    const untouched = (await heights(page, '#rent-vilnius >> .pw-box', vilnius)).outer;
    expect(await page.evaluate(() => document.activeElement?.tagName)).toBe('BODY');
    await payInFrame(lisbon);
    const id = await powerbankOut(lisbon);
    await returnTo(product.base, 'PWL-LIS-001', id);
    await expect.poll(() => log(page).textContent(), { timeout: 20_000 }).toMatch(/rent-lisbon rental\.returned/);
    expect((await heights(page, '#rent-vilnius >> .pw-box', vilnius)).outer).toBe(untouched);
    const shift = await cls(page);
    console.info(
      `[embed] venue page: host CLS ${shift.toFixed(4)}`,
      await page.evaluate(() => JSON.stringify((window as unknown as { __where?: string[] }).__where)),
    );
    expect(shift).toBeLessThan(0.01);
    expect(await frameCls(lisbon)).toBeLessThan(0.01);
    await context.close();
  });
});

describe('session across a host reload', () => {
  // Its own product: the rentals of the other tests in this file leave its cabinets' stock untouched.
  let own: Hosts;
  beforeAll(async () => {
    own = await startHosts({ otherSite: true });
  });
  afterAll(async () => {
    await own?.close();
  });

  it('a reload goes back to the open rental; another host site sees no session', async () => {
    const context = await newContext();
    const page = await pageIn(context);
    await page.goto(partnerUrl(own.partnerOrigin));
    let frame = await frameOf(page, '#rent iframe');
    await payInFrame(frame);
    const id = await powerbankOut(frame);
    const confirmed = async () =>
      (await logLines(page))
        .map((l) => /^rent powerly:eject\.confirmed orderId=([A-Za-z0-9_-]+)$/.exec(l)?.[1])
        .find(Boolean);
    await expect.poll(confirmed).toBeTruthy();
    const orderId = (await confirmed())!;

    await page.reload();
    frame = await frameOf(page, '#rent iframe');
    await expect.poll(() => frame.evaluate(() => location.hash)).toBe(`#/orderDetail?orderId=${orderId}`);
    await expect.poll(() => frame.getByRole('heading', { level: 1 }).first().textContent()).toBeTruthy();

    // The same person's browser, another site embedding the same agent: a fresh widget, no session.
    const other = await pageIn(context);
    await other.goto(partnerUrl(own.otherSiteOrigin));
    const otherFrame = await frameOf(other, '#rent iframe');
    await expect.poll(() => otherFrame.getByText('Time Out Market Lisboa').count()).toBeGreaterThan(0);
    expect(await otherFrame.evaluate(() => location.hash)).toMatch(/^#\/selectPakage/);
    // Its storage partition is another one (or third-party storage is refused there altogether).
    expect(
      await otherFrame.evaluate(() => {
        try {
          return Object.keys(localStorage);
        } catch {
          return [];
        }
      }),
    ).toEqual([]);

    // The rental still ends where it started: the reloaded widget reports the return.
    await returnTo(own.product.base, 'PWL-VNO-001', id);
    await expect
      .poll(() => logLines(page), { timeout: 20_000 })
      .toContain(`rent powerly:rental.returned orderId=${orderId}`);
    await context.close();
  });
});

describe('appearance', () => {
  it('attributes theme each widget, paint the skeleton first, setTheme changes it live, bad values are refused', async () => {
    const context = await newContext();
    const page = await pageIn(context);
    await page.goto(`${product.base}/demo/venue.html`);
    // The skeleton is in the host's appearance before the widget answers.
    const skeleton = await page.locator('#rent-lisbon >> .pw-box').evaluate((el) => ({
      bg: getComputedStyle(el).backgroundColor,
      radius: getComputedStyle(el).borderTopLeftRadius,
    }));
    expect(skeleton).toEqual({ bg: 'rgb(250, 247, 255)', radius: '20px' });
    await page.locator('#rent-vilnius').scrollIntoViewIfNeeded(); // below the fold: it boots near the viewport
    await expect.poll(async () => (await log(page).textContent())!.includes('rent-vilnius ready')).toBe(true);
    const lisbon = await frameOf(page, '#rent-lisbon iframe');
    const vilnius = await frameOf(page, '#rent-vilnius iframe');
    const look = (f: Frame) =>
      f.evaluate(() => {
        const button = document.querySelector('.button.primary');
        return {
          theme: document.documentElement.dataset.theme,
          brand: getComputedStyle(document.documentElement).getPropertyValue('--brand').trim(),
          bg: getComputedStyle(document.body).backgroundColor,
          button: button ? getComputedStyle(button).backgroundColor : null,
          buttonText: button ? getComputedStyle(button).color : null,
          font: getComputedStyle(document.getElementById('root')!).fontFamily,
        };
      });
    await expect.poll(() => look(lisbon).then((l) => l.button)).toBe('rgb(91, 60, 196)');
    expect(await look(lisbon)).toMatchObject({
      theme: 'light',
      brand: '#5b3cc4',
      bg: 'rgb(250, 247, 255)',
      font: 'Georgia, serif',
    });
    expect(await look(vilnius)).toMatchObject({ theme: 'dark', brand: '#f2a93b', bg: 'rgb(21, 25, 29)' });
    // Button text keeps its contrast on the host's primary: white on purple, black on amber.
    expect((await look(lisbon)).buttonText).toBe('rgb(255, 255, 255)');
    await expect.poll(() => look(vilnius).then((l) => l.buttonText)).toBe('rgb(0, 0, 0)');

    // Live: the method, then an attribute.
    await page.locator('#rent-lisbon').evaluate((el) =>
      (el as HTMLElement & { setTheme(a: unknown): void }).setTheme({
        theme: 'dark',
        variables: { colorPrimary: '#00897b' },
      }),
    );
    await expect.poll(() => look(lisbon)).toMatchObject({ theme: 'dark', brand: '#00897b', bg: 'rgb(21, 25, 29)' });
    await page.locator('#rent-lisbon').evaluate((el) => el.setAttribute('color-primary', '#c2185b'));
    await expect.poll(() => look(lisbon).then((l) => l.brand)).toBe('#c2185b');

    // Injection attempts: refused with an error event, nothing applied.
    await page.locator('#rent-lisbon').evaluate((el) =>
      (el as HTMLElement & { setTheme(a: unknown): void }).setTheme({
        variables: { colorPrimary: 'red;background:url(https://evil.example/x)' },
      }),
    );
    await page.locator('#rent-lisbon').evaluate((el) => el.setAttribute('font-family', 'x} body{display:none'));
    await expect
      .poll(() => log(page).textContent())
      .toMatch(/rent-lisbon error code=badAppearance[\s\S]*rent-lisbon error code=badAppearance/);
    expect((await look(lisbon)).brand).toBe('#c2185b');
    await context.close();
  });
});

describe('every event in real rentals, every method', () => {
  it('payment.failed, eject.failed, error, then a rental: ready … rental.returned; open, close, setLocale, setTheme, logout', async () => {
    const context = await newContext();
    const page = await pageIn(context);
    await page.goto(partnerUrl(partnerOrigin));
    const frame = await frameOf(page, '#rent iframe');
    const P = (...a: unknown[]) =>
      page.evaluate((args) => (window as unknown as { Powerly: (...a: unknown[]) => void }).Powerly(...args), a);
    await expect.poll(() => log(page).textContent()).toContain('rent powerly:ready');

    // A declined card: payment.failed with a stable code.
    await payInFrame(frame, '4000 0000 0000 0002');
    await expect.poll(() => log(page).textContent()).toMatch(/powerly:payment\.failed code=[a-zA-Z]+/);
    await frame
      .getByRole('button', { name: 'Cancel' })
      .click()
      .catch(() => undefined);

    // The cabinet jams: eject.failed.
    await fetch(`${product.base}/demo-api/cabinets/PWL-VNO-001/fail-next-eject`, { method: 'POST' });
    await P('open', '#rent', 'PWL-VNO-001');
    await payInFrame(frame);
    await expect
      .poll(() => log(page).textContent(), { timeout: 30_000 })
      .toMatch(/powerly:rental\.started tradeNo=\S+[\s\S]*powerly:eject\.failed tradeNo=\S+ code=\w+/);

    // A bad code from the host: error with its code.
    await P('open', '#rent', 'https://evil.example/?qrcode=%3Cscript%3E');
    await expect.poll(() => log(page).textContent()).toMatch(/powerly:error code=badQrcode/);

    // A real rental end to end.
    await P('open', '#rent', 'PWL-LIS-001');
    await payInFrame(frame);
    const id = await powerbankOut(frame);
    await returnTo(product.base, 'PWL-LIS-001', id);
    await expect
      .poll(() => log(page).textContent(), { timeout: 20_000 })
      .toMatch(/powerly:rental\.returned orderId=\S+/);
    const text = (await log(page).textContent())!;
    for (const type of [
      'ready',
      'resize',
      'rental.started',
      'eject.confirmed',
      'eject.failed',
      'rental.returned',
      'payment.failed',
      'error',
    ]) {
      expect(text, type).toContain(`powerly:${type}`);
    }

    // Methods: open a route, close, setLocale, setTheme, logout — and Powerly('on') gets the same events.
    await page.evaluate(() => {
      const w = window as unknown as { Powerly: (...a: unknown[]) => void; __nav: string[] };
      w.__nav = [];
      w.Powerly('on', 'navigate', (e: { path: string }) => w.__nav.push(e.path));
    });
    await P('open', '#rent', '/order');
    await expect.poll(() => frame.evaluate(() => location.hash)).toMatch(/^#\/order/);
    await P('close', '#rent');
    await expect.poll(() => frame.evaluate(() => location.hash)).not.toMatch(/^#\/order/);
    expect(await page.evaluate(() => (window as unknown as { __nav: string[] }).__nav)).toContain('/order');
    await P('setLocale', '#rent', 'lt-LT');
    await expect.poll(() => frame.evaluate(() => document.documentElement.lang)).toBe('lt-LT');
    await P('setTheme', '#rent', { theme: 'dark' });
    await expect.poll(() => frame.evaluate(() => document.documentElement.dataset.theme)).toBe('dark');
    expect(await frame.evaluate(() => localStorage.getItem('powerly:demo-partner:rent:token'))).toBeTruthy();
    await P('logout', '#rent');
    await expect.poll(() => frame.evaluate(() => localStorage.getItem('powerly:demo-partner:rent:token'))).toBeNull();
    await P('open', '#rent', 'PWL-LIS-001');
    await expect.poll(() => frame.getByRole('button', { name: lt.rentPricing.next, exact: true }).count()).toBe(1);
    await P('open', '#rent', '/nope?token=x');
    await expect.poll(() => log(page).textContent()).toMatch(/powerly:error code=badRoute/);
    await context.close();
  });

  it('the element has the same methods and DOM events', async () => {
    const context = await newContext();
    const page = await pageIn(context);
    await page.goto(`${product.base}/demo/venue.html`);
    await expect.poll(async () => (await log(page).textContent())!.includes('rent-lisbon ready')).toBe(true);
    const call = (method: string, arg?: unknown) =>
      page
        .locator('#rent-vilnius')
        .evaluate((el, [m, a]) => (el as unknown as Record<string, (x: unknown) => void>)[m as string]!(a), [
          method,
          arg,
        ] as const);
    await page.locator('#rent-vilnius').evaluate((el) => {
      const w = window as unknown as { __paths: string[] };
      w.__paths = [];
      el.addEventListener('navigate', (e) => w.__paths.push((e as CustomEvent<{ path: string }>).detail.path));
    });
    // Below the fold, not booted (embed/mount.ts): a setting waits in its init; a method that acts boots it at once.
    await call('setLocale', 'lt-LT');
    expect(await page.locator('#rent-vilnius iframe').count()).toBe(0);
    await call('open', 'PWL-LIS-001');
    const frame = await frameOf(page, '#rent-vilnius iframe');
    await expect.poll(() => frame.getByText('Time Out Market Lisboa').count()).toBeGreaterThan(0);
    await expect.poll(() => frame.evaluate(() => document.documentElement.lang)).toBe('lt-LT');
    await expect.poll(async () => (await log(page).textContent())!.includes('rent-vilnius ready')).toBe(true);
    await call('open', '/help');
    await expect.poll(() => frame.evaluate(() => location.hash)).toMatch(/^#\/help/);
    await call('close');
    await expect.poll(() => frame.evaluate(() => location.hash)).not.toMatch(/^#\/help/);
    expect(await page.evaluate(() => (window as unknown as { __paths: string[] }).__paths)).toContain('/help');
    await call('setTheme', { theme: 'light', variables: { colorPrimary: '#123456' } });
    await expect
      .poll(() => frame.evaluate(() => getComputedStyle(document.documentElement).getPropertyValue('--brand').trim()))
      .toBe('#123456');
    await call('open', 'PWL-VNO-001');
    await expect.poll(() => frame.getByText('GO9 Gedimino 9').count()).toBeGreaterThan(0);
    await page
      .locator('#rent-vilnius')
      .evaluate((el) => ((el as unknown as { token: string }).token = 'tok_handed_by_host_1234'));
    await expect
      .poll(() => frame.evaluate(() => localStorage.getItem('powerly:demo-venue:rent-vilnius:token')))
      .toBe('tok_handed_by_host_1234');
    await call('logout');
    await expect
      .poll(() => frame.evaluate(() => localStorage.getItem('powerly:demo-venue:rent-vilnius:token')))
      .toBeNull();
    await call('open', 'javascript:alert(1)');
    await expect.poll(() => log(page).textContent()).toMatch(/rent-vilnius error code=badRoute/);
    await context.close();
  });
});
