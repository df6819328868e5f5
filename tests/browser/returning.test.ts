// A rider who comes back, in Chromium against the real server: the card they saved is offered when they pay a
// deposit, a top-up can save its card for the next payments, and the Wi-Fi mall names packages in their language. Each changed screen at 320 px in the longest language with text at 200 %, axe clean.
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { continueToCabinetHome, productInChromium } from './product.ts';
import { fitsSmallAndLarge } from './fits.ts';
import { cardToken, touristToken } from '../../server/test/helper.ts';

const env = productInChromium();
const API = '/cdb-app-api/v1/app';
const hash = (page: Page) => page.evaluate(() => location.hash);

async function pageIn(lang: string, token: string, width = 390): Promise<Page> {
  const context = await env.browser.newContext({ viewport: { width, height: 844 }, locale: 'en-US' });
  await context.addInitScript(
    ([l, t]) => {
      localStorage.setItem('lang', l!);
      localStorage.setItem('token', t!);
    },
    [lang, token] as const,
  );
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  return page;
}

const post = (url: string, token: string, payload?: Record<string, unknown>) =>
  env.product.app.inject({
    method: 'POST',
    url: `${API}/${url}`,
    headers: { token, 'idempotency-key': crypto.randomUUID() },
    ...(payload ? { payload } : {}),
  });

/** A card saved from the wallet ("Add card"), as the rider did on an earlier visit. */
async function saveCard(token: string, number: string): Promise<string> {
  const setup = (await post('cdb/user/card/save?paymentId=card-sandbox&currency=EUR', token)).json().data;
  const saved = await post('cdb/user/card/confirm', token, {
    paymentId: setup.paymentId,
    clientSecret: setup.clientSecret,
    paymentMethod: await cardToken(env.product.app, number),
  });
  return saved.json().data.pId;
}

describe('a returning rider', () => {
  it('pays a deposit with the card saved before: it is offered, chosen, and paid with one button', async () => {
    const token = await touristToken(env.product.app);
    await saveCard(token, '5555 5555 5555 4444');
    const page = await pageIn('en-US', token);
    await page.goto(`${env.product.base}/#/?qrcode=PWL-VNO-001`);
    await continueToCabinetHome(page);
    await page.getByRole('button', { name: /^Hold / }).click();
    const payWith = page.getByLabel('Pay with');
    await expect
      .poll(() => payWith.evaluate((el: HTMLSelectElement) => el.selectedOptions[0]?.textContent), { timeout: 20_000 })
      .toBe('**** **** **** 4444');
    // No card to type while the saved one is chosen; "A new card" brings the form back.
    expect(await page.getByLabel('Card number').count()).toBe(0);
    await payWith.selectOption({ label: 'A new card' });
    await page.getByLabel('Card number').waitFor();
    await payWith.selectOption({ label: '**** **** **** 4444' });
    await page.getByRole('button', { name: /^Authorize/ }).click();
    await page.getByRole('status').filter({ hasText: 'Your power bank is out!' }).waitFor({ timeout: 30_000 });
    expect(await hash(page)).toMatch(/^#\/borrowSuccess/);
  });

  it('the saved card on the payment screen fits 320 px in Lithuanian at 200 % text, axe clean', async () => {
    const token = await touristToken(env.product.app);
    await saveCard(token, '4242 4242 4242 4242');
    const page = await pageIn('lt-LT', token);
    await page.goto(`${env.product.base}/#/confirm?payType=YJ&qrcode=PWL-VNO-001&price=30&yaJinType=0`);
    await expect
      .poll(
        () =>
          page.locator('#confirm-saved-card').evaluate((el: HTMLSelectElement) => el.selectedOptions[0]?.textContent),
        { timeout: 20_000 },
      )
      .toBe('**** **** **** 4242');
    const box = await page.locator('main button.primary').boundingBox();
    expect(box!.height).toBeGreaterThanOrEqual(44);
    await fitsSmallAndLarge(page, '#/confirm with a saved card (lt-LT)');
  });

  it('a top-up saves its card when asked, and the next top-up offers it first', async () => {
    const token = await touristToken(env.product.app);
    const page = await pageIn('es-ES', token);
    await page.goto(`${env.product.base}/#/wallet_in?currency=EUR`);
    const save = page.getByRole('checkbox', { name: 'Guardar esta tarjeta para mis próximos pagos' });
    await save.waitFor();
    const row = await page.locator('label.check-row').boundingBox();
    expect(row!.height).toBeGreaterThanOrEqual(44);
    await fitsSmallAndLarge(page, '#/wallet_in with "save this card" (es-ES)');
    await page.getByLabel('Número de tarjeta').fill('5555 5555 5555 4444');
    await page.getByLabel(/MM\/AA/).fill('12/34');
    await page.getByLabel('CVC').fill('123');
    await save.check();
    await page.locator('form.card-form button[type=submit]').click();
    await page.getByRole('dialog').getByRole('button').first().click();
    await expect.poll(() => hash(page)).toBe('#/mine');
    await page.goto(`${env.product.base}/#/wallet_in?currency=EUR&price=30`);
    const payWith = page.locator('#topup-card');
    await expect
      .poll(() => payWith.evaluate((el: HTMLSelectElement) => el.selectedOptions[0]?.textContent).catch(() => ''))
      .toBe('**** **** **** 4444');
    expect(await page.getByLabel('Número de tarjeta').count()).toBe(0);
    await page.locator('main button.primary').click();
    await page.getByRole('dialog').getByRole('button').first().click();
    await expect
      .poll(
        async () =>
          (await env.product.app.inject({ method: 'GET', url: `${API}/cdb/user/wallet/new`, headers: { token } }))
            .json()
            .data.find((w: { pCurrencyType: string }) => w.pCurrencyType === 'EUR')?.pBalance,
      )
      .toBe(40);
  });

  it('the mall names each package by its place, its name and its plan in the rider’s language, never by its SKU', async () => {
    const page = await pageIn('es-ES', await touristToken(env.product.app));
    await page.goto(`${env.product.base}/#/wifiMall?type=GM`);
    await page.getByRole('navigation', { name: 'Países y regiones' }).getByRole('button', { name: 'Alemania' }).click();
    const titles = page.locator('.mifi-card h3');
    await expect
      .poll(async () => (await titles.allTextContents()).sort())
      .toEqual(['Alemania · Daily · 3 días', 'Alemania · Daily · Ilimitado', 'Alemania · Light · 500 MB']);
    await page.getByRole('button', { name: 'Elegir Alemania · Daily · 3 días' }).click();
    const dialog = page.locator('dialog[open]');
    await expect.poll(() => dialog.getByRole('radio', { name: /^Alemania · Daily · 3 días / }).isChecked()).toBe(true);
    expect(await dialog.textContent()).not.toMatch(/Germany|Unlimited|\dDays/);
    await fitsSmallAndLarge(page, '#/wifiMall variant dialog (es-ES)');
  });
});
