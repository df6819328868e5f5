// The map in Chromium against the real server, database and cabinet simulator (offline: no tile server; the map
// shows the venues as markers on a plain background, whichever renderer the browser supports, plus a list).
// Open the map, see the seeded venues, open one, follow its scan path: a visitor goes to login; a signed-in user
// gets the scanner and lands on the cabinet's home; entry keys scan at once; the venue's detail page.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContextOptions, Page } from 'playwright-core';
import { axeViolations } from './axe.ts';
import { launchChromium } from './chromium.ts';
import { continueToCabinetHome, startProduct, type RunningProduct } from './product.ts';
import { touristToken, cabinetsOnline } from '../../server/test/helper.ts';

let product: RunningProduct;
let browser: Browser;

beforeAll(async () => {
  product = await startProduct();
  browser = await launchChromium();
  await cabinetsOnline(product, ['PWL-VNO-001', 'PWL-LIS-001']);
});

afterAll(async () => {
  await browser?.close();
  await product?.close();
});

async function newPage(o: BrowserContextOptions & { token?: string } = {}): Promise<Page> {
  const { token, ...options } = o;
  const context = await browser.newContext({ viewport: { width: 390, height: 844 }, locale: 'en-US', ...options });
  if (token) await context.addInitScript((t) => localStorage.setItem('token', t), token);
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  return page;
}

const VILNIUS = 'lat=54.6871&lng=25.2801';
const hash = (page: Page) => new URL(page.url()).hash;

