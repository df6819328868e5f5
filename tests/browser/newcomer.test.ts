// More of the newcomer's rough edges, in Chromium against the real server: the balance on Me right after a top-up,
// the top-up's test cards and its amount, a deposit's release among the transactions, mobile money's test numbers,
// the name of a person signed in with Apple, the contact form's confirmation, and the map without a street map or
// a position. Each changed screen at 320 px in the longest language with text at 200 %, axe clean.
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { productInChromium } from './product.ts';
import { axeViolations } from './axe.ts';
import { fitsSmallAndLarge } from './fits.ts';
import { cardToken, touristToken } from '../../server/test/helper.ts';

const env = productInChromium();
const API = '/cdb-app-api/v1/app';
const hash = (page: Page) => page.evaluate(() => location.hash);

async function pageIn(
  lang: string,
  opts: { token?: string; width?: number; geolocation?: boolean } = {},
): Promise<Page> {
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

const inject = (method: 'GET' | 'POST', url: string, token: string, payload?: Record<string, unknown>) =>
  env.product.app.inject({
    method,
    url: `${API}/${url}`,
    headers: { token, 'idempotency-key': crypto.randomUUID() },
    ...(payload ? { payload } : {}),
  });

describe('the newcomer’s walk, continued', () => {
  it('a top-up shows its test cards and its amount as the figure paid; Me then shows the new balance at once', async () => {
    const page = await pageIn('en-US', { token: await touristToken(env.product.app) });
    // Me first, so the balance is read once before the top-up (the stale value the rider saw).
    await page.goto(`${env.product.base}/#/mine`);
    await page
      .getByRole('region', { name: 'Account' })
      .getByText(/^Balance/)
      .waitFor();
    await page.goto(`${env.product.base}/#/wallet_in?currency=USD`);
    const hint = page.getByRole('complementary', { name: 'Test mode' });
    await expect.poll(() => hint.textContent()).toContain('4242 4242 4242 4242');
    const amount = page.getByLabel(/^Amount/);
    const look = await amount.evaluate((el) => {
      const s = getComputedStyle(el);
      return {
        size: parseFloat(s.fontSize) / parseFloat(getComputedStyle(document.body).fontSize),
        weight: Number(s.fontWeight),
      };
    });
    expect(look.size).toBeGreaterThanOrEqual(1.5);
    expect(look.weight).toBeGreaterThanOrEqual(700);
    await fitsSmallAndLarge(page, '#/wallet_in');

    await page.getByRole('button', { name: '$30', exact: true }).click();
    await page.getByLabel('Card number').fill('4242 4242 4242 4242');
    await page.getByLabel('Expiry date (MM/YY)').fill('12/34');
    await page.getByLabel('CVC').fill('123');
    await page.getByRole('button', { name: 'Pay $30' }).click();
    await page.getByRole('dialog', { name: 'Top-up successful' }).getByRole('button', { name: 'OK' }).click();
    await expect.poll(() => hash(page)).toBe('#/mine');
    await expect.poll(() => page.getByRole('region', { name: 'Account' }).textContent()).toContain('Balance: $30');
  });

  it('a deposit held from the wallet comes back as a movement of its own, and the hold is no longer "Processing"', async () => {
    const token = await touristToken(env.product.app);
    const top = await inject('POST', 'cdb/payment/multicurrency/recharge', token, {
      amount: '100',
      currency: 'CNY',
      paymentId: 'card-sandbox',
      stripeToken: await cardToken(env.product.app),
    });
    expect(top.json().code).toBe(0);
    env.product.clock.advance(1000); // the movements are listed newest first
    const rent = await inject('GET', 'cdb/cabinet/useBalanceToRent?qrcode=PWL-SH-001', token);
    const orderId: string = rent.json().data.outTradNo;
    expect(orderId).toBeTruthy();
    const detail = async () => (await inject('GET', `cdb/mine/order/detail?orderId=${orderId}`, token)).json().data;
    await expect.poll(async () => (await detail()).pZujie, { timeout: 30_000 }).toBe(1);
    env.product.clock.advance(1000);
    // Back at once: the deposit (all of it, or what the rent left) returns to the wallet.
    const powerbankId = (
      await env.product.db.query<{ powerbank_id: string }>('select powerbank_id from orders where id = $1', [orderId])
    ).rows[0]!.powerbank_id;
    const back = await fetch(`${env.product.base}/demo-api/cabinets/PWL-SH-001/return`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ powerbankId }),
    });
    expect(back.status).toBe(200);
    await expect.poll(async () => (await detail()).pZujie, { timeout: 30_000 }).toBe(3);

    const page = await pageIn('lt-LT', { token });
    await page.goto(`${env.product.base}/#/wallet_list?currency=CNY`);
    const rows = page.locator('.movement');
    await expect.poll(() => rows.count()).toBe(3);
    const texts = await rows.allTextContents();
    expect(texts[0]).toMatch(/^Užstatas grąžintas.* · Atlikta\+/);
    expect(texts[1]).toMatch(/^Užstatas rezervuotas.* · Atlikta[−-]/);
    expect(texts[2]).toMatch(/^Papildymas.* · Atlikta\+/);
    expect(texts.join(' ')).not.toContain('Vykdoma');
    // The sign stays with its figure.
    await page.setViewportSize({ width: 320, height: 844 });
    await page.evaluate(() => (document.documentElement.style.fontSize = '200%'));
    for (const lines of await page
      .locator('.movement-amount')
      .evaluateAll((els) => els.map((el) => el.getClientRects().length)))
      expect(lines).toBe(1);
    await page.evaluate(() => (document.documentElement.style.fontSize = ''));
    await fitsSmallAndLarge(page, '#/wallet_list (lt-LT)');
  });

  it('mobile money lists only test phone numbers beside the phone field, with room before the Pay button', async () => {
    const page = await pageIn('en-US', { token: await touristToken(env.product.app) });
    await page.goto(
      `${env.product.base}/#/confirm?${new URLSearchParams({ payType: 'CZ', currency: 'GHS', price: '10', paymentId: 'flutterwave:Flutterwave_Mobile' })}`,
    );
    const hint = page.getByRole('complementary', { name: 'Test mode' });
    await expect.poll(() => hint.textContent()).toContain('054709929220');
    expect(await hint.textContent()).not.toContain('4187427415564246');
    const phone = await page.getByLabel('Phone number').boundingBox();
    const pay = await page.getByRole('button', { name: /^Pay/ }).boundingBox();
    expect(pay!.y).toBeGreaterThanOrEqual(phone!.y + phone!.height + 8);
    await fitsSmallAndLarge(page, '#/confirm (mobile money)');
  });

  it('a person signed in with Apple who gave no name is "My account", never an internal id', async () => {
    const minted = await env.product.app.inject({
      method: 'POST',
      url: '/sandbox-oauth/v1/token',
      payload: { provider: 'apple', sub: '001-44d9' },
    });
    const login = await env.product.app.inject({
      method: 'POST',
      url: `${API}/loginAppleByToken`,
      payload: { token: minted.json().token },
    });
    const token: string = login.json().data;
    expect(token).toBeTruthy();
    const page = await pageIn('en-US', { token });
    await page.goto(`${env.product.base}/#/mine`);
    const head = page.getByRole('region', { name: 'Account' });
    await expect.poll(() => head.textContent()).toContain('My account');
    expect(await head.textContent()).not.toMatch(/apple-/);
    expect(await page.locator('main .side-menu-avatar').textContent()).toBe('M');
  });

  it('the contact form confirms in words that stay: who will be answered and where', async () => {
    const page = await pageIn('pt-PT');
    await page.goto(`${env.product.base}/#/aboutUs`);
    const form = page.locator('form#join');
    await form.getByLabel(/^Nome/).fill('Ana');
    await form.getByLabel(/^E-mail/).fill('ana@example.com');
    await form.getByLabel(/^Telemóvel|^Número/).fill('+351 912 345 678');
    await form.getByLabel(/^País/).fill('Portugal');
    await form.getByRole('button', { name: 'Enviar' }).click();
    const status = form.getByRole('status');
    await expect
      .poll(() => status.textContent())
      .toBe('Obrigado, Ana. A sua mensagem foi enviada; responderemos para ana@example.com.');
    await fitsSmallAndLarge(page, '#/aboutUs (sent, pt-PT)');
    // Typing again clears it.
    await form.getByLabel(/^Nome/).fill('A');
    await expect.poll(() => status.textContent()).toBe('');
  });

  it('the map says when it has no street map or no position, under the map, leaving "Scan to rent" clear', async () => {
    const page = await pageIn('en-US', { token: await touristToken(env.product.app) });
    await page.goto(`${env.product.base}/#/homeMap`);
    await page.getByText('The street map could not be loaded (no connection?). The venues are listed below.').waitFor();
    // Nothing around the default centre: the status says so of this part of the map, above the nearest cabinets.
    await page.getByRole('heading', { name: 'Nearest cabinets with power banks' }).waitFor();
    await expect
      .poll(() => page.locator('.map-status').textContent())
      .toContain('No equipment in this part of the map.');
    // The browser was not allowed to tell where the user is: said under the map, not in a toast over the scan button.
    await page.locator('.map-status').getByText('Geolocation service failed').waitFor();
    expect(await page.locator('.toast').count()).toBe(0);
    const scan = await page.getByRole('button', { name: 'Scan to rent' }).boundingBox();
    expect(scan).not.toBeNull();
    expect(await hash(page)).toBe('#/homeMap');
    expect(await axeViolations(page)).toEqual([]);
  });

  it('the wallet opened from a rental keeps its price and leads back; adding a card asks no method when there is one', async () => {
    const page = await pageIn('en-US', { token: await touristToken(env.product.app) });
    await page.goto(
      `${env.product.base}/#/wallet?${new URLSearchParams({ type: 'cdb', qrcode: 'PWL-LIS-001', price: '25', pmid: 'card-sandbox' })}`,
    );
    const back = page.getByRole('link', { name: 'Back to renting' });
    await back.waitFor();
    expect(await back.getAttribute('href')).toBe('#/?qrcode=PWL-LIS-001');
    // Saving a card: the card form at once, never a list of payment methods with PayPal in it.
    await page.getByRole('button', { name: 'Add card' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add card' });
    await dialog.getByLabel('Card number').waitFor();
    expect(await dialog.getByLabel('Payment method').count()).toBe(0);
    expect(await dialog.textContent()).not.toContain('PayPal');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await fitsSmallAndLarge(page, '#/wallet (from a rental)');
    await page.getByRole('link', { name: 'Top up' }).click();
    await expect.poll(() => page.getByLabel(/^Amount/).inputValue()).toBe('25');
  });

  it('an Apple ID token the native host hands over after the person chose to sign in brings them back to sign in', async () => {
    const minted = await env.product.app.inject({
      method: 'POST',
      url: '/sandbox-oauth/v1/token',
      payload: { provider: 'apple', sub: '002-host', name: 'Ana Apple' },
    });
    const page = await pageIn('en-US');
    await page.goto(`${env.product.base}/#/login`);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    // The host opens the app again, on another route, with the token.
    await page.goto(`${env.product.base}/#/homeMap?AppleIdToken=${encodeURIComponent(minted.json().token)}`);
    await expect.poll(() => page.evaluate(() => localStorage.getItem('token') ?? ''), { timeout: 20_000 }).not.toBe('');
    await expect.poll(() => hash(page)).toBe('#/homeMap');
    await page.goto(`${env.product.base}/#/mine`);
    await expect.poll(() => page.getByRole('region', { name: 'Account' }).textContent()).toContain('Ana Apple');
  });

  it('/result ends a successful rental with its success picture', async () => {
    const token = await touristToken(env.product.app);
    const rent = await inject('POST', 'cdb/cabinet/useDepositToRent', token, {
      qrcode: 'PWL-VNO-001',
      stripeToken: await cardToken(env.product.app),
      paymentId: 'card-sandbox',
    });
    const tradeNo: string = rent.json().data.outTradeNo;
    expect(tradeNo).toBeTruthy();
    const page = await pageIn('en-US', { token });
    await page.goto(`${env.product.base}/#/result?tradeNo=${tradeNo}&payMode=YJ`);
    await page.getByTestId('success-icon').waitFor({ timeout: 30_000 });
    expect(await page.getByTestId('fail-icon').count()).toBe(0);
    expect(await axeViolations(page)).toEqual([]);
  });

  it('buying the power bank from its order goes through payType overbuy and leads to the receipt (/invoiceOrderDtl)', async () => {
    const token = await touristToken(env.product.app);
    const rent = await inject('POST', 'cdb/cabinet/useDepositToRent', token, {
      qrcode: 'PWL-LIS-001',
      stripeToken: await cardToken(env.product.app),
      paymentId: 'card-sandbox',
    });
    const orderId: string = rent.json().data.outTradeNo;
    await expect
      .poll(async () => (await inject('GET', `cdb/mine/order/detail?orderId=${orderId}`, token)).json().data.pZujie, {
        timeout: 30_000,
      })
      .toBe(1);
    const page = await pageIn('en-US', { token });
    await page.goto(`${env.product.base}/#/orderDetail?orderId=${orderId}`);
    await page.getByRole('button', { name: 'Buy this power bank' }).click();
    // The order screen leads to the payment of its own kind (payType overbuy), which says what it costs.
    await expect.poll(() => hash(page)).toMatch(new RegExp(`^#/confirm\\?payType=overbuy&orderId=${orderId}&`));
    await page.getByRole('button', { name: /^Buy the power bank for €\d/ }).click();
    await expect.poll(() => hash(page)).toBe(`#/invoiceOrderDtl?orderId=${orderId}`);
  });
});
