// Paying with the methods beyond the card in Chromium, each in its sandbox (test mode), through the confirm
// screen of a wallet top-up: M-Pesa (a prompt on the phone, the SMS confirm), Monri (card form with e-mail),
// WeChat Pay in the WeChat browser (its checkout page in test mode, then the return), PayPal (redirect and back),
// Flutterwave's card form and the debit-only card type.
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { productInChromium } from './product.ts';
import { touristToken } from '../../server/test/helper.ts';
import { axeViolations } from './axe.ts';

const env = productInChromium();

async function signedIn(opts: { userAgent?: string; locale?: string } = {}): Promise<Page> {
  const token = await touristToken(env.product.app);
  const context = await env.browser.newContext({
    viewport: { width: 390, height: 844 },
    locale: opts.locale ?? 'en-US',
    ...(opts.userAgent ? { userAgent: opts.userAgent } : {}),
  });
  await context.addInitScript((t) => localStorage.setItem('token', t), token);
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  return page;
}

const topUpUrl = (currency: string, price: string, paymentId: string) =>
  `${env.product.base}/#/confirm?${new URLSearchParams({ payType: 'CZ', currency, price, paymentId }).toString()}`;

/** At 320 px: axe clean and nothing wider than the phone. */
async function fitsAndClean(page: Page) {
  expect(await axeViolations(page)).toEqual([]);
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(320);
}

