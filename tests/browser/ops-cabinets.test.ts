// Cabinets in the back-office console, in Chromium against the real server: an owner signed in with a passkey
// (a virtual authenticator through the DevTools protocol) registers a cabinet, watches the simulated cabinet come
// online in the live view without a reload, and ejects a slot with a reason from the keyboard; the cabinet really
// ejects. Axe finds no violation at 1280 px and at 768 px, the reason dialog open included.
import { afterAll, describe, expect, it } from 'vitest';
import { SimulatedCabinet } from '../../server/src/demo/simulator/cabinet.ts';
import { axeViolations } from './axe.ts';
import { consoleInChromium } from './opsConsole.ts';

const env = consoleInChromium();
let sim: SimulatedCabinet | undefined;
afterAll(async () => sim?.stop());

describe('cabinets in the console', () => {
  it('registers a cabinet, sees it come online live, and ejects a slot with a reason', async () => {
    const { product, page, base } = env;
    const token = await product.app.powerly.staff.seedOwner('owner@powerly.local', 'Olivia Owner');
    await page.goto(`${base}/ops/#/invitation?token=${encodeURIComponent(token!)}`);
    await page.getByRole('button', { name: 'Create passkey and join' }).click();
    const nav = page.getByRole('navigation', { name: 'Main' });
    await nav.getByRole('link', { name: 'Cabinets' }).click();
    await page.getByRole('heading', { level: 1, name: 'Cabinets' }).waitFor();
    // The seeded fleet is listed, from the server's first page.
    await page.getByRole('link', { name: 'PWL-LIS-001' }).waitFor();
    expect(await axeViolations(page)).toEqual([]);

    // The browser checks the form first: a serial with a space is refused before anything is sent.
    const form = page.getByRole('region', { name: 'Register a cabinet' });
    await form.getByLabel('Serial').fill('PWL UI 001');
    await form.getByLabel('Number of slots').fill('4');
    await form.getByLabel('Reason').fill('new cabinet at the station');
    await form.getByRole('button', { name: 'Register' }).click();
    expect(await form.getByLabel('Serial').evaluate((e) => (e as HTMLInputElement).validity.valid)).toBe(false);
    await form.getByLabel('Serial').fill('PWL-UI-001');
    await form.getByRole('button', { name: 'Register' }).click();

    // The live view of the new cabinet: offline, never heard from.
    await page.getByRole('heading', { level: 2, name: 'Cabinet PWL-UI-001' }).waitFor();
    const facts = page.locator('dl.ops-facts').first();
    await facts.getByText('Offline').waitFor();
    await facts.getByText('Never').waitFor();
    await product.app.powerly.fleet.cabinets.registerDevice({ id: 'PB-UI-1', cabinetId: 'PWL-UI-001', slot: 1 });

    // The cabinet is switched on: the screen follows without a reload.
    sim = new SimulatedCabinet({
      cabinetId: 'PWL-UI-001',
      slots: ['PB-UI-1', null, null, null],
      connector: product.connector,
      prefix: product.prefix,
      clock: product.clock,
      heartbeatMs: 60_000,
    });
    await sim.start();
    await facts.getByText('Online').waitFor();
    const slots = page.getByRole('table', { name: 'Slots of cabinet PWL-UI-001' });
    const slot1 = slots.getByRole('row').filter({ has: page.getByRole('rowheader', { name: '1', exact: true }) });
    await slot1.getByText('PB-UI-1').waitFor();
    await slot1.getByText('100%').waitFor();
    await slot1.getByText('24°C').waitFor();
    expect(await axeViolations(page)).toEqual([]);

    // Eject slot 1 from the keyboard: the dialog asks why, focus starts in its field and comes back afterwards.
    const eject = slots.getByRole('button', { name: 'Eject slot 1' });
    await eject.focus();
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: 'Eject · slot 1' });
    await dialog.waitFor();
    await expect
      .poll(() =>
        page.evaluate(() => document.activeElement?.closest('dialog') !== null && document.activeElement?.tagName),
      )
      .toBe('INPUT');
    expect(await axeViolations(page)).toEqual([]);
    await page.keyboard.type('bank reported swollen');
    await page.keyboard.press('Enter');
    await expect.poll(() => dialog.isVisible()).toBe(false);
    await expect.poll(() => sim!.holds('PB-UI-1')).toBe(false);
    await slot1.getByText('Empty').waitFor();
    await page
      .getByRole('region', { name: 'Latest commands' })
      .getByText(/Eject · slot 1 · ejected/)
      .waitFor();
    await expect
      .poll(() => page.evaluate(() => document.activeElement?.getAttribute('aria-label')))
      .toBe('Eject slot 1');

    // The tablet layout: the same screen at 768 px, still without a violation.
    await page.setViewportSize({ width: 768, height: 1024 });
    expect(await axeViolations(page)).toEqual([]);
  });

  it('adds a Wi-Fi box into the cabinet from the Wi-Fi line, with no axe violation at 768 and 1280 px', async () => {
    const { page } = env;
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Wi-Fi line' }).click();
    await page.getByRole('heading', { level: 1, name: 'Wi-Fi line' }).waitFor();
    await page.getByRole('region', { name: 'Regions' }).getByRole('rowheader', { name: 'europe' }).waitFor();
    expect(await axeViolations(page)).toEqual([]);
    const form = page.getByRole('form', { name: 'New box' });
    await form.getByLabel('Serial').fill('MF-UI-1');
    await form.getByLabel('SSID').fill('Powerly-UI');
    await form.getByLabel('First Wi-Fi password').fill('first-pass-1');
    await form.getByLabel('Cabinet (optional)').fill('PWL-UI-001');
    await form.getByLabel('Slot').fill('3');
    await form.getByLabel('Reason').fill('new box for the station');
    await form.getByRole('button', { name: 'Add box' }).click();
    const boxes = page.getByRole('region', { name: 'Boxes' });
    await boxes.getByRole('link', { name: 'cabinet PWL-UI-001, slot 3' }).waitFor();
    await page.setViewportSize({ width: 1280, height: 800 });
    expect(await axeViolations(page)).toEqual([]);
  });

  it("sets a vendor cabinet's speaker volume with a reason; the level field is labelled, no axe violation at 768 px", async () => {
    const { product, page, base } = env;
    await product.app.powerly.fleet.cabinets.register({ id: 'BX-UI01', vendor: 'tcp60', slots: 2 });
    await product.db.query('update cabinets set online = true, last_seen_at = $2 where id = $1', [
      'BX-UI01',
      product.clock.now(),
    ]);
    await page.setViewportSize({ width: 768, height: 1024 });
    await page.goto(`${base}/ops/#/cabinets?id=BX-UI01`);
    await page.getByRole('heading', { level: 2, name: 'Cabinet BX-UI01' }).waitFor();
    const facts = page.locator('dl.ops-facts').first();
    await facts.getByText('Online').waitFor();
    await facts.getByText('Speaker volume').waitFor();
    await page.getByRole('button', { name: 'Set volume' }).click();
    const dialog = page.getByRole('dialog', { name: 'Set volume' });
    await dialog.waitFor();
    await dialog.getByLabel('Volume (0–100 %)').fill('30');
    expect(await axeViolations(page)).toEqual([]);
    await dialog.getByLabel('Reason').fill('quieter in the evening');
    await dialog.getByRole('button', { name: 'Send' }).click();
    await expect.poll(() => dialog.isVisible()).toBe(false);
    await page
      .getByRole('region', { name: 'Latest commands' })
      .getByText(/Set volume · sent/)
      .waitFor();
    const { rows } = await product.db.query<{ payload: { type: string; level: number } }>(
      `select payload from cabinet_commands where cabinet_id = 'BX-UI01'`,
    );
    expect(rows.map((r) => r.payload)).toEqual([expect.objectContaining({ type: 'set-volume', level: 30 })]);
    expect(await axeViolations(page)).toEqual([]);
  });
});
