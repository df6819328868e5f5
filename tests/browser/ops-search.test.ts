// The support desk's searches and money views in Chromium against the real server (console at 768 px): a platform
// owner finds a rider by phone, their payments by card and their Wi-Fi package by card, opens the package's
// timeline, reads the ledger's balances and zero-sum check and checks the day's reconciliation with the providers; axe finds no violation on any of these screens, and
// none scrolls sideways. The same screens in Lithuanian keep their labels translated.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { sha256 } from '../../server/src/lib/ids.ts';
import { person } from '../../server/test/ops/callers.ts';
import { boughtPackage, settledRental } from '../../server/test/ops/orders.ts';
import { axeViolations } from './axe.ts';
import { launchChromium } from './chromium.ts';
import { startProduct, type RunningProduct } from './product.ts';

let product: RunningProduct;
let browser: Browser;

beforeAll(async () => {
  product = await startProduct();
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await product?.close();
});

async function ownerConsole(): Promise<Page> {
  const staffId = await person(product, 'olga@powerly.local', { agentId: '*', role: 'owner', venueIds: [] });
  const session = `search-browser-session-${staffId}-0123456789abcdef`;
  await product.app.powerly.staff.repo.insertSession({
    tokenHash: sha256(session),
    staffId,
    method: 'passkey',
    ip: '127.0.0.1',
    userAgent: 'chromium',
    at: product.clock.now(),
    expiresAt: new Date(product.clock.now().getTime() + 3_600_000),
  });
  const context = await browser.newContext({ viewport: { width: 768, height: 1024 }, locale: 'en-US' });
  await context.addCookies([{ name: 'ops_session', value: session, url: product.base }]);
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  return page;
}

const noSideways = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth + 1);

async function screen(page: Page, path: string, title: string) {
  await page.goto(`${product.base}/ops/#${path}`);
  await page.getByRole('heading', { level: 1, name: title }).waitFor();
}

describe("the support desk's searches", () => {
  it("finds a rider, their payments and their Wi-Fi package; reads the package's timeline and the money views", async () => {
    const rental = await settledRental(product, 'browser-search-rider-1');
    await product.db.query(`update users set mobile = '+370 612 34567', email = 'rider@example.com' where id = $1`, [
      rental.userId,
    ]);
    const pkg = await boughtPackage(product, 'browser-search-rider-1', '5555 5555 5555 4444');
    const page = await ownerConsole();

    await screen(page, '/riders', 'Riders');
    await page.getByLabel('Rider phone').fill('370 612 34567');
    await page.getByRole('button', { name: 'Find' }).click();
    await page.getByRole('region', { name: `Rider ${rental.userId}` }).waitFor();
    expect(await axeViolations(page)).toEqual([]);
    expect(await noSideways(page)).toBe(true);

    await screen(page, '/payments', 'Payments');
    await page.getByRole('search').getByLabel('Card (last 4)').fill('4444');
    await page.getByRole('search').getByRole('button', { name: 'Search' }).click();
    const rows = page.getByRole('table').getByRole('row');
    await expect.poll(() => rows.count()).toBe(2);
    expect(await rows.nth(1).textContent()).toContain('Wi-Fi package');
    expect(await page.getByRole('link', { name: 'Export CSV' }).getAttribute('href')).toContain('cardLast4=4444');
    expect(await axeViolations(page)).toEqual([]);
    expect(await noSideways(page)).toBe(true);

    // The payment's order opens the Wi-Fi packages searched for that order; the package opens its timeline.
    await rows.nth(1).getByRole('link', { name: pkg.orderId }).click();
    await page.getByRole('heading', { level: 1, name: 'Wi-Fi packages' }).waitFor();
    await page.getByRole('link', { name: pkg.packageId }).click();
    await page.getByRole('heading', { level: 2, name: `Wi-Fi package ${pkg.packageId}` }).waitFor();
    const timeline = page.getByRole('region', { name: 'Timeline' });
    await expect.poll(async () => (await timeline.textContent()) ?? '').toContain('package.paid');
    expect(await axeViolations(page)).toEqual([]);
    expect(await noSideways(page)).toBe(true);

    await screen(page, '/money', 'Money');
    await page.getByRole('status').filter({ hasText: 'Every ledger invariant holds' }).waitFor();
    await page.getByRole('list', { name: 'Sum per currency' }).getByText('EUR: sums to zero').waitFor();
    // The day's reconciliation with each provider, checked again now with a reason.
    const recon = page.getByRole('region', { name: 'Daily reconciliation with the payment providers' });
    await recon.getByLabel('Day (UTC)').fill(product.clock.now().toISOString().slice(0, 10));
    await recon.getByLabel('Reason').fill('end of day');
    await recon.getByRole('button', { name: 'Check this day again' }).click();
    await recon.getByRole('heading', { level: 3, name: /^sandbox: / }).waitFor();
    expect(await axeViolations(page)).toEqual([]);
    expect(await noSideways(page)).toBe(true);

    // In Lithuanian: the same screens speak it.
    await page.getByRole('combobox', { name: 'Language' }).selectOption('lt-LT');
    await page.getByRole('heading', { level: 1, name: 'Pinigai' }).waitFor();
    await page.getByRole('navigation').getByRole('link', { name: 'Mokėjimai', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Mokėjimai' }).waitFor();
    expect(await axeViolations(page)).toEqual([]);
  });
});
