// The rough edges a newcomer met on a phone, in Chromium against the real server: the Wi-Fi mall opens on the
// plan of the card chosen; the borrow screen prices the Wi-Fi box by its own deposit; the method picker's rows;
// every target at least 44 × 44 px in Chinese; each changed screen at 320 px in the longest language and with
// text at 200 %, axe clean.
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { productInChromium } from './product.ts';
import { axeViolations } from './axe.ts';
import { fitsSmallAndLarge } from './fits.ts';
import { touristToken } from '../../server/test/helper.ts';

const env = productInChromium();

const hash = (page: Page) => page.evaluate(() => location.hash);

async function pageIn(lang: string, opts: { token?: string; width?: number } = {}): Promise<Page> {
  const context = await env.browser.newContext({
    viewport: { width: opts.width ?? 390, height: 844 },
    locale: 'en-US',
  });
  await context.addInitScript(
    ([l, t]) => {
      localStorage.setItem('lang', l!);
      if (t) localStorage.setItem('token', t);
    },
    [lang, opts.token ?? ''] as const,
  );
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  return page;
}

/** The visible buttons and links smaller than 44 × 44 px, as "text w×h". */
function smallTargets(page: Page, scope = 'main') {
  return page.evaluate(
    (sel) =>
      [...document.querySelectorAll(`${sel} a, ${sel} button`)]
        .map((el) => ({ el, r: el.getBoundingClientRect() }))
        .filter(({ r }) => r.width > 0 && r.height > 0 && (r.width < 44 || r.height < 44))
        .map(({ el, r }) => `${el.textContent?.trim()} ${Math.round(r.width)}×${Math.round(r.height)}`),
    scope,
  );
}

