// A power-station rental (spec energyStorageFlag) in Chromium against the real server and simulator:
// package selection offers the power station where the cabinet holds one, with its own deposit; the card hold,
// the eject, a return at another cabinet and the ended order naming the device.
import { describe, expect, it } from 'vitest';
import { productInChromium } from './product.ts';

const env = productInChromium();

describe('a power-station rental', () => {
  it('chooses the power station, holds its deposit, ejects it, returns it and shows it in the orders', async () => {
    const page = await env.newPage();
    await page.goto(`${env.product.base}/#/?qrcode=PWL-LIS-001`);
    await expect.poll(() => page.evaluate(() => location.hash), { timeout: 20_000 }).toMatch(/^#\/selectPakage/);
    const screen = page.locator('main.select-pakage');
    await screen.getByRole('radio', { name: 'Power station' }).check();
    // The power station's own plan: €3 per hour, a €150 deposit.
    await expect.poll(() => screen.textContent()).toContain('€150');
    await screen.getByRole('button', { name: 'Continue', exact: true }).click();
    await expect.poll(() => page.evaluate(() => location.hash)).toBe('#/home');
    await expect.poll(() => page.getByTestId('device-kind').textContent()).toContain('Power station');
    await expect.poll(() => page.getByRole('button', { name: /^Hold / }).textContent()).toContain('€150');
    await page.getByRole('button', { name: /^Hold / }).click();
    await page.getByLabel('Card number').fill('4242 4242 4242 4242');
    await page.getByLabel('Expiry date (MM/YY)').fill('12/34');
    await page.getByLabel('CVC').fill('123');
    await page.getByRole('button', { name: /^Authorize/ }).click();
    await page.getByRole('status').filter({ hasText: 'PS-LIS-0001' }).waitFor({ timeout: 20_000 });

    env.product.clock.advance(61 * 60_000);
    const demo = await env.newPage();
    await demo.goto(`${env.product.base}/demo/`);
    await demo.getByLabel('Return PS-LIS-0001 to').selectOption('PWL-VNO-001');
    await demo.getByRole('button', { name: 'Return PS-LIS-0001' }).click();
    await demo.getByRole('status').filter({ hasText: 'PS-LIS-0001 returned to PWL-VNO-001' }).waitFor();
    await demo.close();

    await page.goto(`${env.product.base}/#/order`);
    await page.getByRole('tab', { name: /Ended/ }).click();
    const ended = page.getByRole('article').filter({ hasText: 'PS-LIS-0001' });
    // 61 minutes at €3 per started hour = €6.
    await expect.poll(() => ended.textContent(), { timeout: 15_000 }).toContain('Fee€6');
    expect(await ended.getByTestId('order-device').textContent()).toBe('Power station');
  });
});
