// The rider screens changed last, each as a phone user in the longest language (Lithuanian) meets it, in Chromium
// against the real server: opened at 320 × 640, and again with text at 200 %: nothing wider than the phone, every
// button, link and field at least 44 × 44 px, axe clean. The camera scan without a camera, the result of a rental
// that started and of one whose eject failed, About us (in the app and as the host's web view), the Wi-Fi mall opened
// on the scanned cabinet's country, the box-only order's payment (a package bought without its box), buying the power
// bank (payType overbuy), "System not supported" and the payment-method picker with a saved card.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { productInChromium } from './product.ts';
import { fitsSmallAndLarge } from './fits.ts';
import { cardToken, touristToken } from '../../server/test/helper.ts';
import { packagePrice } from '../../src/core/mifi.ts';

const env = productInChromium();
const API = '/cdb-app-api/v1/app';
const LANG = 'lt-LT';
const json = (path: string) => JSON.parse(readFileSync(new URL(`../../locales/${path}`, import.meta.url), 'utf8'));
const lt = {
  ...json(`${LANG}.json`),
  mifi: json(`mifi/${LANG}.json`).mifi,
  payMethod: json(`pay/${LANG}.json`).payMethod,
};
const hash = (page: Page) => page.evaluate(() => location.hash);

async function phone(token = '', init?: () => void): Promise<Page> {
  const context = await env.browser.newContext({ viewport: { width: 320, height: 640 }, locale: 'en-US' });
  await context.addInitScript(
    ([l, t]) => {
      localStorage.setItem('lang', l!);
      if (t) localStorage.setItem('token', t);
    },
    [LANG, token] as const,
  );
  if (init) await context.addInitScript(init);
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  return page;
}

/** The screen has its strings and its data: the language is on, no loading indicator is left, the fonts are in. */
async function settled(page: Page) {
  await expect.poll(() => page.evaluate(() => document.documentElement.lang)).toBe(LANG);
  await expect.poll(() => page.locator('main .loading').count()).toBe(0);
  await page.evaluate(() => document.fonts.ready.then(() => undefined));
}

async function fits(page: Page, what: string) {
  await settled(page);
  await fitsSmallAndLarge(page, `${what} (${LANG})`, { targets: true });
}

const post = (url: string, token: string, payload: object) =>
  env.product.app.inject({
    method: 'POST',
    url: `${API}/${url}`,
    headers: { token, 'idempotency-key': crypto.randomUUID() },
    payload,
  });
const get = (url: string, token: string) =>
  env.product.app.inject({ method: 'GET', url: `${API}/${url}`, headers: { token } });

/** A rental paid with a card's deposit at a cabinet; its order number. */
async function rented(token: string, qrcode: string): Promise<string> {
  const rent = await post('cdb/cabinet/useDepositToRent', token, {
    qrcode,
    stripeToken: await cardToken(env.product.app),
    paymentId: 'card-sandbox',
  });
  const tradeNo: string | undefined = rent.json().data?.outTradeNo;
  expect(tradeNo, rent.body).toBeTruthy();
  return tradeNo!;
}

