// The dashboard in Chromium against the real server: an agent's admin sees its figures (totals, the charts drawn by
// the lazy uPlot chunk, the per-day table), never another agent's, with no axe violation.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { axeViolations } from './axe.ts';
import { launchChromium } from './chromium.ts';
import { startProduct, type RunningProduct } from './product.ts';
import { signedIn } from '../../server/test/partners/fixtures.ts';

let product: RunningProduct;
let browser: Browser;
let page: Page;
const day = (n: number) => new Date(Date.now() - n * 86_400_000).toISOString().slice(0, 10);

beforeAll(async () => {
  product = await startProduct({ simulator: false });
  const { db } = product;
  await product.app.powerly.fleet.agents.create({
    id: 'agt-dash',
    name: 'Dash Agent',
    country: 'LT',
    currencies: ['EUR'],
    origins: [],
  });
  await product.app.powerly.fleet.agents.create({
    id: 'agt-other',
    name: 'Other Agent',
    country: 'US',
    currencies: ['USD'],
    origins: [],
  });
  await db.query(`update venues set agent_id = 'agt-dash' where id = 'v-vno-gedimino'`);
  await db.query(`update venues set agent_id = 'agt-other' where id = 'v-nyc-gct'`);
  const { rows } = await db.query<{ id: string }>(
    `insert into users (kind, name) values ('tourist', 'dash') returning id`,
  );
  // Two returned rentals in Vilnius (yesterday and today, €3.00 and €4.50) and one in New York ($9.99, another agent).
  const rental = (id: string, venue: string, cabinet: string, currency: string, daysAgo: number, fee: number) =>
    db.query(
      `insert into orders (id, user_id, cabinet_id, venue_id, zujie, settled, deposit_type, currency, plan, wire_strategy, deposit, created_at, borrowed_at,
       returned_at, return_cabinet_id, fee, use_minutes)
     values ($1, $2, $3, $4, 3, true, 1, $5, '{}', '{}', 0, $6, $6, $6, $3, $7, 45)`,
      [id, rows[0]!.id, cabinet, venue, currency, new Date(`${day(daysAgo)}T00:30:00Z`), fee],
    );
  await rental('dash-1', 'v-vno-gedimino', 'PWL-VNO-001', 'EUR', 1, 300);
  await rental('dash-2', 'v-vno-gedimino', 'PWL-VNO-001', 'EUR', 0, 450);
  await rental('dash-3', 'v-nyc-gct', 'PWL-NYC-001', 'USD', 0, 999);
  await product.app.powerly.dashboard.refresh();
  const admin = await signedIn(product, 'admin@dash.example', { agentId: 'agt-dash', role: 'admin', venueIds: [] });
  browser = await launchChromium();
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'en-US' });
  await context.addCookies([
    {
      name: 'ops_session',
      value: admin.jar.get('ops_session')!,
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

describe('the dashboard', () => {
  it("shows the agent's figures as charts and tables, not another agent's, with no axe violation", async () => {
    await page.goto(`${product.base}/ops/#/dashboard`);
    await page.getByRole('heading', { level: 1, name: 'Dashboard' }).waitFor();
    const rentals = page.locator('.ops-figures div', { hasText: 'Rentals' });
    await expect.poll(() => rentals.locator('dd').textContent()).toBe('2');
    await page.locator('.ops-figures').getByText('€7.50').waitFor();
    // The charts are drawn (uPlot's canvas in the lazy chunk), each an image naming the tables below.
    await page
      .getByRole('img', { name: /Chart: Revenue \(EUR\)/ })
      .locator('canvas')
      .first()
      .waitFor();
    expect(await page.getByRole('img', { name: /^Chart:/ }).count()).toBe(3);
    const perDay = page.getByRole('region', { name: 'Per day' }).getByRole('table');
    const today = perDay.getByRole('row', { name: new RegExp(day(0)) });
    expect(await today.getByRole('cell').allTextContents()).toEqual(['1', '1', '0', '0', '0.8%', '€4.50']);
    expect(await page.getByText('$9.99').count()).toBe(0);
    expect(await page.getByText('v-nyc-gct').count()).toBe(0);
    expect(await axeViolations(page)).toEqual([]);
  });
});
