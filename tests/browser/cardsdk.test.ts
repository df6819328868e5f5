// The live card SDK screens in Chromium: Monri (/MonriPay, Monri Components) and Mercado Pago (/MercadoPago,
// MercadoPago.js) configured live, their APIs and browser SDKs served by the providers' test servers
// (server/test/providers/monri.ts, mercadopago.ts), under the page policy the server sends (it allows those SDK
// hosts only because these methods are configured live). A wallet top-up goes confirm → the SDK screen → the
// provider's frames → back through the return URL → the resume, which records what the provider says.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { startProduct, type RunningProduct } from './product.ts';
import { launchChromium } from './chromium.ts';
import { touristToken } from '../../server/test/helper.ts';
import { FakeMonri } from '../../server/test/providers/monri.ts';
import { FakeMercadoPago } from '../../server/test/providers/mercadopago.ts';
import { axeViolations } from './axe.ts';

const MONRI_TOKEN = 'a6d41095984fc60fe81cd3d65ecafe56d4060ca9';
const MONRI_KEY = 'key-942fe42f1cdbf1700b5b784532f6181c';
let monri: FakeMonri;
let mp: FakeMercadoPago;
let product: RunningProduct;
let browser: Browser;

beforeAll(async () => {
  monri = await new FakeMonri(MONRI_TOKEN, MONRI_KEY).start();
  mp = await new FakeMercadoPago('TEST-access-b', 'TEST-pk-b', 'whsec-b').start();
  product = await startProduct({
    simulator: false,
    paymentMethods: {
      powerly: {
        monri: { merchantKey: MONRI_KEY, authenticityToken: MONRI_TOKEN, apiBase: monri.url },
        mercadopago: {
          accessToken: 'TEST-access-b',
          publicKey: 'TEST-pk-b',
          webhookSecret: 'whsec-b',
          apiBase: mp.url,
          sdkUrl: `${mp.url}/js/v2`,
        },
      },
    },
  });
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await product?.close();
  await monri?.stop();
  await mp?.stop();
});

async function signedIn(locale = 'en-US'): Promise<Page> {
  const token = await touristToken(product.app);
  const context = await browser.newContext({ viewport: { width: 390, height: 844 }, locale });
  await context.addInitScript(
    ([t, l]) => {
      localStorage.setItem('token', t!);
      if (l !== 'en-US') localStorage.setItem('lang', l!);
    },
    [token, locale],
  );
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  return page;
}

const topUpUrl = (currency: string, price: string, paymentId: string) =>
  `${product.base}/#/confirm?${new URLSearchParams({ payType: 'CZ', currency, price, paymentId }).toString()}`;

