// From nothing to a rental, with the back office and the rider app only (no SQL, no service call for the fleet):
// the seeded owner joins with a passkey (a virtual authenticator through the DevTools protocol), signs out and in
// again, creates a live venue, gives it a price plan, registers a cabinet at it and puts a power bank in a slot;
// the simulated cabinet comes online in the live view; a rider opens the cabinet's code link, sees the plan's
// prices and deposit, pays the deposit with the sandbox card and takes the power bank, which the console then
// shows gone from its slot. Axe finds no violation on the console's screens on the way.
import { afterAll, describe, expect, it } from 'vitest';
import { SimulatedCabinet } from '../../server/src/demo/simulator/cabinet.ts';
import { axeViolations } from './axe.ts';
import { phonePage } from './chromium.ts';
import { consoleInChromium } from './opsConsole.ts';
import { continueToCabinetHome, payWithCard } from './product.ts';

const env = consoleInChromium();
let sim: SimulatedCabinet | undefined;
afterAll(async () => sim?.stop());

describe('from an empty fleet to the first rental, through the console', () => {
  it("venue, price plan, cabinet and power bank from the console; a rider rents there at the plan's prices", async () => {
    const { product, page, base } = env;
    const token = await product.app.powerly.staff.seedOwner('owner@powerly.local', 'Olivia Owner');
    await page.goto(`${base}/ops/#/invitation?token=${encodeURIComponent(token!)}`);
    await page.getByRole('button', { name: 'Create passkey and join' }).click();
    const nav = page.getByRole('navigation', { name: 'Main' });
    await nav.waitFor();
    // Signed out, and back in with the passkey just created.
    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
    await nav.waitFor();
    const main = page.getByRole('main');

    // A live venue.
    await nav.getByRole('link', { name: 'Venues' }).click();
    await page.getByRole('link', { name: 'New venue' }).click();
    await main.getByLabel('Id', { exact: true }).fill('V-JOURNEY-1');
    await main.getByLabel('Name', { exact: true }).fill('Journey Café');
    await main.getByLabel('State').selectOption('live');
    await main.getByLabel('City').fill('Vilnius');
    await main.getByLabel('Address').fill('Pilies g. 1');
    await main.getByLabel('Latitude').fill('54.6840');
    await main.getByLabel('Longitude').fill('25.2890');
    await main.getByLabel('Reason').fill('first venue');
    await main.getByRole('button', { name: 'Save' }).click();
    await main.getByRole('heading', { level: 2, name: 'Journey Café' }).waitFor();

    // Its price plan: €1.20 per 30 minutes, 10 free minutes, €9 a day at most, a €25 deposit held on the card.
    await main.getByRole('link', { name: 'Price plans' }).click();
    await main.getByRole('heading', { level: 2, name: 'Price plans of venue V-JOURNEY-1' }).waitFor();
    await main.getByLabel('Price per unit (EUR)').fill('1.20');
    await main.getByLabel('Unit length').fill('30');
    await main.getByLabel('Free minutes').fill('10');
    await main.getByLabel('Daily cap (EUR)').fill('9');
    await main.getByLabel('Deposit (EUR)').fill('25');
    await main.getByLabel('Deposit type').selectOption('preauth');
    await main.getByLabel('Reason').fill('opening prices');
    await main.getByRole('button', { name: 'Create plan' }).click();
    await main.getByRole('cell', { name: 'Charging now' }).waitFor();
    expect(await axeViolations(page)).toEqual([]);

    // A cabinet at the venue, and a power bank in its first slot.
    await nav.getByRole('link', { name: 'Cabinets' }).click();
    const form = page.getByRole('region', { name: 'Register a cabinet' });
    await form.getByLabel('Serial').fill('PWL-JRN-001');
    await form.getByLabel('Number of slots').fill('4');
    await form.getByLabel('Venue id (optional)').fill('V-JOURNEY-1');
    await form.getByLabel('Reason').fill('first cabinet');
    await form.getByRole('button', { name: 'Register' }).click();
    await page.getByRole('heading', { level: 2, name: 'Cabinet PWL-JRN-001' }).waitFor();
    const place = page.getByRole('region', { name: 'Put a device in a slot' });
    await place.getByLabel('Device id').fill('PB-JRN-1');
    await place.getByLabel('Kind').selectOption('cdb');
    await place.getByLabel('Slot').fill('1');
    await place.getByLabel('Reason').fill('first power bank');
    await place.getByRole('button', { name: 'Put in' }).click();
    const slots = page.getByRole('table', { name: 'Slots of cabinet PWL-JRN-001' });
    const slot1 = slots.getByRole('row').filter({ has: page.getByRole('rowheader', { name: '1', exact: true }) });
    await slot1.getByText('PB-JRN-1').waitFor();

    // The cabinet is switched on: the live view says so without a reload.
    sim = new SimulatedCabinet({
      cabinetId: 'PWL-JRN-001',
      slots: ['PB-JRN-1', null, null, null],
      connector: product.connector,
      prefix: product.prefix,
      clock: product.clock,
      heartbeatMs: 60_000,
    });
    await sim.start();
    await page.locator('dl.ops-facts').first().getByText('Online').waitFor();
    await slot1.getByText('100%').waitFor();
    expect(await axeViolations(page)).toEqual([]);

    // The rider: the cabinet's code link shows the plan's prices and deposit.
    const rider = await phonePage(env.browser);
    await rider.goto(`${base}/#/?qrcode=PWL-JRN-001`);
    await expect.poll(() => rider.evaluate(() => location.hash), { timeout: 20_000 }).toBe('#/selectPakage');
    await expect.poll(() => rider.getByRole('heading', { name: '€1.20 / 30 min' }).count()).toBe(1);
    const facts = (await rider.locator('.price-facts').textContent())!;
    expect(facts).toContain('Deposit€25');
    expect(facts).toContain('Free time10 min');
    expect(facts).toContain('Daily cap€9');
    await continueToCabinetHome(rider, 'Journey Café');
    const hold = rider.getByRole('button', { name: /^Hold / });
    await expect.poll(() => hold.textContent()).toContain('€25');
    await hold.click();
    await expect.poll(() => rider.getByRole('heading', { name: 'Confirm payment' }).count()).toBe(1);
    await payWithCard(rider);
    await rider
      .getByRole('status')
      .filter({ hasText: 'Your power bank is out!' })
      .filter({ hasText: 'PB-JRN-1' })
      .waitFor();
    expect(sim.holds('PB-JRN-1')).toBe(false);
    await rider.context().close();

    // The console follows: the slot is empty now.
    await slot1.getByText('Empty').waitFor();
  });
});