async function scanned(page: Page, cabinet: string) {
  await page.goto(`${env.product.base}/#/?qrcode=${cabinet}`);
  await expect.poll(() => hash(page), { timeout: 20_000 }).toMatch(/^#\/selectPakage/);
}

describe('the newcomer’s walk', () => {
  it('the Wi-Fi box is priced by its own deposit, and the mall selects the plan of the card chosen', async () => {
    const page = await pageIn('en-US');
    await scanned(page, 'PWL-LIS-001');
    const screen = page.locator('main.select-pakage');
    await screen.getByRole('radio', { name: 'Wi-Fi box' }).check();
    const box = screen.getByTestId('box-price');
    await expect.poll(() => box.textContent()).toContain('Box deposit€50');
    expect(await screen.getByText('€30').count()).toBe(0);
    await expect.poll(() => screen.getByTestId('stock').textContent()).toMatch(/^\d+ Wi-Fi box(es)? to pick up$/);
    await screen.getByRole('button', { name: 'Continue', exact: true }).click();
    await expect.poll(() => hash(page)).toMatch(/^#\/wifiMall\?type=QR/);

    await page.getByLabel('Search a country or package').fill('portugal');
    await page.getByRole('button', { name: 'Choose Portugal · Daily · 3 days' }).click();
    const dialog = page.locator('dialog[open]');
    await expect.poll(() => dialog.getByRole('radio', { name: /^Portugal · Daily · 3 days / }).isChecked()).toBe(true);
    expect(await dialog.getByRole('radio', { name: /^Portugal · Daily · Unlimited / }).isChecked()).toBe(false);
    expect(await dialog.getByTestId('days').textContent()).toBe('3');
  });

  it('the borrow screen, power bank and Wi-Fi box, fits 320 px in Lithuanian at 200 % text', async () => {
    const page = await pageIn('lt-LT');
    await scanned(page, 'PWL-LIS-001');
    const screen = page.locator('main.select-pakage');
    await screen.getByTestId('stock').waitFor();
    await fitsSmallAndLarge(page, '#/selectPakage (power bank, lt-LT)');
    await screen.locator('input[value="mifi"]').check();
    await screen.getByTestId('box-price').waitFor();
    await fitsSmallAndLarge(page, '#/selectPakage (Wi-Fi box, lt-LT)');
  });

  it('the method picker shows one row per method, the radio beside its name, with room before Continue', async () => {
    const page = await pageIn('en-US', { token: await touristToken(env.product.app) });
    await page.goto(
      `${env.product.base}/#/payMethod?${new URLSearchParams({ payType: 'CZ', currency: 'EUR', price: '10' })}`,
    );
    const rows = page.locator('.radio-row');
    await expect.poll(() => rows.count()).toBeGreaterThan(1);
    const boxes = await rows.evaluateAll((els) =>
      els.map((el) => {
        const r = el.getBoundingClientRect();
        const i = el.querySelector('input')!.getBoundingClientRect();
        const s = el.querySelector('span')!.getBoundingClientRect();
        return {
          top: r.top,
          bottom: r.bottom,
          height: r.height,
          inputMid: (i.top + i.bottom) / 2,
          spanTop: s.top,
          spanBottom: s.bottom,
          spanLeft: s.left,
          inputRight: i.right,
        };
      }),
    );
    for (const b of boxes) {
      expect(b.height).toBeGreaterThanOrEqual(44);
      // The radio and its name on one line: the name beside the radio, level with it.
      expect(b.spanLeft).toBeGreaterThan(b.inputRight);
      expect(b.inputMid).toBeGreaterThan(b.spanTop);
      expect(b.inputMid).toBeLessThan(b.spanBottom);
    }
    // One row under the other, apart.
    for (let i = 1; i < boxes.length; i++) expect(boxes[i]!.top).toBeGreaterThanOrEqual(boxes[i - 1]!.bottom + 4);
    const labels = await rows.locator('span').allTextContents();
    expect(new Set(labels).size, labels.join(', ')).toBe(labels.length);
    const cont = await page.getByRole('button', { name: 'Continue' }).boundingBox();
    expect(cont!.y).toBeGreaterThanOrEqual(boxes.at(-1)!.bottom + 8);
    await fitsSmallAndLarge(page, '#/payMethod');
  });

  it('in Chinese every target of the borrow screen and of About us is at least 44 × 44 px', async () => {
    const page = await pageIn('zh-CN');
    await scanned(page, 'PWL-SH-001');
    await expect.poll(() => page.evaluate(() => document.documentElement.lang)).toBe('zh-CN');
    await page.locator('main.select-pakage .legal button').first().waitFor();
    expect(await smallTargets(page)).toEqual([]);
    await page.goto(`${env.product.base}/#/aboutUs`);
    await page.locator('main .contact-list a').first().waitFor();
    expect(await smallTargets(page)).toEqual([]);
  });

  it('the mall names countries and regions in the language of the user (Intl.DisplayNames)', async () => {
    const page = await pageIn('es-ES', { token: await touristToken(env.product.app) });
    await page.goto(`${env.product.base}/#/wifiMall?type=GM`);
    const places = page.getByRole('navigation', { name: 'Países y regiones' });
    await places.getByRole('button', { name: 'Alemania' }).waitFor();
    expect(await places.getByRole('button').allTextContents()).toContain('Europa');
    expect(await places.getByRole('button', { name: 'Estados Unidos' }).count()).toBe(1);
    expect(await places.getByRole('button', { name: 'Germany' }).count()).toBe(0);
    await places.getByRole('button', { name: 'Alemania' }).click();
    await expect.poll(() => page.locator('.mifi-card p.muted').first().textContent()).toMatch(/^Alemania · /);
    await fitsSmallAndLarge(page, '#/wifiMall (es-ES)');
  });

  it('a guest signs in from the menu and from Me, with one initial; both lead back to the Wi-Fi packages and the mall', async () => {
    const page = await pageIn('en-US', { token: await touristToken(env.product.app) });
    await page.goto(`${env.product.base}/#/mine`);
    const head = page.getByRole('region', { name: 'Account' });
    await expect.poll(() => head.textContent()).toContain('Guest');
    expect(await page.locator('main .side-menu-avatar').textContent()).toBe('G');
    expect(await head.getByRole('button', { name: 'Log in / Sign up' }).count()).toBe(1);
    await fitsSmallAndLarge(page, '#/mine (guest)');
    await page.getByRole('button', { name: 'My Wi-Fi packages' }).click();
    await expect.poll(() => hash(page)).toBe('#/scanOrder');

    await page.goto(`${env.product.base}/#/mine`);
    await page.getByRole('button', { name: 'Open menu' }).click();
    const menu = page.locator('dialog.side-menu[open]');
    await expect.poll(() => menu.locator('.side-menu-avatar').textContent()).toBe('G');
    expect(await menu.getByRole('button', { name: 'Wi-Fi data packages' }).count()).toBe(1);
    expect(await axeViolations(page), 'side menu').toEqual([]);
    await menu.getByRole('button', { name: 'Log in / Sign up' }).click();
    await expect.poll(() => hash(page)).toMatch(/^#\/login/);
  });

  it('no equipment is offered for sale where none is configured: no entry, and the page says so with no price', async () => {
    const page = await pageIn('en-US', { token: await touristToken(env.product.app) });
    await page.goto(`${env.product.base}/#/mine`);
    await page.getByRole('button', { name: 'My Wi-Fi packages' }).waitFor();
    expect(await page.getByRole('button', { name: 'Buy equipment' }).count()).toBe(0);
    await page.goto(`${env.product.base}/#/shop`);
    await page.getByText('Equipment is not sold in this app.', { exact: false }).waitFor();
    expect(await page.locator('main').textContent()).not.toMatch(/[¥$€]|Shenzhen/);
    await fitsSmallAndLarge(page, '#/shop');
  });

  it('the first screen after a scan takes the focus on its title without a ring; after a key press the ring shows', async () => {
    const page = await pageIn('en-US');
    await scanned(page, 'PWL-LIS-001');
    const focused = () =>
      page.evaluate(() => {
        const a = document.activeElement as HTMLElement;
        return `${a.tagName} ${getComputedStyle(a).outlineStyle}`;
      });
    await expect.poll(focused).toBe('H1 none');
    // A keyboard user's navigation: the title's ring is shown.
    await page.keyboard.press('Shift');
    await page.evaluate(() => (location.hash = '#/aboutUs'));
    await expect.poll(focused).toBe('H1 solid');
  });
});
