// The support desk in Chromium against the real server, broker and cabinet simulator: a rider rents a power bank
// and returns it three hours later; a support person (console at 768 px) finds the rider by phone number, reads the
// rental's timeline and how its fee was worked out, refunds part of the fee, and the rider's open order screen shows
// the new fee without a reload. axe finds no violation on the console's screens.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { sha256 } from '../../server/src/lib/ids.ts';
import { waitFor } from '../../server/test/helper.ts';
import { axeViolations } from './axe.ts';
import { launchChromium, phonePage } from './chromium.ts';
import { continueToCabinetHome, payWithCard, startProduct, type RunningProduct } from './product.ts';

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

/** The rider: rents at Vilnius (€1 per started hour past 10 free minutes) with the test card; the bank is out. */
async function riderRents(page: Page) {
  await page.goto(`${product.base}/#/?qrcode=PWL-VNO-001`);
  await continueToCabinetHome(page);
  await page.getByRole('button', { name: /^Hold / }).click();
  await payWithCard(page);
  const out = page.getByRole('status').filter({ hasText: 'Your power bank is out!' });
  await out.waitFor();
  return (await out.textContent())!.match(/power bank (\S+) from slot/)![1]!;
}

/** A support person of the agent that runs Vilnius, signed in (the console's session cookie). */
async function supportConsole(): Promise<Page> {
  const staff = product.app.powerly.staff.repo;
  await product.app.powerly.embed.saveAgent({ id: 'agent-baltic', name: 'Baltic', origins: [] });
  await product.db.query(`update venues set agent_id = 'agent-baltic' where id = 'v-vno-gedimino'`);
  const s = await staff.create('sam@baltic.example', 'Sam Support', product.clock.now());
  await staff.setMembership(s.id, { agentId: 'agent-baltic', role: 'support', venueIds: [] });
  const token = 'desk-browser-session-0123456789abcdef';
  await staff.insertSession({
    tokenHash: sha256(token),
    staffId: s.id,
    method: 'passkey',
    ip: '127.0.0.1',
    userAgent: 'chromium',
    at: product.clock.now(),
    expiresAt: new Date(product.clock.now().getTime() + 3_600_000),
  });
  // The console checked at the narrowest width it supports.
  const context = await browser.newContext({ viewport: { width: 768, height: 1024 }, locale: 'en-US' });
  await context.addCookies([{ name: 'ops_session', value: token, url: product.base }]);
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  return page;
}

const noSideways = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);

describe('the support desk', () => {
  it('finds the rider by phone, reads the timeline, refunds part of the fee; the rider sees it without reload', async () => {
    const rider = await phonePage(browser);
    const powerbankId = await riderRents(rider);
    const { rows } = await product.db.query<{ id: string; user_id: string }>(
      'select id, user_id::text from orders where powerbank_id = $1',
      [powerbankId],
    );
    const orderId = rows[0]!.id;
    await product.db.query(`update users set mobile = '+370 612 34567' where id = $1`, [rows[0]!.user_id]);

    // Three hours later the bank goes back into the cabinet: €3 (ceil(180 / 60) × €1), captured from the hold.
    product.clock.advance(3 * 3_600_000);
    await product.fleet!.get('PWL-VNO-001')!.insert(powerbankId);
    await waitFor(async () => {
      await product.app.powerly.jobs.runDue();
      const p = await product.db.query<{ status: string }>(
        `select status from payments where order_id = $1 and status <> 'declined'`,
        [orderId],
      );
      return p.rows[0]?.status === 'partially_captured';
    }, 'fee captured');

    // The rider has the order open.
    await rider.goto(`${product.base}/#/orderDetail?orderId=${orderId}`);
    const fee = rider.locator('.amount').first();
    await expect.poll(() => fee.textContent()).toBe('€3');

    const desk = await supportConsole();
    await desk.goto(`${product.base}/ops/#/rentals`);
    await desk.getByRole('heading', { level: 1, name: 'Rentals' }).waitFor();
    expect(await axeViolations(desk)).toEqual([]);
    await desk.getByLabel('Order, rider id, phone or e-mail').fill('370-612-345-67');
    await desk.getByRole('button', { name: 'Search' }).click();
    const link = desk.getByRole('link', { name: orderId });
    await expect.poll(() => link.count()).toBe(1);
    expect(await desk.getByRole('row').count()).toBe(2); // the header and this rider's one rental
    await link.click();

    // The timeline: the cabinet's eject and return, the payment, the ledger, and the fee step by step.
    await desk.getByRole('heading', { level: 2, name: `Rental ${orderId}` }).waitFor();
    const steps = desk.getByRole('region', { name: 'How the fee was worked out' });
    await expect.poll(() => steps.textContent()).toContain('180 minutes: 3 × 60 minutes at €1 each = €3');
    const timeline = desk.getByRole('region', { name: 'Timeline' });
    for (const what of [
      'cabinet.command.eject',
      'cabinet.popped',
      'cabinet.returned',
      'payment.partially_captured',
      'ledger.rent',
    ]) {
      expect(await timeline.getByText(what, { exact: true }).count(), what).toBeGreaterThan(0);
    }
    expect(await axeViolations(desk)).toEqual([]);
    expect(await noSideways(desk)).toBe(true);

    // A part of the fee back (within support's own limit): to the card the rental was paid with.
    // The refund form (the rental page also has the form that puts a rental right, with its own reason).
    const refund = desk.getByRole('form', { name: 'Refund' });
    await refund.getByLabel('Amount (EUR)').fill('1.20');
    await refund.getByLabel('Reason').fill('Charged while the cabinet was offline');
    await refund.getByRole('button', { name: 'Refund' }).click();
    await desk
      .getByRole('status')
      .filter({ hasText: 'Refunded €1.20: €1.20 to the card, €0 to the wallet.' })
      .waitFor();
    await expect.poll(() => desk.getByRole('region', { name: 'Money' }).textContent()).toContain('Refunded€1.20');
    await expect.poll(() => timeline.getByText('staff.rental.refund', { exact: true }).count()).toBe(1);
    expect(await axeViolations(desk)).toEqual([]);

    // The rider's open order screen, never reloaded: the fee is €1.80 now.
    await expect.poll(() => fee.textContent(), { timeout: 15_000 }).toBe('€1.80');
    await desk.context().close();
    await rider.context().close();
  });
});
