// Rebalancing on a field technician's phone (390 px) in Chromium against the real server: the suggested move is
// shown from, to and how many; marking it done with a reason records it (the list of moves done shows it, the
// suggestion goes) and the audit log keeps the reason; axe clean, nothing wider than the phone, targets of 44 px.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { axeViolations } from './axe.ts';
import { launchChromium } from './chromium.ts';
import { startProduct, type RunningProduct } from './product.ts';
import { signedIn } from '../../server/test/partners/fixtures.ts';

let product: RunningProduct;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  product = await startProduct({ simulator: false });
  const db = product.db;
  await product.app.powerly.fleet.agents.create({
    id: 'agt-field',
    name: 'Field Agent',
    country: 'LT',
    currencies: ['EUR'],
    origins: [],
  });
  for (const [venue, lat, lng] of [
    ['VF-OLD-TOWN', 54.6872, 25.2797],
    ['VF-STATION', 54.671, 25.284],
  ] as const) {
    await db.query(
      `insert into venues select (jsonb_populate_record(null::venues, to_jsonb(v) || jsonb_build_object('id', $1::text, 'name', $1::text, 'agent_id', 'agt-field', 'lat', $2::float8, 'lng', $3::float8))).*
         from venues v where v.id = 'v-vno-gedimino'`,
      [venue, lat, lng],
    );
  }
  for (const [id, venue, banks] of [
    ['CF-FULL', 'VF-OLD-TOWN', 8],
    ['CF-EMPTY', 'VF-STATION', 0],
  ] as const) {
    await db.query(
      `insert into cabinets select (jsonb_populate_record(null::cabinets, to_jsonb(c) || jsonb_build_object('id', $1::text, 'venue_id', $2::text, 'agent_id', 'agt-field',
         'slot_count', 8, 'online', true, 'last_seen_at', $3::timestamptz))).* from cabinets c where c.id = 'PWL-VNO-001'`,
      [id, venue, product.clock.now()],
    );
    for (let s = 1; s <= banks; s++)
      await db.query(`insert into powerbanks (id, state, cabinet_id, slot) values ($1, 'in_cabinet', $2, $3)`, [
        `${id}-${s}`,
        id,
        s,
      ]);
  }
  const tech = await signedIn(product, 'tech@field.example', {
    agentId: 'agt-field',
    role: 'field_technician',
    venueIds: [],
  });
  browser = await launchChromium();
  const context = await browser.newContext({
    viewport: { width: 390, height: 844 },
    locale: 'en-US',
    isMobile: true,
    hasTouch: true,
  });
  await context.addCookies([
    {
      name: 'ops_session',
      value: tech.jar.get('ops_session')!,
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

describe('rebalancing on a phone', () => {
  it('a technician sees the move, marks it done with a reason, and it is recorded', async () => {
    await page.goto(`${product.base}/ops/#/rebalancing`);
    await page.getByRole('heading', { level: 1, name: 'Rebalancing' }).waitFor();
    const move = page.getByRole('listitem').filter({ hasText: 'Move 4 power banks' });
    await move.waitFor();
    expect(await move.textContent()).toContain('From CF-FULL at VF-OLD-TOWN');
    expect(await move.textContent()).toContain('To CF-EMPTY at VF-STATION');
    expect(await axeViolations(page)).toEqual([]);
    // The agent filter lists the agents the technician works for, by name; choosing one keeps its moves.
    const agent = page.locator('.ops-filters select');
    await agent.locator('option', { hasText: 'agt-field' }).waitFor({ state: 'attached' });
    expect(await agent.locator('option').allTextContents()).toEqual(['All agents', 'Field Agent (agt-field)']);
    expect(await agent.evaluate((e) => (e as HTMLSelectElement).labels?.[0]?.textContent?.startsWith('Agent'))).toBe(
      true,
    );
    await agent.selectOption('agt-field');
    await move.waitFor();
    const button = move.getByRole('button', { name: 'Mark done: CF-FULL to CF-EMPTY' });
    expect((await button.boundingBox())!.height).toBeGreaterThanOrEqual(44);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);

    // Without a reason: the field says so and takes the focus; nothing is recorded.
    await button.click();
    await page.getByRole('alert').filter({ hasText: 'Type the reason first' }).waitFor();
    expect(await page.evaluate(() => document.activeElement?.getAttribute('id'))).toBe(
      await page.getByLabel('Reason (kept in the audit log)').getAttribute('id'),
    );
    await page.getByLabel('Reason (kept in the audit log)').fill('Morning van round');
    await move.getByLabel('Power banks moved').fill('3');
    await button.click();
    await page
      .getByRole('status')
      .filter({ hasText: 'Marked done: 3 power banks from CF-FULL to CF-EMPTY.' })
      .waitFor();
    await page
      .getByRole('list', { name: 'Done in the last day' })
      .getByText('tech@field.example moved 3 power banks from CF-FULL to CF-EMPTY')
      .waitFor();
    // 8 − 3 = 5 of 8 is within the band; the station's 3 of 8 is still too few, and nothing can spare any: no move.
    await page.getByText('No moves needed now.').waitFor();
    const { rows } = await product.db.query<{ action: string; reason: string }>(
      `select action, reason from audit_log where entity = 'rebalance_move'`,
    );
    expect(rows).toEqual([{ action: 'rebalance_move.done', reason: 'Morning van round' }]);
    expect(await axeViolations(page)).toEqual([]);
  });
});
