// The pricing rules as a user sees them, in Chromium against the real server, broker and cabinet simulator:
// the #/selectPakage pricing tip (slider + live fee preview from src/core/pricing.ts), and an eject that fails
// (the demo panel jams the cabinet): the user sees the rental failed, no order in use, the deposit released.
import { describe, expect, it } from 'vitest';
import { money } from '../../src/ui/format.ts';
import { toMajor } from '../../src/core/money.ts';
import { rentalFee, sliderMaxMinutes, type PricePlan } from '../../src/core/pricing.ts';
import { axeViolations } from './axe.ts';
import { continueToCabinetHome, productInChromium } from './product.ts';

const env = productInChromium();
const newPage = env.newPage;

// Lisbon's seeded plan (PWL-LIS-001): €1.50 per 30 min, 5 free minutes, daily cap €8, deposit €30, 3 overtime days.
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

describe('#/selectPakage pricing tip', () => {
  it('shows the plan, and the slider previews the fee the server will charge', async () => {
    const page = await newPage();
    await page.goto(`${env.product.base}/#/?qrcode=PWL-LIS-001`);
    // The scan itself lands on package selection (the cabinet has a shopid).
    await expect.poll(() => page.evaluate(() => location.hash)).toBe('#/selectPakage');

    await expect.poll(() => page.getByRole('heading', { name: '€1.50 / 30 min' }).count()).toBe(1);
    const facts = (await page.locator('.price-facts').textContent())!;
    expect(facts).toContain('Deposit€30');
    expect(facts).toContain('Free time5 min');
    expect(facts).toContain('Daily cap€8');
    // The fee table: 3 h = ceil(180/30) = 6 × €1.50 = €9 → cap €8 (a duration without zero parts: "3 hr").
    expect(await page.getByRole('row', { name: /^3 hr/ }).textContent()).toContain('€8');

    await page.getByRole('button', { name: 'How the fee is calculated' }).click();
    const dialog = page.getByRole('dialog', { name: 'Pricing' });
    await dialog.waitFor();
    const slider = dialog.getByRole('slider', { name: 'Try a rental time' });
    // Max = 2 × overtime days × 24 × 30 = 2 × 3 × 24 × 30 = 4320, step 1.
    expect(await slider.getAttribute('max')).toBe(String(sliderMaxMinutes(LISBON)));
    expect(await slider.getAttribute('max')).toBe('4320');
    expect(await slider.getAttribute('step')).toBe('1');
    const preview = dialog.getByTestId('fee-preview');
    for (const [minutes, text] of [
      [4, '4 min: €0'], // within the 5 free minutes
      [95, '1 hr 35 min: €6'], // ceil(95/30) = 4 × €1.50
      [1441, '1 day 1 min: €9.50'], // 1 day (€8) + 1 unit (€1.50)
    ] as const) {
      await slider.fill(String(minutes));
      expect(text).toContain(money('EUR', toMajor(rentalFee(LISBON, minutes * 60_000), 'EUR')));
      await expect.poll(() => preview.textContent()).toBe(text);
    }
    // Keyboard works too: one step right from 1441.
    await slider.press('ArrowRight');
    await expect.poll(() => preview.textContent()).toBe('1 day 2 min: €9.50');
    await dialog.getByRole('button', { name: 'Close' }).click();
    await expect.poll(() => dialog.isVisible()).toBe(false);
    // Continue leads to the cabinet home with its pay button.
    await continueToCabinetHome(page, 'Time Out Market Lisboa');
    await expect.poll(() => page.getByRole('button', { name: /^Hold / }).count()).toBe(1);
  });
});

describe('an eject failure as the user sees it', () => {
  it('the cabinet jams: a failure screen that says what happened to the money and what to do next', async () => {
    const demo = await newPage();
    await demo.goto(`${env.product.base}/demo/`);
    await demo.getByRole('button', { name: 'Jam the next eject of PWL-VNO-001' }).click();
    await demo.getByRole('status').filter({ hasText: 'The next eject of PWL-VNO-001 will fail.' }).waitFor();
    await demo.close();

    const page = await newPage();
    await page.goto(`${env.product.base}/#/?qrcode=PWL-VNO-001`);
    await continueToCabinetHome(page);
    await page.getByRole('button', { name: /^Hold / }).click();
    await page.getByLabel('Card number').fill('4242 4242 4242 4242');
    await page.getByLabel('Expiry date (MM/YY)').fill('12/34');
    await page.getByLabel('CVC').fill('123');
    await page.getByRole('button', { name: /^Authorize/ }).click();

    // The borrow screen says what happened, with the failure icon, what became of the €25 hold, and the next steps.
    await page.getByRole('heading', { name: 'No power bank came out' }).waitFor();
    expect(await page.getByTestId('fail-icon').count()).toBe(1);
    await expect
      .poll(() => page.getByTestId('money-note').textContent())
      .toMatch(
        /^Nothing was charged\. The €25 hold on Visa •••• 4242 (is being released now|was released at .+); your bank may still show it for up to 7 days\.$/,
      );
    for (const next of ['Find a cabinet with power banks', 'Try again', 'Contact support', 'View my orders']) {
      expect(await page.getByRole('button', { name: next }).count(), next).toBe(1);
    }
    expect(await axeViolations(page)).toEqual([]);

    // The order is listed as cancelled, not as an ended rental.
    await page.getByRole('button', { name: 'View my orders' }).click();
    await expect.poll(() => page.getByRole('tab', { name: /In use/ }).textContent()).toMatch(/\(0\)/);
    await page.getByRole('tab', { name: /Ended/ }).click();
    const card = page.getByRole('article').first();
    await expect.poll(() => card.textContent()).toContain('Cancelled');
    expect(await card.textContent()).toContain('No power bank came out; nothing was charged');
    // The authorisation is voided at the provider (the user is never charged for a device they did not get).
    await env.product.app.powerly.jobs.runDue();
    const { rows } = await env.product.db.query<{ status: string }>(
      `select status from payments where purpose = 'deposit_preauth' order by created_at desc limit 1`,
    );
    expect(rows[0]!.status).toBe('voided');
  });
});
