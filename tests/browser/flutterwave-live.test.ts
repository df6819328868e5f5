// Flutterwave's card form configured live in Chromium, its API served by the Flutterwave test server
// (server/test/providers/flutterwave.ts): "Save this card", a card whose issuer asks for an OTP (the confirm screen's
// OTP step: a wrong code's error, the right code pays), then the saved card offered and paid with again; axe clean.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { startProduct, type RunningProduct } from './product.ts';
import { launchChromium } from './chromium.ts';
import { touristToken } from '../../server/test/helper.ts';
import { FakeFlutterwave } from '../../server/test/providers/flutterwave.ts';
import { axeViolations } from './axe.ts';

const KEYS = {
  secretKey: 'FLWSECK_TEST-0123456789abcdef0123456789abcdef-X',
  encryptionKey: 'FLWSECK_TEST0123456789ab',
  secretHash: 'powerly-webhook-hash-7f3a',
};
let flw: FakeFlutterwave;
let product: RunningProduct;
let browser: Browser;

beforeAll(async () => {
  flw = await new FakeFlutterwave(KEYS).start();
  // Flutterwave documents no card that asks for an OTP at once: this one does, on the test server.
  flw.extraCards['5399000000000008'] = { auth: 'otp', outcome: 'ok', cvv: '123', brand: 'MASTERCARD' };
  product = await startProduct({
    simulator: false,
    paymentMethods: { powerly: { flutterwave: { ...KEYS, apiBase: flw.base } } },
  });
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await product?.close();
  await flw?.stop();
});

async function signedIn(token: string, lang?: string): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 320, height: 700 } });
  await context.addInitScript(
    ([t, l]) => {
      localStorage.setItem('token', t!);
      if (l) localStorage.setItem('lang', l);
    },
    [token, lang],
  );
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  return page;
}
const topUpUrl = (price: string) =>
  `${product.base}/#/confirm?${new URLSearchParams({ payType: 'CZ', currency: 'NGN', price, paymentId: 'flutterwave:Flutterwave' }).toString()}`;

async function paid(page: Page) {
  await page.getByRole('dialog', { name: 'Top-up successful' }).waitFor({ timeout: 30_000 });
  await page.getByRole('button', { name: 'OK' }).click();
}

describe('Flutterwave card, live', () => {
  it('saves the card while paying with an OTP card (wrong code refused, right code pays); then pays with the saved card', async () => {
    const token = await touristToken(product.app);
    const page = await signedIn(token);
    await page.goto(topUpUrl('700'));
    await page.getByLabel('Card number').fill('5399 0000 0000 0008');
    await page.getByLabel('Expiry month (MM)').fill('09');
    await page.getByLabel('Expiry year (YY)').fill('32');
    await page.getByLabel('CVV').fill('123');
    await page.getByLabel('E-mail').fill('ada@powerly.example');
    const save = page.getByLabel('Save this card for my next payments');
    expect((await save.locator('xpath=..').boundingBox())!.height).toBeGreaterThanOrEqual(44);
    await save.check();
    await page.getByText('we keep only its reference and last 4 digits').waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await page.getByRole('button', { name: /^Pay/ }).click();

    // The issuer's one-time code, in place on the confirm screen.
    const code = page.getByLabel('Code from your bank');
    await code.waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await page.getByRole('button', { name: 'Confirm payment' }).click();
    await page.getByText('Enter the code your bank sent').waitFor();
    await code.fill('54321');
    await page.getByRole('button', { name: 'Confirm payment' }).click();
    await page.getByText('The code is not correct. Check the code your bank sent and try again.').waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(320);
    await code.fill('12345');
    await page.getByRole('button', { name: 'Confirm payment' }).click();
    await paid(page);
    const { rows } = await product.db.query<{ id: string; last4: string }>(
      "select id, last4 from saved_cards where provider = 'flutterwave' and removed_at is null",
    );
    expect(rows).toEqual([expect.objectContaining({ last4: '0008' })]);

    // Next time the confirm screen offers it, and it pays with no card form and no code (a tokenized charge).
    await page.goto(topUpUrl('300'));
    await page.getByLabel('Pay with').selectOption({ label: '**** **** **** 0008' });
    await page.getByRole('button', { name: /^Pay/ }).click();
    await paid(page);
    expect(flw.requests.filter((q) => q.path === '/v3/tokenized-charges')).toHaveLength(1);
  });

  it('the OTP step in Lithuanian (the longest language) fits 320 px with its error, axe clean', async () => {
    const lt = JSON.parse(readFileSync(new URL('../../locales/pay/lt-LT.json', import.meta.url), 'utf8')) as {
      directCard: Record<string, string>;
      cardOtp: Record<string, string>;
    };
    const page = await signedIn(await touristToken(product.app), 'lt-LT');
    await page.goto(topUpUrl('500'));
    await page.getByLabel(lt.directCard.number!).fill('5399 0000 0000 0008');
    await page.getByLabel(lt.directCard.expiryMonth!).fill('09');
    await page.getByLabel(lt.directCard.expiryYear!).fill('32');
    await page.getByLabel(lt.directCard.cvv!).fill('123');
    await page.getByLabel(lt.directCard.email!).fill('ona@powerly.example');
    await page.locator('form button[type=submit]').click();
    const code = page.getByLabel(lt.cardOtp.label!);
    await code.waitFor();
    await page.getByRole('button', { name: lt.cardOtp.submit! }).click();
    await page.getByText(lt.cardOtp.required!).waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(320);
    expect(await axeViolations(page)).toEqual([]);
    await code.fill('12345');
    await page.getByRole('button', { name: lt.cardOtp.submit! }).click();
    await expect.poll(() => page.getByLabel(lt.cardOtp.label!).count(), { timeout: 30_000 }).toBe(0);
  });
});
