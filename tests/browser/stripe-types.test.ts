// Stripe's wallets, iDEAL and WeChat Pay in test mode (no Stripe keys) in Chromium: offered on the payment-method
// picker beside the card, the wallets only where the browser has the Payment Request API; a wallet top-up paid on
// the sandbox's hosted test page and credited.
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { productInChromium } from './product.ts';
import { touristToken } from '../../server/test/helper.ts';

const env = productInChromium();

async function signedIn(withoutPaymentRequest = false): Promise<Page> {
  const token = await touristToken(env.product.app);
  const context = await env.browser.newContext({ viewport: { width: 390, height: 844 }, locale: 'en-US' });
  await context.addInitScript((t) => localStorage.setItem('token', t), token);
  if (withoutPaymentRequest)
    await context.addInitScript(() => delete (window as { PaymentRequest?: unknown }).PaymentRequest);
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  return page;
}

const picker = () => `${env.product.base}/#/payMethod?payType=CZ&currency=EUR&price=9`;

describe("Stripe's types beyond the card, in test mode", () => {
  it('offers Apple Pay, Google Pay, iDEAL and WeChat Pay; Apple Pay tops up on the test page', async () => {
    const page = await signedIn();
    await page.goto(picker());
    for (const name of ['Apple Pay', 'Google Pay', 'iDEAL', 'WeChat Pay'])
      await page.getByRole('radio', { name }).waitFor();
    await page.getByRole('radio', { name: 'Apple Pay' }).check();
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.waitForURL(/#\/confirm\?.*paymentId=stripe-wallets%3AAPPLE_PAY/);
    await page.getByRole('button', { name: /^Pay/ }).click();
    await page.waitForURL(/\/sandbox-pay\/checkout\//);
    await page.getByRole('button', { name: 'Pay', exact: true }).click();
    await page.getByRole('dialog', { name: 'Top-up successful' }).waitFor({ timeout: 30_000 });
    await page.context().close();
  });

  it('hides the wallets where the browser cannot pay with one, and keeps iDEAL and WeChat Pay', async () => {
    const page = await signedIn(true);
    await page.goto(picker());
    await page.getByRole('radio', { name: 'iDEAL' }).waitFor();
    await page.getByRole('radio', { name: 'WeChat Pay' }).waitFor();
    expect(await page.getByRole('radio', { name: 'Apple Pay' }).count()).toBe(0);
    expect(await page.getByRole('radio', { name: 'Google Pay' }).count()).toBe(0);
    await page.context().close();
  });
});
