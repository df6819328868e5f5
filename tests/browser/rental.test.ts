// What a new user does, in Chromium against the real server, database, MQTT broker and cabinet simulator:
// open a cabinet's code link, pay the deposit with the sandbox test card, see the power bank come out,
// return it at another cabinet through the demo page's cabinet panel, and see the ended order with its fee.
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { toMajor } from '../../src/core/money.ts';
import { money } from '../../src/ui/format.ts';
import { rentalFee, type PricePlan } from '../../src/core/pricing.ts';
import { continueToCabinetHome, productInChromium } from './product.ts';

const env = productInChromium();
const newPage = env.newPage;

async function payWithCard(page: Page, number: string) {
  await page.getByLabel('Card number').fill(number);
  await page.getByLabel('Expiry date (MM/YY)').fill('12/34');
  await page.getByLabel('CVC').fill('123');
  await page.getByRole('button', { name: /^Authorize/ }).click();
}

// Lisbon's seeded plan (PWL-LIS-001): €1.50 per 30 min, 5 free minutes, daily cap €8, pre-authorised deposit €30.
const LISBON: PricePlan = {
  kind: 'unit',
  currency: 'EUR',
  unitPrice: 150,
  unitMinutes: 30,
  freeMinutes: 5,
  dailyCap: 800,
  deposit: 3000,
  overtimeAmount: 3000,
  overtimeDays: 3,
  tiers: [],
};

describe('a rental from the code link to the ended order', () => {
  it('pays the deposit, ejects, returns at another cabinet and charges for the time used', async () => {
    const page = await newPage();
    await page.goto(`${env.product.base}/#/?qrcode=PWL-LIS-001`);

    // Tourist session, scan, package selection, Continue, cabinet home: a pre-authorisation of the whole deposit.
    await continueToCabinetHome(page, 'Time Out Market Lisboa');
    await expect.poll(() => page.getByRole('button', { name: /^Hold / }).textContent()).toContain('€30');
    await expect.poll(() => page.getByText(/power banks available/).textContent()).toMatch(/3 power banks available/);
    await page.getByRole('button', { name: /^Hold / }).click();

    // The sandbox card form; the test card succeeds.
    await expect.poll(() => page.getByRole('heading', { name: 'Confirm payment' }).count()).toBe(1);
    await payWithCard(page, '4242 4242 4242 4242');

    // The cabinet ejects over MQTT; the borrow-success screen polls until it has.
    const out = page.getByRole('status').filter({ hasText: 'Your power bank is out!' });
    await out.waitFor();
    const taken = (await out.textContent())!.match(/power bank (\S+) from slot (\d+)/);
    expect(taken, 'the screen names the power bank and its slot').not.toBeNull();
    const powerbankId = taken![1]!;
    expect(powerbankId).toMatch(/^PB-/);

    // 95 minutes later the person returns it at another venue, through the demo page's cabinet panel.
    env.product.clock.advance(95 * 60_000);
    const demo = await newPage();
    await demo.goto(`${env.product.base}/demo/`);
    await demo.getByLabel(`Return ${powerbankId} to`).selectOption('PWL-VNO-001');
    await demo.getByRole('button', { name: `Return ${powerbankId}` }).click();
    await demo
      .getByRole('status')
      .filter({ hasText: `${powerbankId} returned to PWL-VNO-001` })
      .waitFor();
    await demo.close();

    // 95 min at €1.50 per 30 min: ceil(95 / 30) = 4 units × €1.50 = €6.00, under the €8 daily cap.
    const fee = rentalFee(LISBON, 95 * 60_000);
    expect(fee).toBe(600);
    await page.goto(`${env.product.base}/#/order`);
    await page.getByRole('tab', { name: /Ended/ }).click();
    const ended = page.getByRole('article').filter({ hasText: powerbankId });
    // A price shows two decimals unless it is whole, so €6.00 reads "€6".
    await expect
      .poll(() => ended.textContent(), { timeout: 15_000 })
      .toContain(`Fee${money('EUR', toMajor(fee, 'EUR'))}Details`);
    const text = (await ended.textContent())!;
    expect(text).toContain('Ended');
    expect(text).toContain('Time Out Market Lisboa'); // rented here
    expect(text).toContain('GO9 Gedimino 9'); // returned at another venue
  });

  it('a declined card: an error dialog with the reason, and no rental', async () => {
    const page = await newPage();
    await page.goto(`${env.product.base}/#/?qrcode=PWL-VNO-001`);
    await continueToCabinetHome(page);
    await page.getByRole('button', { name: /^Hold / }).click();
    await payWithCard(page, '4000 0000 0000 0002');

    const dialog = page.getByRole('alertdialog', { name: 'Payment failed' });
    await dialog.waitFor();
    expect(await dialog.textContent()).toMatch(/declined/i);
    await dialog.getByRole('button', { name: 'Cancel' }).click();

    await page.goto(`${env.product.base}/#/order`);
    await expect.poll(() => page.getByRole('tab', { name: /In use/ }).textContent()).toMatch(/\(0\)/);
    await expect.poll(() => page.getByRole('tab', { name: /Ended/ }).textContent()).toMatch(/\(0\)/);
    expect(await page.getByRole('article').count()).toBe(0);
  });

  it('the payment screen comes whole with its strings, and what is typed on it stays', async () => {
    const page = await newPage();
    // Hold back the payment screens' string table (the en-US chunk with the payMethod texts).
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    await page.route(/\/assets\/en-US-[^/]+\.js$/, async (route) => {
      const res = await route.fetch();
      const body = await res.text();
      if (body.includes('payMethod')) await held;
      await route.fulfill({ response: res, body });
    });
    await page.goto(`${env.product.base}/#/?qrcode=PWL-VNO-001`);
    await continueToCabinetHome(page);
    await page.getByRole('button', { name: /^Hold / }).click();
    await page.waitForURL(/#\/confirm/);
    // No card form, no half-translated screen that would grow under the person's fingers once the strings arrive.
    await new Promise((r) => setTimeout(r, 1000));
    expect(await page.getByLabel('Card number').count()).toBe(0);
    expect(await page.getByRole('heading', { name: 'Confirm payment' }).count()).toBe(0);
    release();
    await page.getByLabel('Card number').fill('4242 4242 4242 4242');
    await page.getByLabel('Expiry date (MM/YY)').fill('12/34');
    await page.getByLabel('CVC').fill('123');
    expect(await page.getByRole('heading', { name: 'How the deposit hold works' }).count()).toBe(1);
    await new Promise((r) => setTimeout(r, 500));
    expect(await page.getByLabel('Card number').inputValue()).toBe('4242 4242 4242 4242');
    expect(await page.getByLabel('Expiry date (MM/YY)').inputValue()).toBe('12/34');
  });
});
