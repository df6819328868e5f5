// The partner portal in Chromium against the real server: a venue partner of one of an agent's two venues signs in
// to the same console and sees its own venue's earnings and statements, its venue, its cabinet's state, the map and
// the embed setup (origins, theme, snippet), never the other venue's; at 768 px, with no axe violation.
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
  id,
  name: id,
  city: 'Vilnius',
  address: 'Gedimino pr. 1',
  lat: 54.68,
  lng: 25.28,
  currency: 'EUR',
  state: 'live',
  agentId: 'agt-portal',
  openingHours: {
    weekly: Object.fromEntries(
      ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'].map((d) => [d, [{ open: '09:00', close: '21:00' }]]),
    ),
    exceptions: [],
  },
});

beforeAll(async () => {
  product = await startProduct({ simulator: false });
  const { fleet, partners } = product.app.powerly;
  await fleet.agents.create({
    id: 'agt-portal',
    name: 'Portal Agent',
    country: 'LT',
    currencies: ['EUR'],
    origins: ['https://shop.example.com'],
  });
  for (const [id, fee] of [
    ['V-OWN', 2000],
    ['V-OTHER', 7000],
  ] as const) {
    await fleet.venues.create(venue(id));
    await partners.d.repo.insertRule({
      partner_type: 'venue',
      partner_id: id,
      currency: 'EUR',
      percent_bps: 1000,
      monthly_fee: fee,
      effective_from: new Date('2026-01-01T00:00:00Z'),
      created_at: product.clock.now(),
    });
  }
  // A cabinet at each venue, online, with two power banks.
  for (const [id, venueId] of [
    ['PC-OWN', 'V-OWN'],
    ['PC-OTHER', 'V-OTHER'],
  ] as const) {
    await product.db.query(
      `insert into cabinets select (jsonb_populate_record(null::cabinets, to_jsonb(c) || jsonb_build_object('id', $1::text, 'venue_id', $2::text, 'agent_id', 'agt-portal',
         'online', true, 'last_seen_at', $3::timestamptz))).* from cabinets c where c.id = 'PWL-VNO-001'`,
      [id, venueId, product.clock.now()],
    );
    for (const s of [1, 2])
      await product.db.query(`insert into powerbanks (id, state, cabinet_id, slot) values ($1, 'in_cabinet', $2, $3)`, [
        `${id}-${s}`,
        id,
        s,
      ]);
  }
  const owner = await signedIn(product, 'owner@portal.example', { agentId: '*', role: 'owner', venueIds: [] });
  for (const id of ['V-OWN', 'V-OTHER']) {
    const r = await owner.call('POST', '/partners/statements', {
      partnerType: 'venue',
      partnerId: id,
      currency: 'EUR',
      period: '2026-10',
      reason: 'month end',
    });
    expect(r.statusCode, r.body).toBe(201);
  }
  const partner = await signedIn(product, 'partner@portal.example', {
    agentId: 'agt-portal',
    role: 'venue_partner',
    venueIds: ['V-OWN'],
  });
  browser = await launchChromium();
  const context = await browser.newContext({ viewport: { width: 768, height: 1024 }, locale: 'en-US' });
  await context.addCookies([
    {
      name: 'ops_session',
      value: partner.jar.get('ops_session')!,
      domain: '127.0.0.1',
      path: '/',
      httpOnly: true,
      sameSite: 'Strict',
    },
  ]);
  page = await context.newPage();
  page.setDefaultTimeout(15_000);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await product?.close();
});

describe('the partner portal', () => {
  it("a venue partner sees only its own venue's earnings and statements", async () => {
    await page.goto(`${product.base}/ops/#/partners`);
    await page.getByRole('heading', { level: 1, name: 'Partners' }).waitFor();
    const nav = page.getByRole('navigation', { name: 'Main' });
    expect(await nav.getByRole('link').allTextContents()).toEqual([
      'Venues',
      'Cabinets',
      'Price plans',
      'Wi-Fi line',
      'Agents and embeds',
      'Partners',
      'Dashboard',
      'My account',
    ]);
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

  it("sees its venue, its cabinet's state, its figures and map, and the embed setup, never the other venue's", async () => {
    await page.goto(`${product.base}/ops/#/venues`);
    await page.getByRole('heading', { level: 1, name: 'Venues' }).waitFor();
    await page.getByRole('link', { name: 'V-OWN' }).waitFor();
    expect(await page.getByText('V-OTHER').count()).toBe(0);

    await page.goto(`${product.base}/ops/#/cabinets`);
    await page.getByRole('heading', { level: 1, name: 'Cabinets' }).waitFor();
    const row = page.getByRole('row').filter({ hasText: 'PC-OWN' });
    await row.getByText('Online').waitFor();
    expect(await page.getByText('PC-OTHER').count()).toBe(0);
    expect(await axeViolations(page)).toEqual([]);

    await page.goto(`${product.base}/ops/#/dashboard`);
    await page.getByRole('heading', { level: 2, name: 'Cabinets on the map' }).waitFor();
    await page.getByRole('list', { name: 'Legend' }).getByText('Fine: 1').waitFor(); // online, 2 power banks in 6 slots
    expect(await page.getByText('PC-OTHER').count()).toBe(0);
    expect(await axeViolations(page)).toEqual([]);

    await page.goto(`${product.base}/ops/#/agents?id=agt-portal`);
    await page.getByRole('link', { name: 'All agents' }).waitFor();
    await page.waitForFunction(
      () => (document.querySelector('textarea') as HTMLTextAreaElement | null)?.value === 'https://shop.example.com',
    );
    expect(await page.getByLabel('Sites allowed to embed the widget').isDisabled()).toBe(true); // the agent's settings are not the partner's to change
    await page.getByLabel('Theme').selectOption('dark');
    expect(await page.getByLabel('Paste this into the partner page').inputValue()).toContain('theme="dark"');
    expect(await axeViolations(page)).toEqual([]);
  });
});