describe('the map', () => {
  it('shows the venues of the view, opens one, and sends a visitor who scans to login', async () => {
    const page = await newPage();
    const calls: string[] = [];
    page.on('request', (r) => {
      if (r.url().includes('/cdb/shop/listnear')) calls.push(r.postData() ?? '');
    });
    await page.goto(`${product.base}/#/homeMap?${VILNIUS}`);

    // The venue is listed and drawn as a 50×56 marker; coordinates from the query open its card.
    const row = page.getByRole('button', { name: /GO9 Gedimino 9/ }).first();
    await expect.poll(() => row.count()).toBeGreaterThan(0);
    await expect.poll(() => page.getByRole('status').filter({ hasText: 'Venues on the map: 1' }).count()).toBe(1);
    const marker = page.locator('.map-marker').first();
    await expect.poll(() => marker.count()).toBe(1);
    const box = await marker.boundingBox();
    expect([Math.round(box!.width), Math.round(box!.height)]).toEqual([50, 56]);
    expect(await marker.getAttribute('aria-label')).toBe('GO9 Gedimino 9: 4 power banks available');
    // Focus zoom 16 → zoomLevel round(16/2 − 2) = 6; the home variant sends mapType; one call after the debounce.
    expect(calls.at(-1)).toMatch(/lat=54\.6871.*lng=25\.2801.*zoomLevel=6.*mapType=/);

    const card = page.getByRole('region', { name: 'GO9 Gedimino 9' });
    await expect.poll(() => card.count()).toBe(1);
    await expect.poll(() => card.getByRole('definition').allTextContents()).toEqual(['4', '2']); // to rent, to return
    const goHere = await card.getByRole('link', { name: 'Go here' }).getAttribute('href');
    expect(goHere).toBe('https://www.google.com/maps/dir/?api=1&destination=54.6871,25.2801&travelmode=bicycling');

    // Close it, open it again from its marker.
    await card.getByRole('button', { name: 'Close' }).click();
    await expect.poll(() => card.count()).toBe(0);
    await marker.click();
    await expect.poll(() => card.count()).toBe(1);

    // Search popup.
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByLabel('Venue name or address').fill('gedimino');
    await expect.poll(() => page.getByRole('dialog').getByRole('button', { name: 'GO9 Gedimino 9' }).count()).toBe(1);
    await page.getByLabel('Venue name or address').fill('nowhere');
    await expect.poll(() => page.getByRole('dialog').getByText('No data').count()).toBe(1);
    await page.getByRole('dialog').getByRole('button', { name: 'Close' }).click();

    // Scanning needs a signed-in user.
    await card.getByRole('button', { name: 'Scan to rent' }).click();
    await expect.poll(() => hash(page)).toBe('#/login');
  });

  it('without WebGL draws the venues on a plain projected plane, still clickable, plus the list', async () => {
    const page = await newPage();
    await page.context().addInitScript(() => {
      const get = HTMLCanvasElement.prototype.getContext;
      HTMLCanvasElement.prototype.getContext = function (this: HTMLCanvasElement, type: string, ...rest: unknown[]) {
        return /webgl/.test(type) ? null : (get as (...a: unknown[]) => unknown).call(this, type, ...rest);
      } as typeof get;
    });
    await page.goto(`${product.base}/#/homeMap?lat=54.688&lng=25.2801`);
    await expect.poll(() => page.locator('.map-surface').getAttribute('data-renderer')).toBe('plain');
    const marker = page.getByRole('button', { name: 'GO9 Gedimino 9: 4 power banks available' });
    await expect.poll(() => marker.count()).toBe(1);
    const stage = (await page.locator('.map-stage').boundingBox())!;
    const m = (await marker.boundingBox())!;
    // The venue is 100 m south of the centre: at zoom 16 (1.38 m/px at 54.7°N) its tip sits ≈ 72 px below the middle.
    expect(m.x + m.width / 2 - (stage.x + stage.width / 2)).toBeLessThan(5);
    expect(Math.abs(m.y + m.height - (stage.y + stage.height / 2) - 72)).toBeLessThan(4);
    await marker.click();
    await expect.poll(() => page.getByRole('region', { name: 'GO9 Gedimino 9' }).count()).toBe(1);
    await page.getByRole('button', { name: 'Zoom out' }).click();
    await expect.poll(() => page.getByRole('status').filter({ hasText: 'Venues on the map: 1' }).count()).toBe(1);
  });

  it('starts at the default centre (nothing there) and follows geolocation', async () => {
    const denied = await newPage();
    await denied.goto(`${product.base}/#/homeMap`);
    // Watched at once: the failure is a toast (gone after a few seconds), and under load the venues' answer that
    // says "nothing nearby" can come after it has gone.
    await Promise.all([
      expect
        .poll(() =>
          denied
            .getByRole('status')
            .filter({ hasText: /No equipment (nearby|in this part of the map)/ })
            .count(),
        )
        .toBe(1),
      expect.poll(() => denied.getByRole('status').filter({ hasText: 'Geolocation service failed' }).count()).toBe(1),
    ]);

    const located = await newPage({
      geolocation: { latitude: 38.7069, longitude: -9.1459 },
      permissions: ['geolocation'],
    });
    await located.goto(`${product.base}/#/homeMap`);
    await expect.poll(() => located.getByRole('button', { name: /Time Out Market Lisboa/ }).count()).toBeGreaterThan(0);
  });

  it('a signed-in user scans from the venue, through package selection, into the cabinet home; entry keys scan at once', async () => {
    const token = await touristToken(product.app);
    const page = await newPage({ token });
    await page.goto(`${product.base}/#/homeMap?${VILNIUS}`);
    const card = page.getByRole('region', { name: 'GO9 Gedimino 9' });
    await expect.poll(() => card.count()).toBe(1);
    await card.getByRole('button', { name: 'Scan to rent' }).click();
    const dialog = page.getByRole('dialog', { name: "Scan the cabinet's QR code" });
    await expect.poll(() => dialog.count()).toBe(1);
    // Headless Chromium has no camera: the dialog says why and keeps the typed-code entry.
    await expect.poll(() => dialog.getByRole('alert').count()).toBe(1);
    await dialog.getByLabel('Or type the code printed on the cabinet').fill('PWL-VNO-001');
    await dialog.getByRole('button', { name: 'Continue' }).click();
    await continueToCabinetHome(page, 'GO9 Gedimino 9');
    await expect.poll(() => page.getByText('GO9 Gedimino 9').count()).toBeGreaterThan(0);

    for (const entry of ['qr=PWL-LIS-001', 'zhcode=PWL-LIS-001']) {
      const p = await newPage({ token });
      await p.goto(`${product.base}/#/homeMap?${entry}`);
      await continueToCabinetHome(p, 'Time Out Market Lisboa');
      await expect.poll(() => p.getByText('Time Out Market Lisboa').count()).toBeGreaterThan(0);
    }
  });

  it('shows a venue in detail, and the nearby map with its not-open services', async () => {
    const token = await touristToken(product.app);
    const page = await newPage({ token });
    await page.goto(`${product.base}/#/nearby_shop?shopId=v-vno-gedimino&${VILNIUS}`);
    await expect.poll(() => page.getByRole('heading', { name: 'GO9 Gedimino 9', level: 1 }).count()).toBe(1);
    await expect.poll(() => page.locator('.shop-stock dd').allTextContents()).toEqual(['4', '2']);
    expect(await page.getByText('Gedimino pr. 9, 01103 Vilnius, Lithuania').count()).toBe(1);
    // Each cabinet with its own free slots and power banks (kept live), then its state.
    await expect
      .poll(() => page.locator('.shop-cabinets li').first().textContent())
      .toBe('PWL-VNO-0012 free slots4 power banksOnline');
    expect(await page.getByRole('link', { name: 'Go here' }).getAttribute('href')).toContain('travelmode=bicycling');
    await page.getByRole('button', { name: 'Hotels' }).click();
    await expect
      .poll(() => page.getByRole('status').filter({ hasText: 'This service is not open yet' }).count())
      .toBe(1);

    await page.goto(`${product.base}/#/map?lat=38.7069&lng=-9.1459`);
    await expect.poll(() => page.getByRole('heading', { name: 'Nearby venues' }).count()).toBe(1);
    await expect.poll(() => page.getByRole('button', { name: /Time Out Market Lisboa/ }).count()).toBeGreaterThan(0);
  });

  it('the landing without a scan offers the store of the device system and Next to the map', async () => {
    for (const [ua, store] of [
      ['Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 Mobile/15E148', 'App Store'],
      ['Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 Chrome/126.0 Mobile Safari/537.36', 'Google Play'],
    ] as const) {
      const page = await newPage({ userAgent: ua });
      await page.goto(`${product.base}/#/`);
      await expect.poll(() => page.getByRole('link', { name: new RegExp(store) }).count()).toBe(1);
      await page.getByRole('link', { name: 'Next' }).click();
      await expect.poll(() => hash(page)).toBe('#/homeMap');
    }
  });

  it('shows an offline cabinet as offline; its scan says so with the nearest cabinets with stock, and starts no payment', async () => {
    // New York's simulated cabinet loses power: the broker publishes its last will (offline).
    await product.fleet!.get('PWL-NYC-001')!.stop({ crash: true });
    await expect
      .poll(
        async () =>
          (await product.db.query<{ online: boolean }>(`select online from cabinets where id = 'PWL-NYC-001'`)).rows[0]
            ?.online,
      )
      .toBe(false);
    const token = await touristToken(product.app);
    const page = await newPage({ token });
    await page.goto(`${product.base}/#/homeMap?lat=40.7527&lng=-73.9772`);
    await expect.poll(() => page.getByRole('button', { name: 'Grand Central Terminal: offline' }).count()).toBe(1);
    const card = page.getByRole('region', { name: 'Grand Central Terminal' });
    await expect.poll(() => card.getByText('Offline').count()).toBe(1);
    expect(await card.getByRole('definition').count()).toBe(0); // no stock shown for an offline venue
    await card.getByRole('button', { name: 'Scan to rent' }).click();
    const dialog = page.getByRole('dialog', { name: "Scan the cabinet's QR code" });
    await dialog.getByLabel('Or type the code printed on the cabinet').fill('PWL-NYC-001');
    await dialog.getByRole('button', { name: 'Continue' }).click();
    // The first screen after the scan says so, and where to go instead: the nearest cabinets with stock.
    await expect
      .poll(() => page.getByTestId('stock').textContent())
      .toBe('This cabinet is offline right now: it can neither lend nor take back a power bank.');
    const nearest = page.getByRole('region', { name: 'Nearest cabinets with power banks' });
    await expect.poll(() => nearest.getByRole('listitem').count()).toBeGreaterThan(0);
    expect(await nearest.getByText('Grand Central Terminal').count()).toBe(0);
    expect(await axeViolations(page)).toEqual([]);
    // No rental and no payment was started for the offline cabinet (there is no Pay button).
    const orders = await product.db.query<{ n: number }>(
      `select count(*)::int as n from orders where cabinet_id = 'PWL-NYC-001'`,
    );
    expect(orders.rows[0]!.n).toBe(0);
    expect(await page.getByRole('button', { name: /Pay .* deposit|^Hold |Borrow/ }).count()).toBe(0);
  });
});