describe(`the changed rider screens at 320 px in ${LANG}, with text at 200 %`, () => {
  it('the camera scan without a camera: its message and the typed code', async () => {
    const page = await phone(await touristToken(env.product.app));
    await page.goto(`${env.product.base}/#/scanQr`);
    await expect.poll(() => page.getByRole('alert').count()).toBe(1);
    await page.locator('main input').first().waitFor();
    await fits(page, '#/scanQr without a camera');
  });

  it('/result: a rental that started, and one whose eject failed', async () => {
    const token = await touristToken(env.product.app);
    const page = await phone(token);
    await page.goto(`${env.product.base}/#/result?tradeNo=${await rented(token, 'PWL-VNO-001')}&payMode=YJ`);
    await page.getByTestId('success-icon').waitFor({ timeout: 30_000 });
    await fits(page, '#/result, success');

    // Another rider (one rental at a time each), whose eject fails.
    const other = await touristToken(env.product.app);
    const failing = await phone(other);
    await fetch(`${env.product.base}/demo-api/cabinets/PWL-SH-001/fail-next-eject`, { method: 'POST' });
    await failing.goto(`${env.product.base}/#/result?tradeNo=${await rented(other, 'PWL-SH-001')}&payMode=YJ`);
    await failing.getByTestId('fail-icon').waitFor({ timeout: 30_000 });
    await expect
      .poll(() => failing.getByTestId('money-note').getAttribute('data-state'), { timeout: 30_000 })
      .toBe('scheduled');
    await fits(failing, '#/result, failed');
  });

  it('About us, in the app and as the host’s web view', async () => {
    const page = await phone();
    await page.goto(`${env.product.base}/#/aboutUs`);
    await page.locator('main .contact-list a').first().waitFor();
    await fits(page, '#/aboutUs');
    await page.goto(`${env.product.base}/#/aboutUsApp/${LANG}`);
    await page.reload();
    await page.getByRole('heading', { level: 1, name: lt.about.title }).waitFor();
    await page.locator('main .contact-list a').first().waitFor();
    await fits(page, `#/aboutUsApp/${LANG}`);
  });

  it('the Wi-Fi mall opened on the scanned cabinet’s country', async () => {
    const page = await phone();
    await page.goto(`${env.product.base}/#/?qrcode=PWL-LIS-001`);
    await expect.poll(() => hash(page), { timeout: 20_000 }).toMatch(/^#\/selectPakage/);
    const screen = page.locator('main.select-pakage');
    await screen.locator('input[value="mifi"]').check();
    await screen.getByTestId('box-price').waitFor();
    await screen.locator('button.block.primary').click();
    await expect.poll(() => hash(page)).toMatch(/^#\/wifiMall\?type=QR/);
    await expect.poll(() => page.locator('.mifi-list > li').count()).toBe(3);
    await expect
      .poll(() => page.locator('.mifi-places [aria-pressed="true"], nav [aria-pressed="true"]').count())
      .toBe(1);
    await fits(page, '#/wifiMall on the cabinet’s country');
  });

  it('the box only (order type 3): the box deposit of a package bought without its box', async () => {
    const token = await touristToken(env.product.app);
    const query = await post('chargenow/mifi/query', token, {
      requestMethod: 'POST',
      url: 'packageDtlListBySkuId',
      data: JSON.stringify({ skuId: 'fr-3d', currency: 'EUR' }),
    });
    const v = (
      JSON.parse(query.json().data) as { skuId: string; price: number; isPackage: boolean; Day: number }[]
    ).find((x) => x.skuId === 'fr-3d')!;
    const total = packagePrice({ isPackage: v.isPackage, price: Math.round(v.price * 100), selectDays: v.Day }) / 100;
    const bought = await post('chargenow/mifi/rent', token, {
      paymentId: 'card-sandbox',
      stripeToken: await cardToken(env.product.app),
      orderSubmit: {
        orderType: 2,
        currency: 'EUR',
        totalAmount: total,
        submitDtlDtoList: [{ skuId: 'fr-3d', selectDays: v.Day }],
      },
    });
    expect(bought.json().code, bought.body).toBe(0);
    const page = await phone(token);
    await page.goto(`${env.product.base}/#/scanOrder`);
    await page.getByRole('button', { name: lt.mifi.pickupScan }).first().click();
    await expect.poll(() => hash(page)).toMatch(/^#\/pickUp\?orderId=/);
    await page.locator('a[href*="mifiDeposit=1"]').click();
    await expect.poll(() => hash(page)).toMatch(/^#\/confirm\?.*mifiDeposit=1/);
    await page.locator('main button.primary').first().waitFor();
    await fits(page, '#/confirm, the box deposit');
  });

  it('buying the power bank (payType overbuy)', async () => {
    const token = await touristToken(env.product.app);
    const orderId = await rented(token, 'PWL-LIS-001');
    await expect
      .poll(async () => (await get(`cdb/mine/order/detail?orderId=${orderId}`, token)).json().data.pZujie, {
        timeout: 30_000,
      })
      .toBe(1);
    const page = await phone(token);
    await page.goto(`${env.product.base}/#/orderDetail?orderId=${orderId}`);
    await page.getByRole('button', { name: lt.orderActions.buy }).click();
    await expect.poll(() => hash(page)).toMatch(/^#\/confirm\?payType=overbuy&/);
    await page.locator('main button.primary').first().waitFor();
    await fits(page, '#/confirm?payType=overbuy');
  });

  it('"System not supported": the only method offered (Apple Pay) does not work on this Android phone', async () => {
    const page = await phone(await touristToken(env.product.app));
    // The server's answer, kept to what an agent offering only Apple Pay lists (every test agent also has the card);
    // the phone is Android, where Apple Pay cannot pay.
    await page.route('**/cdb/payment/method/list?**', async (route) => {
      const res = await route.fetch();
      const body = (await res.json()) as { data: { pPaymentType: string }[] };
      await route.fulfill({
        response: res,
        json: { ...body, data: body.data.filter((m) => m.pPaymentType === 'APPLE_PAY') },
      });
    });
    await page.addInitScript(() =>
      Object.defineProperty(navigator, 'userAgent', {
        value:
          'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Mobile Safari/537.36',
      }),
    );
    await page.goto(`${env.product.base}/#/payMethod?payType=CZ&currency=EUR&price=10`);
    await expect.poll(() => page.getByRole('alert').textContent()).toBe(lt.payMethod.systemUnsupported);
    await fits(page, '#/payMethod, System not supported');
  });

  it('the payment-method picker and the payment with a saved card offered', async () => {
    const token = await touristToken(env.product.app);
    const setup = (await post('cdb/user/card/save?paymentId=card-sandbox&currency=EUR', token, {})).json().data;
    const saved = await post('cdb/user/card/confirm', token, {
      paymentId: setup.paymentId,
      clientSecret: setup.clientSecret,
      paymentMethod: await cardToken(env.product.app),
    });
    expect(saved.json().data.pId).toBeTruthy();
    const page = await phone(token);
    await page.goto(`${env.product.base}/#/payMethod?payType=CZ&currency=EUR&price=10`);
    await expect.poll(() => page.locator('.radio-row').count()).toBeGreaterThan(1);
    await fits(page, '#/payMethod with a saved card');
    await page.locator('form button[type=submit]').click();
    await expect.poll(() => hash(page)).toMatch(/^#\/confirm\?/);
    const select = page.locator('main select').first();
    await expect
      .poll(() => select.evaluate((el: HTMLSelectElement) => el.selectedOptions[0]?.textContent), { timeout: 20_000 })
      .toBe('**** **** **** 4242');
    await fits(page, '#/confirm with a saved card offered');
  });
});