describe('the Wi-Fi box deposit per currency, in the console', () => {
  it('sets a deposit in a currency no venue uses (CNY), changes it, and refuses a code that is no currency', async () => {
    const { page } = env;
    await page.setViewportSize({ width: 768, height: 1024 });
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Wi-Fi line' }).click();
    const section = page.getByRole('region', { name: 'Box deposit per currency' });
    await section.getByText('No currency set yet.').waitFor();
    const form = section.getByRole('form', { name: 'Set a box deposit' });
    // The browser refuses a code that is no ISO currency before anything is sent.
    await form.getByLabel('Currency').fill('XYZ');
    await form.getByLabel('Deposit amount').fill('300');
    await form.getByLabel('Reason').fill('boxes for visitors from China');
    await form.getByRole('button', { name: 'Save deposit' }).click();
    await form.getByRole('alert').filter({ hasText: 'XYZ is not an ISO 4217 currency code.' }).waitFor();
    await form.getByLabel('Currency').fill('cny');
    await form.getByRole('button', { name: 'Save deposit' }).click();
    await form.getByRole('status').filter({ hasText: 'The box deposit in CNY is saved.' }).waitFor();
    const row = section.getByRole('row').filter({ has: page.getByRole('rowheader', { name: 'CNY' }) });
    await expect.poll(() => row.textContent()).toContain('300.00');
    expect(await axeViolations(page)).toEqual([]);

    // Changed from its row: the save names the version read.
    await row.getByRole('button', { name: 'Change CNY' }).click();
    expect(await form.getByLabel('Deposit amount').inputValue()).toBe('300.00');
    await form.getByLabel('Deposit amount').fill('320');
    await form.getByLabel('Reason').fill('new box model');
    await form.getByRole('button', { name: 'Save deposit' }).click();
    await expect.poll(() => row.textContent()).toContain('320.00');
    await page.setViewportSize({ width: 1280, height: 800 });
    expect(await axeViolations(page)).toEqual([]);
  });
});

describe('a Wi-Fi package edited in the console', () => {
  it('renames it in a language, changes its price and takes it off sale, with the version it read', async () => {
    const { page, product } = env;
    const packages = page.getByRole('region', { name: 'Packages and plans' });
    await packages.getByRole('search').getByLabel('Region').fill('europe');
    await packages.getByRole('search').getByRole('button', { name: 'Apply' }).click();
    const row = packages.getByRole('row').filter({ has: page.getByRole('rowheader', { name: 'europe-all-7d' }) });
    await expect.poll(() => row.textContent()).toContain('Yes');
    await row.getByRole('button', { name: 'Edit europe-all-7d' }).click();
    const edit = page.getByRole('region', { name: 'Edit package europe-all-7d' });
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe('ops-wifi-edit');
    await edit.getByLabel(/^Name in lietuvi/i).fill('Regioninis');
    await edit.getByLabel(/^Prices, one a line/).fill('EUR 21.00');
    await edit.getByLabel(/^On sale/).uncheck();
    await edit.getByLabel('Reason').fill('end of the summer offer');
    expect(await axeViolations(page)).toEqual([]);
    await edit.getByRole('button', { name: 'Save package' }).click();
    await expect.poll(() => row.textContent()).toContain('No');
    expect(await row.textContent()).toContain('€21.00');
    await expect.poll(() => edit.count()).toBe(0);
    const { rows } = await product.db.query<{ enabled: boolean; names: unknown }>(
      'select enabled, names from mifi_skus where id = $1',
      ['europe-all-7d'],
    );
    expect(rows[0]).toMatchObject({ enabled: false, names: { 'lt-LT': 'Regioninis' } });
  });
});
