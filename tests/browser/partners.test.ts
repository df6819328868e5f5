// The partner portal in Chromium against the real server: a venue partner of one of an agent's two venues signs in
// to the same console and sees its own venue's earnings and statements, never the other venue's; at 768 px, with
// no axe violation.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { axeViolations } from './axe.ts';
import { launchChromium } from './chromium.ts';
import { startProduct, type RunningProduct } from './product.ts';
import { signedIn } from '../../server/test/partners/fixtures.ts';

let product: RunningProduct;
let browser: Browser;
let page: Page;

const venue = (id: string) => ({
  id, name: id, city: 'Vilnius', address: 'Gedimino pr. 1', lat: 54.68, lng: 25.28, currency: 'EUR', state: 'live', agentId: 'agt-portal',
  openingHours: { weekly: Object.fromEntries(['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'].map((d) => [d, [{ open: '09:00', close: '21:00' }]])), exceptions: [] },
});

beforeAll(async () => {
  product = await startProduct({ simulator: false });
  const { fleet, partners } = product.app.powerly;
  await fleet.agents.create({ id: 'agt-portal', name: 'Portal Agent', country: 'LT', currencies: ['EUR'], origins: [] });
  for (const [id, fee] of [['V-OWN', 2000], ['V-OTHER', 7000]] as const) {
    await fleet.venues.create(venue(id));
    await partners.d.repo.insertRule({ partner_type: 'venue', partner_id: id, currency: 'EUR', percent_bps: 1000, monthly_fee: fee, effective_from: new Date('2026-01-01T00:00:00Z'), created_at: product.clock.now() });
  }
  const owner = await signedIn(product, 'owner@portal.example', { agentId: '*', role: 'owner', venueIds: [] });
  for (const id of ['V-OWN', 'V-OTHER']) {
    const r = await owner.call('POST', '/partners/statements', { partnerType: 'venue', partnerId: id, currency: 'EUR', period: '2026-10', reason: 'month end' });
    expect(r.statusCode, r.body).toBe(201);
  }
  const partner = await signedIn(product, 'partner@portal.example', { agentId: 'agt-portal', role: 'venue_partner', venueIds: ['V-OWN'] });
  browser = await launchChromium();
  const context = await browser.newContext({ viewport: { width: 768, height: 1024 }, locale: 'en-US' });
  await context.addCookies([{ name: 'ops_session', value: partner.jar.get('ops_session')!, domain: '127.0.0.1', path: '/', httpOnly: true, sameSite: 'Strict' }]);
  page = await context.newPage();
  page.setDefaultTimeout(15_000);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await product?.close();
});

describe('the partner portal', () => {
  it('a venue partner sees only its own venue\'s earnings and statements', async () => {
    await page.goto(`${product.base}/ops/#/partners`);
    await page.getByRole('heading', { level: 1, name: 'Partners' }).waitFor();
    const nav = page.getByRole('navigation', { name: 'Main' });
    expect(await nav.getByRole('link').allTextContents()).toEqual(['Venues', 'Cabinets', 'Price plans', 'Wi-Fi line', 'Agents and embeds', 'Partners', 'Dashboard', 'My account']);
    const earnings = page.getByRole('table').first();
    await earnings.getByRole('cell', { name: 'Venue V-OWN' }).waitFor();
    expect(await earnings.getByRole('row').count()).toBe(2); // the header and its one venue
    await earnings.getByRole('cell', { name: '€20.00' }).first().waitFor();
    const statements = page.getByRole('table').nth(1);
    await statements.getByRole('link', { name: 'PDF of 2026-10' }).waitFor();
    expect(await statements.getByRole('row').count()).toBe(2);
    expect(await page.getByText('V-OTHER').count()).toBe(0);
    expect(await page.getByText('€70.00').count()).toBe(0);
    expect(await axeViolations(page)).toEqual([]);
  });
});
