// The fleet in the console, in Chromium against the real server: an owner joins with a passkey (virtual
// authenticator), creates a venue with its position picked on the map, sees it in the list, gives it a price plan
// and reads the plan's fee preview, and the live venue is then on the rider app's map; axe finds no violation at
// 1280 px and at 768 px.
import { describe, expect, it } from 'vitest';
import { axeViolations } from './axe.ts';
import { consoleInChromium } from './opsConsole.ts';

const env = consoleInChromium();

describe('the fleet in the console', () => {
  it('creates a venue placed on the map and a price plan with its fee preview; the venue is on the rider map', async () => {
    const { product, page, base, context } = env;
    const token = await product.app.powerly.staff.seedOwner('owner@powerly.local', 'Olivia Owner');
    await page.goto(`${base}/ops/#/invitation?token=${encodeURIComponent(token!)}`);
    await page.getByRole('button', { name: 'Create passkey and join' }).click();
    const nav = page.getByRole('navigation', { name: 'Main' });
    await nav.getByRole('link', { name: 'Venues' }).click();
    await page.getByRole('heading', { level: 1, name: 'Venues' }).waitFor();
    await page.getByRole('link', { name: 'New venue' }).click();

    const main = page.getByRole('main');
    await main.getByLabel('Id', { exact: true }).fill('V-CONSOLE-1');
    await main.getByLabel('Name', { exact: true }).fill('Console Corner');
    await main.getByLabel(/^Name in lietuvi/i).fill('Konsolės kampas');
    await main.getByLabel('State').selectOption('live');
    await main.getByLabel('City').fill('Vilnius');
    await main.getByLabel('Address').fill('Gedimino pr. 1');
    const lat = main.getByLabel('Latitude');
    const before = await lat.inputValue();
    // The position: a click on the map where it can draw (WebGL), else typed, the keyboard's way.
    const map = main.getByTestId('venue-map');
    if (await map.count()) {
      await expect.poll(() => map.locator('canvas').count()).toBe(1);
      // Clicked where it is on screen (a mouse click at a point below the fold reaches nothing).
      await map.scrollIntoViewIfNeeded();
      const box = (await map.boundingBox())!;
      await page.mouse.click(box.x + box.width * 0.25, box.y + box.height * 0.3);
      await expect.poll(() => lat.inputValue()).not.toBe(before);
    } else {
      await lat.fill('54.6901');
      await main.getByLabel('Longitude').fill('25.2702');
    }
    await main.getByLabel('Monday').fill('08:00-20:00');
    await main.getByRole('button', { name: 'Add an exception' }).click();
    await main.getByLabel('Date').fill('2026-12-25');
    expect(await axeViolations(page)).toEqual([]);
    await main.getByLabel('Reason').fill('new venue in the old town');
    await main.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => page.evaluate(() => location.hash)).toBe('#/venues?id=V-CONSOLE-1');
    await main.getByRole('heading', { level: 2, name: 'Console Corner' }).waitFor();
    const position = {
      lat: Number(await lat.inputValue()),
      lng: Number(await main.getByLabel('Longitude').inputValue()),
    };

    await main.getByRole('link', { name: 'All venues' }).click();
    await main.getByRole('cell', { name: 'Mon 08:00-20:00, Tue-Sun 09:00-21:00' }).waitFor();
    await main.getByRole('link', { name: 'Console Corner' }).click();
    await main.getByRole('link', { name: 'Price plans' }).click();
    await main.getByRole('heading', { level: 2, name: 'Price plans of venue V-CONSOLE-1' }).waitFor();

    await main.getByLabel('Price per unit (EUR)').fill('2');
    await main.getByLabel('Unit length').fill('60');
    await main.getByLabel('Free minutes').fill('15');
    await main.getByLabel('Daily cap (EUR)').fill('10');
    // The preview follows the form: 15 minutes are free, a whole day is the daily cap.
    const row = (name: RegExp) => main.getByRole('table').last().getByRole('row', { name });
    await expect.poll(() => row(/^15 min/).textContent()).toContain('€0.00');
    await expect.poll(() => row(/^1 day\b/).textContent()).toContain('€10.00');
    await main.getByLabel('Durations in minutes').fill('75');
    // Past the free minutes the whole rental is charged, per started hour: 75 minutes are two hours.
    await expect.poll(() => row(/^1 hr,? 15 min/).textContent()).toContain('€4.00');
    expect(await axeViolations(page)).toEqual([]);
    await main.getByLabel('Reason').fill('opening prices');
    await main.getByRole('button', { name: 'Create plan' }).click();
    await main.getByRole('cell', { name: 'Charging now' }).waitFor();
    expect((await product.app.powerly.fleet.plans.list({ venueId: 'V-CONSOLE-1' }))[0]).toMatchObject({
      unitPrice: 200,
      unitLength: 60,
      freeMinutes: 15,
      dailyCap: 1000,
    });

    // Tablet width: the same screens, still without violations.
    await page.setViewportSize({ width: 768, height: 1024 });
    expect(await axeViolations(page)).toEqual([]);
    await nav.getByRole('link', { name: 'Venues' }).click();
    await main.getByRole('link', { name: 'Console Corner' }).waitFor();
    expect(await axeViolations(page)).toEqual([]);

    // The rider app: the live venue is on the map where it was placed.
    const rider = await context.newPage();
    await rider.goto(`${base}/#/homeMap?lat=${position.lat}&lng=${position.lng}`);
    await expect
      .poll(() => rider.getByRole('button', { name: /Console Corner/ }).count(), { timeout: 20_000 })
      .toBeGreaterThan(0);
    await rider.close();
  });

  it("shows an agent's snippet with the appearance checked by the widget's own grammar", async () => {
    const { product, page, base } = env;
    await page.setViewportSize({ width: 1280, height: 900 });
    await product.app.powerly.fleet.agents.create({
      id: 'partner-1',
      name: 'Partner One',
      currencies: ['EUR'],
      origins: ['https://partner.example'],
    });
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Agents and embeds' }).click();
    const main = page.getByRole('main');
    await main.getByRole('link', { name: 'Partner One' }).click();
    await main.getByLabel('Primary colour').fill('#5b3cc4');
    const code = main.getByLabel('Paste this into the partner page');
    await expect.poll(() => code.inputValue()).toContain('agent="partner-1"');
    expect(await code.inputValue()).toContain('color-primary="#5b3cc4"');
    expect(await code.inputValue()).toContain(`src="${base}/embed/powerly-rent.js"`);
    await expect
      .poll(() =>
        main.getByTestId('widget-preview').evaluate((e) => (e as HTMLElement).style.getPropertyValue('--pw-primary')),
      )
      .toBe('#5b3cc4');
    await main.getByLabel('Primary colour').fill('red;}body{x');
    await main.getByRole('alert').filter({ hasText: 'Primary colour' }).waitFor();
    expect(await code.inputValue()).not.toContain('red;');
    expect(await axeViolations(page)).toEqual([]);
  });
});