async function paid(page: Page) {
  await page.getByRole('dialog', { name: 'Top-up successful' }).waitFor({ timeout: 30_000 });
  await page.getByRole('button', { name: 'OK' }).click();
  await page.waitForURL(/#\/mine/);
}

/** Our payment row of the last SDK screen the page reached (its outTradeNo is in the screen's query). */
async function externalRow(page: Page) {
  const out = new URLSearchParams(page.url().split('?')[1] ?? '').get('outTradeNo');
  const { rows } = await product.db.query<{ state: string; failure_code: string | null; provider: string }>(
    'select state, failure_code, provider from external_payments where out_trade_no = $1',
    [out],
  );
  return { out: out!, row: rows[0] };
}

async function toMonriScreen(page: Page, price: string) {
  await page.goto(topUpUrl('EUR', price, 'monri:Monri_WebPay'));
  await page.getByRole('heading', { name: 'Card (Monri)' }).waitFor();
  await page.getByText("You will enter your card in Card (Monri)'s secure form on the next screen.").waitFor();
  // Live: no card form and no e-mail on the confirm screen.
  expect(await page.getByLabel('Card number').count()).toBe(0);
  await page.getByRole('button', { name: /^Pay/ }).click();
  await page.waitForURL(/#\/MonriPay\?/);
  const card = page.frameLocator('#monri-card-element iframe');
  await card.getByLabel('Card number').waitFor();
  return card;
}

async function toMercadoPagoScreen(page: Page, price: string) {
  await page.goto(topUpUrl('BRL', price, 'mercadopago:MercadoPago'));
  await page.getByRole('heading', { name: 'Mercado Pago' }).waitFor();
  await page.getByRole('button', { name: /^Pay/ }).click();
  await page.waitForURL(/#\/MercadoPago\?/);
  await page.frameLocator('#mp-cardNumber iframe').getByLabel('Card number').waitFor();
}

describe('Monri live: /MonriPay with Monri Components', () => {
  it("pays in Monri's frame (billing name = the e-mail, country BA) and the wallet is credited from Monri's status", async () => {
    const page = await signedIn();
    const card = await toMonriScreen(page, '15');
    // The provider's frame is named for assistive tech.
    expect(await page.locator('#monri-card-element iframe').getAttribute('title')).toBe('Card details');
    await page.getByRole('button', { name: 'Pay €15' }).click();
    await expect.poll(() => page.locator('#card-errors').textContent()).toBe('Please enter a valid e-mail address');
    await page.getByLabel('E-mail').fill('ana@example.ba');
    await card.getByLabel('Card number').fill('4058 4000 0000 0005');
    await card.getByLabel('Expiry (MM/YY)').fill('12/30');
    await card.getByLabel('CVV').fill('123');
    const { out } = await externalRow(page);
    await page.getByRole('button', { name: 'Pay €15' }).click();
    await paid(page);
    const p = monri.byOrder(out)!;
    expect(p.paymentStatus).toBe('approved');
    expect(p.transaction).toMatchObject({ fullName: 'ana@example.ba', email: 'ana@example.ba', country: 'BA' });
    const { rows } = await product.db.query<{ state: string }>(
      'select state from external_payments where out_trade_no = $1',
      [out],
    );
    expect(rows[0]?.state).toBe('paid');
    // The billing was kept (user/more monriBilling): the next payment's screen has the e-mail filled in.
    const kept = await product.db.query<{ value: string }>(
      "select value from user_more where key = 'monriBilling' order by updated_at desc limit 1",
    );
    expect(JSON.parse(kept.rows[0]!.value)).toMatchObject({
      email: 'ana@example.ba',
      fullName: 'ana@example.ba',
      country: 'BA',
    });
    await toMonriScreen(page, '3');
    await expect.poll(() => page.getByLabel('E-mail').inputValue()).toBe('ana@example.ba');
  });

  it("shows Monri's errors in the card-errors area; a declined card is failed and nothing is credited", async () => {
    const page = await signedIn();
    const card = await toMonriScreen(page, '9');
    await page.getByLabel('E-mail').fill('ana@example.ba');
    // Not a transaction: Monri refuses the card details, the customer can correct them.
    await card.getByLabel('Card number').fill('4111');
    await page.getByRole('button', { name: 'Pay €9' }).click();
    await expect.poll(() => page.locator('#card-errors').textContent()).toBe('Invalid card number');
    await card.getByLabel('Card number').fill('4111 1111 1111 1111');
    await card.getByLabel('Expiry (MM/YY)').fill('12/30');
    await card.getByLabel('CVV').fill('123');
    await page.getByRole('button', { name: 'Pay €9' }).click();
    await expect.poll(() => page.locator('#card-errors').textContent()).toBe('card suspicious: declined');
    const { out } = await externalRow(page);
    await page.getByRole('button', { name: 'Back to payment' }).click();
    // A failed top-up goes back to the wallet.
    await page.waitForURL(/#\/wallet/, { timeout: 30_000 });
    const { rows } = await product.db.query<{ state: string; failure_code: string }>(
      'select state, failure_code from external_payments where out_trade_no = $1',
      [out],
    );
    expect(rows[0]).toEqual({ state: 'failed', failure_code: 'card_declined' });
  });
});

describe('Mercado Pago live: /MercadoPago with MercadoPago.js', () => {
  it('tokenises in the Secure Fields, the resume creates the payment with the token and the wallet is credited', async () => {
    const page = await signedIn();
    await toMercadoPagoScreen(page, '20');
    await page.getByLabel('E-mail').fill('ana@example.com.br');
    await page.getByLabel('Cardholder name').fill('APRO');
    await page.frameLocator('#mp-cardNumber iframe').getByLabel('Card number').fill('5031 4332 1540 6351');
    // The BIN's installments (MercadoPago.js asks for them).
    await page.getByLabel('Installments').selectOption('3');
    await page.frameLocator('#mp-expirationDate iframe').getByLabel('Expiration date').fill('11/30');
    await page.frameLocator('#mp-securityCode iframe').getByLabel('Security code').fill('123');
    await page.getByLabel('Document number').fill('12345678909');
    const { out } = await externalRow(page);
    await page.getByRole('button', { name: /^Pay/ }).click();
    await paid(page);
    const p = [...mp.payments.values()].find((x) => x.external_reference === out)!;
    expect(p).toMatchObject({
      status: 'approved',
      transaction_amount: 20,
      installments: 3,
      payment_method_id: 'master',
      payer: { email: 'ana@example.com.br' },
    });
    const { rows } = await product.db.query<{ state: string }>(
      'select state from external_payments where out_trade_no = $1',
      [out],
    );
    expect(rows[0]?.state).toBe('paid');
  });

  it("shows MercadoPago.js's errors in the card-errors area; a card Mercado Pago rejects (OTHE) credits nothing", async () => {
    const page = await signedIn();
    await toMercadoPagoScreen(page, '6');
    await page.getByLabel('E-mail').fill('ana@example.com.br');
    await page.getByLabel('Cardholder name').fill('OTHE');
    const number = page.frameLocator('#mp-cardNumber iframe').getByLabel('Card number');
    await number.fill('5031 4332');
    await page.getByLabel('Installments').waitFor();
    await page.frameLocator('#mp-expirationDate iframe').getByLabel('Expiration date').fill('11/30');
    await page.frameLocator('#mp-securityCode iframe').getByLabel('Security code').fill('123');
    await page.getByLabel('Document number').fill('12345678909');
    await page.getByRole('button', { name: /^Pay/ }).click();
    await expect
      .poll(() => page.locator('#card-errors').textContent())
      .toBe('cardNumber should be of length between 9 and 18.');
    await number.fill('5031 4332 1540 6351');
    const { out } = await externalRow(page);
    await page.getByRole('button', { name: /^Pay/ }).click();
    await page.waitForURL(/#\/wallet/, { timeout: 30_000 });
    const { rows } = await product.db.query<{ state: string; failure_code: string }>(
      'select state, failure_code from external_payments where out_trade_no = $1',
      [out],
    );
    expect(rows[0]).toEqual({ state: 'failed', failure_code: 'card_declined' });
  });
});

describe('Mercado Pago saved cards: "save this card" on /MercadoPago, then paying with it', () => {
  it('saves the card while paying; later the confirm screen offers it and /MercadoPago asks only its security code', async () => {
    const page = await signedIn();
    await toMercadoPagoScreen(page, '8');
    await page.getByLabel('E-mail').fill('rui@example.com.br');
    await page.getByLabel('Cardholder name').fill('APRO');
    await page.frameLocator('#mp-cardNumber iframe').getByLabel('Card number').fill('5031 4332 1540 6351');
    await page.getByLabel('Installments').waitFor();
    await page.frameLocator('#mp-expirationDate iframe').getByLabel('Expiration date').fill('11/30');
    await page.frameLocator('#mp-securityCode iframe').getByLabel('Security code').fill('123');
    await page.getByLabel('Document number').fill('12345678909');
    await page.getByLabel('Save this card for my next payments').check();
    await page.getByRole('button', { name: /^Pay/ }).click();
    await paid(page);
    const saves = mp.requests.filter((r) => r.method === 'POST' && /^\/v1\/customers\/[^/]+\/cards$/.test(r.path));
    expect(saves).toHaveLength(1);
    expect(saves[0]!.body).toMatchObject({ payment_method_id: 'master', issuer_id: 24 });
    const customer = saves[0]!.path.split('/')[3]!;
    expect(mp.cardsOf(customer)).toHaveLength(1);

    const again = await page.context().newPage();
    again.setDefaultTimeout(15_000);
    await again.goto(topUpUrl('BRL', '4', 'mercadopago:MercadoPago'));
    await again.getByLabel('Pay with').selectOption({ label: '**** **** **** 6351' });
    await again.getByRole('button', { name: /^Pay/ }).click();
    await again.waitForURL(/#\/MercadoPago\?/);
    expect(new URLSearchParams(again.url().split('?')[1]).get('cardId')).toBe(String(mp.cardsOf(customer)[0]!.id));
    await again.frameLocator('#mp-securityCode iframe').getByLabel('Security code').waitFor();
    expect(await again.locator('#mp-cardNumber').count()).toBe(0);
    expect(await again.getByLabel('Save this card for my next payments').count()).toBe(0);
    expect(await axeViolations(again)).toEqual([]);
    await again.frameLocator('#mp-securityCode iframe').getByLabel('Security code').fill('123');
    const { out } = await externalRow(again);
    await again.getByRole('button', { name: /^Pay/ }).click();
    await paid(again);
    const charge = mp.requests.filter((x) => x.path === '/v1/payments' && x.method === 'POST').at(-1)!;
    expect(charge.body).toMatchObject({ external_reference: out, payer: { type: 'customer', id: customer } });
  });
});

describe('the SDK screens at 320 px in Lithuanian', () => {
  it('both fit the phone and are axe clean', async () => {
    const page = await signedIn('lt-LT');
    await page.setViewportSize({ width: 320, height: 700 });
    for (const go of [() => toMonriScreenLt(page), () => toMercadoPagoScreenLt(page)]) {
      await go();
      expect(await axeViolations(page)).toEqual([]);
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(320);
    }
  });
});

async function toMonriScreenLt(page: Page) {
  await page.goto(topUpUrl('EUR', '5', 'monri:Monri_WebPay'));
  await page.locator('button.primary').click();
  await page.waitForURL(/#\/MonriPay\?/);
  await page.frameLocator('#monri-card-element iframe').getByLabel('Card number').waitFor();
  await page.getByRole('button', { name: 'Atšaukti mokėjimą' }).waitFor();
}

async function toMercadoPagoScreenLt(page: Page) {
  await page.goto(topUpUrl('BRL', '5', 'mercadopago:MercadoPago'));
  await page.locator('button.primary').click();
  await page.waitForURL(/#\/MercadoPago\?/);
  await page.frameLocator('#mp-cardNumber iframe').getByLabel('Card number').waitFor();
  await page.getByLabel('Dokumento numeris').waitFor();
}