async function paid(page: Page) {
  await page.getByRole('dialog', { name: 'Top-up successful' }).waitFor({ timeout: 30_000 });
  await page.getByRole('button', { name: 'OK' }).click();
  await page.waitForURL(/#\/mine/);
}

describe('methods beyond the card, in test mode', () => {
  it('M-Pesa: the phone is required, the prompt is confirmed on the phone, the wallet is credited', async () => {
    const page = await signedIn();
    await page.goto(topUpUrl('KES', '100', 'mpesa:M-PESA'));
    await page.getByRole('heading', { name: 'M-Pesa' }).waitFor();
    // The sandbox lists the provider's test numbers.
    await page.getByText('254708374149').waitFor();
    await page.getByRole('button', { name: /^Pay/ }).click();
    await page.getByText('Phone number required').waitFor();
    await page.getByLabel('Phone number').fill('254708374149');
    await page.getByRole('button', { name: /^Pay/ }).click();
    // The phone answers after 3 s of the product's clock (the tests' clock moves only when told).
    await page.getByText('A payment request was sent to your phone').waitFor();
    env.product.clock.advance(5_000);
    // The SMS confirm; clicked here (it clicks itself after 20 s).
    await page.getByRole('button', { name: 'I have paid' }).click();
    await paid(page);
  });

  it('Monri: e-mail and card on the card form, approved at once', async () => {
    const page = await signedIn();
    await page.goto(topUpUrl('EUR', '15', 'monri:Monri_WebPay'));
    await page.getByLabel('E-mail').fill('ana@example.ba');
    await page.getByLabel('Card number').fill('4242 4242 4242 4242');
    await page.getByLabel('Expiry date (MM/YY)').fill('12/34');
    await page.getByLabel('CVC').fill('123');
    await page.getByRole('button', { name: /^Pay/ }).click();
    await paid(page);
  });

  it('WeChat Pay in the WeChat browser: the checkout page of test mode, then back to the app, which confirms', async () => {
    const page = await signedIn({
      userAgent:
        'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 MicroMessenger/8.0.47',
    });
    await page.goto(topUpUrl('CNY', '20', 'wechatpay:WeChat_MP'));
    await page.getByRole('button', { name: /^Pay/ }).click();
    await page.waitForURL(/\/sandbox-pay\/checkout\//);
    await page.getByRole('heading', { name: /WeChat_MP/ }).waitFor();
    await page.getByRole('button', { name: 'Pay', exact: true }).click();
    await page.waitForURL(/#\/confirm\?.*payment_intent=/);
    await paid(page);
  });

  it('PayPal: to the provider and back; a cancelled payment credits nothing', async () => {
    const page = await signedIn();
    await page.goto(topUpUrl('EUR', '25', 'paypal:paypal'));
    await page.getByText('Test mode: you will be taken to the test payment page for PayPal').waitFor();
    await page.getByRole('button', { name: /^Pay/ }).click();
    await page.waitForURL(/\/sandbox-pay\/checkout\//);
    await page.getByRole('button', { name: 'Cancel payment' }).click();
    // A failed top-up goes back to the wallet.
    await page.waitForURL(/#\/wallet/);
    await page.goto(topUpUrl('EUR', '25', 'paypal:paypal'));
    await page.getByRole('button', { name: /^Pay/ }).click();
    await page.waitForURL(/\/sandbox-pay\/checkout\//);
    await page.getByRole('button', { name: 'Pay', exact: true }).click();
    await paid(page);
  });

  it("Flutterwave's card form in test mode: the same fields as live, the sandbox card pays", async () => {
    const page = await signedIn();
    await page.goto(topUpUrl('NGN', '700', 'flutterwave:Flutterwave'));
    await page.getByLabel('Card number').fill('4242 4242 4242 4242');
    await page.getByRole('button', { name: /^Pay/ }).click();
    // Each field required, in the user's language, inline.
    await page.getByText('Enter the expiry month').waitFor();
    await page.getByLabel('Expiry month (MM)').fill('12');
    await page.getByLabel('Expiry year (YY)').fill('34');
    await page.getByLabel('CVV').fill('123');
    await page.getByLabel('E-mail').fill('ada@powerly.example');
    await page.getByLabel('Phone number (optional)').fill('8030000000');
    await page.getByRole('button', { name: /^Pay/ }).click();
    await paid(page);
  });

  it('debitcard: a credit card is declined (debit only), a debit card pays', async () => {
    const page = await signedIn();
    await page.goto(topUpUrl('EUR', '10', 'sandbox:debitcard'));
    await page.getByRole('heading', { name: 'Pay by debit card' }).waitFor();
    await page.getByText('Only debit cards are accepted. Credit and prepaid cards are declined.').waitFor();
    const card = async (number: string) => {
      await page.getByLabel('Card number').fill(number);
      await page.getByLabel('Expiry date (MM/YY)').fill('12/34');
      await page.getByLabel('CVC').fill('123');
      await page.getByRole('button', { name: /^Pay/ }).click();
    };
    await card('4242 4242 4242 4242');
    const failed = page.getByRole('alertdialog', { name: 'Failed to initiate recharge payment' });
    await failed.getByText('Only debit cards are accepted for this payment. Please use a debit card.').waitFor();
    await failed.getByRole('button', { name: 'Cancel' }).click();
    await card('4000 0566 5566 5556');
    await paid(page);
  });

  it('the payment form and the provider page of test mode fit 320 px in Lithuanian, axe clean', async () => {
    const page = await signedIn({ locale: 'lt-LT' });
    await page.setViewportSize({ width: 320, height: 700 });
    await page.goto(topUpUrl('KES', '100', 'mpesa:M-PESA'));
    await page.evaluate(() => localStorage.setItem('lang', 'lt-LT'));
    await page.reload();
    await page.getByLabel('Telefono numeris').waitFor();
    await fitsAndClean(page);
    // Flutterwave's card form and the debit card form, with their errors shown.
    await page.goto(topUpUrl('NGN', '700', 'flutterwave:Flutterwave'));
    await page.getByLabel('Galiojimo mėnuo (MM)').waitFor();
    await page.locator('form.direct-card button[type=submit]').click();
    await page.getByText('Įveskite galiojimo mėnesį').waitFor();
    await fitsAndClean(page);
    await page.goto(topUpUrl('EUR', '10', 'sandbox:debitcard'));
    await page.getByRole('heading', { name: 'Mokėti debetine kortele' }).waitFor();
    await fitsAndClean(page);
    await page.goto(topUpUrl('EUR', '25', 'paypal:paypal'));
    await page.locator('button.primary').click();
    await page.waitForURL(/\/sandbox-pay\/checkout\//);
    await page.getByRole('button', { name: 'Atšaukti mokėjimą' }).waitFor();
    await fitsAndClean(page);
  });
});
