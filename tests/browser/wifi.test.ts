// The Wi-Fi box line in Chromium against the real server and simulator: buy a data package at a
// scanned cabinet, pay it through /confirm (payType mifi), pick the box up by scanning the cabinet and, in a
// second purchase, by the QR code the app shows to a box; see the box's Wi-Fi name and its traffic once the box
// has used data, renew the package, return the box at another cabinet; buy a package and pay its box deposit with
// a method beyond the card (PayPal in test mode: its page and back). axe on every Wi-Fi screen, and each fits a
// 320 px wide phone.
import { describe, expect, it } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';

type StorageState = Awaited<ReturnType<BrowserContext['storageState']>>;
import { productInChromium } from './product.ts';
import { axeViolations } from './axe.ts';
import { touristToken } from '../../server/test/helper.ts';

const env = productInChromium();

const hash = (page: Page) => page.evaluate(() => location.hash);

/** No axe violation, and nothing wider than a 320 px phone (the page scrolls only vertically). */
async function checkScreen(page: Page, what: string) {
  expect(await axeViolations(page), what).toEqual([]);
  const size = page.viewportSize()!;
  await page.setViewportSize({ width: 320, height: size.height });
  expect(await page.evaluate(() => document.documentElement.scrollWidth), `${what} at 320 px`).toBeLessThanOrEqual(320);
  await page.setViewportSize(size);
}

/** Pays the sandbox card form of /confirm. */
async function payByCard(page: Page) {
  await expect.poll(() => hash(page)).toMatch(/^#\/confirm\?.*payType=mifi/);
  await page.getByLabel('Card number').fill('4242 4242 4242 4242');
  await page.getByLabel('Expiry date (MM/YY)').fill('12/34');
  await page.getByLabel('CVC').fill('123');
  await page.getByRole('button', { name: /^Pay / }).click();
}

/** From a cabinet scan to the mall: package selection offers the Wi-Fi box where the cabinet has one. */
async function toMall(page: Page, cabinet: string) {
  await page.goto(`${env.product.base}/#/?qrcode=${cabinet}`);
  await expect.poll(() => hash(page), { timeout: 20_000 }).toMatch(/^#\/selectPakage/);
  const screen = page.locator('main.select-pakage');
  await screen.getByRole('radio', { name: 'Wi-Fi box' }).check();
  await screen.getByRole('button', { name: 'Continue', exact: true }).click();
  await expect.poll(() => hash(page)).toMatch(/^#\/wifiMall\?type=QR/);
}

/** Chooses a package in the mall by searching for it, and a plan of it in the variant dialog. */
async function choose(page: Page, search: string, name: string, days?: number) {
  await page.getByLabel('Search a country or package').fill(search);
  await page.getByRole('button', { name: `Choose ${name}` }).click();
  const dialog = page.locator('dialog[open]');
  await dialog.getByRole('radio', { name: new RegExp(`^${name} `) }).check();
  for (let d = 1; d < (days ?? 1); d++) await dialog.getByRole('button', { name: 'One day more' }).click();
  return dialog;
}

/** The Wi-Fi screens of the package `code` in one language, in a context of its own with the rider's session. */
async function checkWifiScreens(session: StorageState, lang: string, code: string) {
  const context = await env.browser.newContext({ viewport: { width: 390, height: 844 }, storageState: session });
  await context.addInitScript((l) => localStorage.setItem('lang', l), lang);
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  const order = `orderId=${code}`;
  const screens = [`packageDetail?${order}`, `orderDetail?${order}&type=mifi`, 'scanOrder', 'wifiMall?type=QR'];
  for (const screen of [...screens, 'scanPickUpOrder?type=QR', `pickUp?${order}`]) {
    await page.goto(`${env.product.base}/#/${screen}`);
    await page.reload();
    await expect.poll(() => page.evaluate(() => document.documentElement.lang)).toBe(lang);
    // Loaded: the screen's strings and data are in (no loading indicator left in it).
    const loaded = async () =>
      (await page.locator('main .loading').count()) === 0 && (await page.locator('main').textContent())!.length > 8;
    await expect.poll(loaded).toBe(true);
    await page.waitForLoadState('networkidle');
    const text = await page.locator('body').innerText();
    expect(text, `${lang} #/${screen}`).not.toMatch(/\bmifi\.\w|\broutes\.\w/);
    await checkScreen(page, `${lang} #/${screen}`);
  }
  await context.close();
}

describe('a Wi-Fi package with its box', () => {
  it('buys a package at the cabinet, picks the box up by scan, sees its Wi-Fi and traffic, renews it and returns the box', async () => {
    const page = await env.newPage();
    await toMall(page, 'PWL-LIS-001');
    // The mall opens on the cabinet's country (Portugal: 3 packages), its chip pressed; "All" shows every package.
    const places = page.getByRole('navigation', { name: 'Countries and regions' });
    await expect.poll(() => page.locator('.mifi-list > li').count()).toBe(3);
    expect(await places.getByRole('button', { name: 'Portugal' }).getAttribute('aria-pressed')).toBe('true');
    await places.getByRole('button', { name: 'All', exact: true }).click();
    // The mall: search, countries with flags, pages of 6, the header link and "my packages" (type QR).
    await expect.poll(() => page.locator('.mifi-list > li').count()).toBe(6);
    expect(await page.getByRole('link', { name: 'My orders' }).getAttribute('href')).toBe('#/scanOrder');
    expect(await page.getByRole('link', { name: 'My packages' }).getAttribute('href')).toBe(
      '#/scanPickUpOrder?type=QR',
    );
    // Scrolling to the end loads the next page of 6; so does the "more" button.
    await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
    await expect.poll(() => page.locator('.mifi-list > li').count()).toBe(12);
    // The button is pressed where it is: a click that first scrolls it into view would also reach the end of the
    // list, and that scroll may load a page of its own before the click loads the next (24, not 18, under load).
    await page.getByRole('button', { name: 'Show more packages' }).evaluate((b: HTMLButtonElement) => b.click());
    await expect.poll(() => page.locator('.mifi-list > li').count()).toBe(18);
    await places.getByRole('button', { name: 'Portugal' }).click();
    await expect.poll(() => page.locator('.mifi-list > li').count()).toBe(3);
    await checkScreen(page, '#/wifiMall');

    const dialog = await choose(page, 'portugal', 'Portugal · Daily · Unlimited', 2);
    await expect.poll(() => dialog.getByTestId('days').textContent()).toBe('2');
    await expect.poll(() => dialog.getByTestId('variant-price').textContent()).toBe('Total €4');
    expect(await axeViolations(page), 'variant dialog').toEqual([]);
    // A day-type package has a fixed number of days: its stepper is disabled.
    await dialog.getByRole('radio', { name: /^Portugal · Daily · 3 days / }).check();
    expect(await dialog.getByRole('button', { name: 'One day more' }).isDisabled()).toBe(true);
    await dialog.getByRole('radio', { name: /^Portugal · Daily · Unlimited / }).check();
    await dialog.getByRole('button', { name: 'One day more' }).click();
    await dialog.getByRole('button', { name: 'Buy', exact: true }).click();

    // The summary: start and end in Lisbon time, the box deposit (bought at a cabinet), the total.
    await expect.poll(() => hash(page)).toBe('#/packageOrder?type=GM');
    await expect.poll(() => page.getByTestId('order-total').textContent()).toBe('Total €54');
    expect(await page.locator('main').textContent()).toContain('Europe/Lisbon');
    await checkScreen(page, '#/packageOrder');
    await page.getByRole('button', { name: 'Buy now' }).click();
    await payByCard(page);

    // My packages: the paid package waits for its box.
    await expect.poll(() => hash(page), { timeout: 20_000 }).toMatch(/^#\/scanOrder\?orderId=/);
    const card = page.getByRole('article').filter({ hasText: 'Portugal-Daily-Unlimited' });
    await expect.poll(() => card.textContent()).toContain('Unused');
    await checkScreen(page, '#/scanOrder');
    await card.getByRole('button', { name: 'Pick up at a cabinet' }).click();

    // Pick up at the scanned cabinet: it ejects a box, the poll binds it, the box detail opens.
    await expect.poll(() => hash(page)).toMatch(/^#\/pickUp\?orderId=/);
    expect(await page.getByLabel('Cabinet code').inputValue()).toBe('PWL-LIS-001');
    await checkScreen(page, '#/pickUp');
    await page.getByRole('button', { name: 'Pick up here' }).click();
    await expect.poll(() => hash(page), { timeout: 20_000 }).toMatch(/^#\/packageDetail\?orderId=/);
    await expect.poll(() => page.getByTestId('device-sn').textContent()).toMatch(/^MF-LIS-/);
    const sn = (await page.getByTestId('device-sn').textContent())!;
    await expect.poll(() => page.getByTestId('wifi-ssid').textContent()).toMatch(/^Powerly-/);
    expect((await page.getByTestId('wifi-password').textContent())!.length).toBeGreaterThan(0);
    await checkScreen(page, '#/packageDetail');

    // The box uses 5 MB (demo page): the package activates and its traffic shows.
    const demo = await env.newPage();
    await demo.goto(`${env.product.base}/demo/`);
    await demo.getByLabel(`Megabytes for ${sn} to use`).fill('5');
    await demo.getByRole('button', { name: `Use data on ${sn}` }).click();
    await demo
      .getByRole('status')
      .filter({ hasText: `${sn} used 5 MB.` })
      .waitFor();
    // Live: the box's report reaches the open detail without Refresh (traffic, battery, online).
    await expect.poll(() => page.getByTestId('traffic-used').textContent(), { timeout: 20_000 }).toBe('5.0 MB');
    expect(await page.getByTestId('battery').textContent()).toBe('80%');
    const first = page.getByRole('article').filter({ hasText: 'Portugal-Daily-Unlimited' }).first();
    await expect.poll(() => first.textContent()).toContain('Activated');
    await first.getByRole('button', { name: 'Traffic detail' }).click();
    await expect
      .poll(() => page.locator('dialog[open]').getByTestId('traffic-total').textContent())
      .toBe('Used in all: 5.0 MB');
    expect(await axeViolations(page), 'traffic dialog').toEqual([]);
    await page.locator('dialog[open]').getByRole('button', { name: 'Close' }).click();

    // Renew: the mall for this box (type XG) shows the package renewed alone (no search, no places to wander off
    // to), a day more, paid; the renewal continues where the package ends.
    await page.getByRole('button', { name: 'Renew' }).click();
    await expect.poll(() => hash(page)).toBe(`#/wifiMall?type=XG&sn=${sn}`);
    await expect
      .poll(() => page.locator('.mifi-list > li').allTextContents())
      .toEqual([expect.stringContaining('Portugal · Daily · Unlimited')]);
    expect(await page.getByLabel('Search a country or package').count()).toBe(0);
    expect(await page.getByRole('navigation', { name: 'Countries and regions' }).count()).toBe(0);
    await page.getByRole('button', { name: 'Choose Portugal · Daily · Unlimited' }).click();
    const renew = page.locator('dialog[open]');
    await renew.getByRole('radio', { name: /^Portugal · Daily · Unlimited / }).check();
    await expect.poll(() => renew.textContent()).toContain('Starts when your current package ends');
    await renew.getByRole('button', { name: 'Buy', exact: true }).click();
    await expect.poll(() => hash(page)).toBe('#/packageOrder?type=XG');
    await expect.poll(() => page.getByTestId('order-total').textContent()).toBe('Total €2');
    await page.getByRole('button', { name: 'Buy now' }).click();
    await payByCard(page);
    await expect.poll(() => hash(page), { timeout: 20_000 }).toMatch(/^#\/scanOrder\?orderId=/);
    await expect.poll(() => page.getByRole('article').filter({ hasText: 'Portugal-Daily-Unlimited' }).count()).toBe(2);
    await expect
      .poll(() => page.getByRole('article').filter({ hasText: 'To be activated' }).textContent())
      .toContain(sn);

    // The box's own code (its label's QR: 'wifi.' and the serial) opens its detail.
    await page.goto(`${env.product.base}/#/?qrcode=${encodeURIComponent(`wifi.${sn}`)}`);
    await expect.poll(() => hash(page), { timeout: 20_000 }).toBe('#/packageDetail');
    await expect.poll(() => page.getByTestId('device-sn').textContent()).toBe(sn);

    // The order detail of the running package: its number to copy, Renew (the box's order renewal in the mall).
    await page.goto(`${env.product.base}/#/scanOrder`);
    const running = page.getByRole('article').filter({ hasText: /Activated/ });
    await running.getByRole('link', { name: /^Order details: Portugal-Daily-Unlimited/ }).click();
    await expect.poll(() => hash(page)).toMatch(/^#\/orderDetail\?orderId=.*&type=mifi$/);
    await page.getByRole('button', { name: 'Copy order number' }).waitFor();
    await checkScreen(page, '#/orderDetail?type=mifi');
    await page.getByRole('button', { name: 'Renew' }).click();
    await expect.poll(() => hash(page)).toBe(`#/wifiMall?type=DDXG&sn=${sn}`);
    await page.goto(`${env.product.base}/#/scanOrder`);
    await page
      .getByRole('article')
      .filter({ hasText: /Activated/ })
      .first()
      .waitFor();

    // Return the box at another cabinet: the running package ends as returned.
    await demo.reload();
    await demo.getByLabel(`Return ${sn} to`).selectOption('PWL-VNO-001');
    await demo.getByRole('button', { name: `Return ${sn}`, exact: true }).click();
    await demo
      .getByRole('status')
      .filter({ hasText: `${sn} returned to PWL-VNO-001.` })
      .waitFor();
    await demo.close();
    // Live: the open list shows the return without a reload.
    await expect
      .poll(() => page.getByRole('article').filter({ hasText: 'Refunded / returned' }).count(), { timeout: 20_000 })
      .toBe(1);
    // Its order detail now offers to rent again (the mall: a package, and a box with it if wanted).
    await page
      .getByRole('article')
      .filter({ hasText: 'Refunded / returned' })
      .getByRole('link', { name: /^Order details: / })
      .click();
    await page.getByRole('button', { name: 'Rent again' }).click();
    await expect.poll(() => hash(page)).toBe('#/wifiMall?type=GM');
  });

  it('picks a box up by the QR code the app shows to it', async () => {
    const page = await env.newPage();
    await toMall(page, 'PWL-NYC-001');
    await choose(page, 'united states', 'United States · Daily · 3 days');
    await page.locator('dialog[open]').getByRole('button', { name: 'Buy', exact: true }).click();
    await expect.poll(() => hash(page)).toBe('#/packageOrder?type=GM');
    await page.getByRole('button', { name: 'Buy now' }).click();
    await payByCard(page);
    await expect.poll(() => hash(page), { timeout: 20_000 }).toMatch(/^#\/scanOrder\?orderId=/);

    // "My packages" lists it to choose; confirming without a choice says to choose one.
    await page.goto(`${env.product.base}/#/scanPickUpOrder?type=QR`);
    await page.getByRole('button', { name: 'Confirm' }).click();
    await page.getByText('Choose a package to pick up').waitFor();
    await expect.poll(() => page.getByRole('radio').count()).toBe(1);
    await checkScreen(page, '#/scanPickUpOrder');

    await page.goto(`${env.product.base}/#/scanOrder`);
    const card = page.getByRole('article').filter({ hasText: 'United States-Daily-3Days' });
    await card.getByRole('button', { name: 'Pick up by QR code' }).click();
    const dialog = page.locator('dialog[open]');
    await expect.poll(() => dialog.getByRole('img', { name: /^Pickup QR code / }).count()).toBe(1);
    expect(await axeViolations(page), 'QR dialog').toEqual([]);
    const code = (await dialog.getByTestId('pickup-code').textContent())!;

    // The box reads it (demo page); the app's poll (every 2 s) sees the pickup and opens the box.
    const demo = await env.newPage();
    await demo.goto(`${env.product.base}/demo/`);
    await demo.getByLabel('Wi-Fi box', { exact: true }).selectOption({ label: 'MF-NYC-0001 (PWL-NYC-001)' });
    await demo.getByLabel('Code shown in the app').fill(code);
    await demo.getByRole('button', { name: 'Read the code' }).click();
    await demo
      .getByRole('status')
      .filter({ hasText: `MF-NYC-0001 read ${code}.` })
      .waitFor();
    await demo.close();
    await expect.poll(() => hash(page), { timeout: 20_000 }).toBe(`#/packageDetail?orderId=${code}`);
    await expect.poll(() => page.getByTestId('device-sn').textContent()).toBe('MF-NYC-0001');
    await expect.poll(() => page.getByTestId('wifi-ssid').textContent()).toMatch(/^Powerly-/);

    // The same screens in the longer languages: every text translated, and still 320 px wide. The languages side
    // by side, each in a context holding this rider's session: most of a screen's time is waiting for the network
    // to fall quiet.
    const session = await page.context().storageState();
    await Promise.all(['lt-LT', 'pt-PT', 'es-ES', 'zh-CN'].map((lang) => checkWifiScreens(session, lang, code)));
  });

  it('continues the payment of a package the card did not pay (status 33)', async () => {
    const page = await env.newPage();
    await toMall(page, 'PWL-LIS-001');
    await page
      .getByRole('navigation', { name: 'Countries and regions' })
      .getByRole('button', { name: 'Spain' })
      .click();
    await choose(page, 'spain', 'Spain · Daily · 3 days');
    await page.locator('dialog[open]').getByRole('button', { name: 'Buy', exact: true }).click();
    await page.getByRole('button', { name: 'Buy now' }).click();
    await expect.poll(() => hash(page)).toMatch(/^#\/confirm\?.*payType=mifi/);
    await page.getByLabel('Card number').fill('4000 0000 0000 0002');
    await page.getByLabel('Expiry date (MM/YY)').fill('12/34');
    await page.getByLabel('CVC').fill('123');
    await page.getByRole('button', { name: /^Pay / }).click();
    const failed = page.getByRole('alertdialog', { name: 'Payment failed' });
    await failed.waitFor();
    await failed.getByRole('button', { name: 'Cancel' }).click();

    // Unpaid (33): only "Continue payment", which pays the same order through /confirm (payType mifi).
    await page.goto(`${env.product.base}/#/scanOrder`);
    const card = page.getByRole('article').filter({ hasText: 'Spain-Daily-3Days' });
    await expect.poll(() => card.textContent()).toContain('Unpaid');
    expect(await card.getByRole('button').allTextContents()).toEqual(['Continue payment']);
    await card.getByRole('button', { name: 'Continue payment' }).click();
    await expect.poll(() => hash(page)).toMatch(/^#\/confirm\?payType=mifi&mifiOrderId=/);
    expect(await page.locator('.amount').textContent()).toBe('€55');
    await payByCard(page);
    await expect.poll(() => hash(page), { timeout: 20_000 }).toMatch(/^#\/scanOrder\?orderId=/);
    const paid = page.getByRole('article').filter({ hasText: 'Spain-Daily-3Days' });
    await expect.poll(() => paid.textContent()).toContain('Unused');
    await paid.getByRole('button', { name: 'Pick up at a cabinet' }).click();

    // A box handed over by hand is bound by its serial, which it needs; an unknown one fails.
    await expect.poll(() => hash(page)).toMatch(/^#\/pickUp\?orderId=/);
    await page.getByRole('button', { name: 'Use this box' }).click();
    await page.getByText('Enter the serial number on the box').waitFor();
    await page.getByLabel('Serial number on the box').fill('MF-NOPE');
    await page.getByRole('button', { name: 'Use this box' }).click();
    const failedPickup = page.getByRole('alertdialog', { name: 'Pickup failed' });
    await failedPickup.waitFor();
    expect(await axeViolations(page), 'pickup failure dialog').toEqual([]);
  });
});

describe('the Wi-Fi line with a method beyond the card (PayPal in test mode)', () => {
  /** On /confirm: another payment method, PayPal, chosen on /payMethod. */
  async function choosePayPal(page: Page) {
    await page.getByRole('link', { name: 'Choose another payment method' }).click();
    await expect.poll(() => hash(page)).toMatch(/^#\/payMethod\?/);
    await page.getByRole('radio', { name: 'PayPal' }).check();
    await page.getByRole('button', { name: 'Continue' }).click();
    await expect.poll(() => hash(page)).toMatch(/^#\/confirm\?.*paymentId=paypal%3Apaypal/);
    await page.getByRole('heading', { name: 'PayPal' }).waitFor();
  }

  it('buys a package on PayPal’s page and back, then its box deposit (held by PayPal), and picks the box up', async () => {
    const context = await env.browser.newContext({ viewport: { width: 390, height: 844 }, locale: 'en-US' });
    // A traveller who signed in in Portuguese pays in euros, so the Lisbon cabinet (euros) may hand them the box.
    await context.addInitScript(
      (t) => localStorage.setItem('token', t),
      await touristToken(env.product.app, undefined, 'pt-PT'),
    );
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    // The mall without a cabinet (type GM): a package only, no box with it.
    await page.goto(`${env.product.base}/#/wifiMall?type=GM`);
    const dialog = await choose(page, 'france', 'France · Daily · 3 days');
    await dialog.getByRole('button', { name: 'Buy', exact: true }).click();
    await expect.poll(() => hash(page)).toBe('#/packageOrder?type=GM');
    await page.getByRole('checkbox', { name: /^Also rent a Wi-Fi box/ }).setChecked(false);
    await page.getByRole('button', { name: 'Buy now' }).click();
    await expect.poll(() => hash(page)).toMatch(/^#\/confirm\?.*payType=mifi/);
    await choosePayPal(page);
    await page.getByText('Test mode: you will be taken to the test payment page for PayPal').waitFor();
    await page.getByRole('button', { name: /^Pay / }).click();
    // PayPal's page (the sandbox's, in test mode); approved, the provider sends the customer back to the app.
    await page.waitForURL(/\/sandbox-pay\/checkout\//);
    await page.getByRole('button', { name: 'Pay', exact: true }).click();
    await page.waitForURL(/#\/(confirm\?.*payment_intent=|scanOrder)/);
    // The app resumes the payment of the order made before leaving, and shows how it ended.
    await expect.poll(() => hash(page), { timeout: 30_000 }).toMatch(/^#\/scanOrder\?orderId=/);
    await expect
      .poll(() => page.getByTestId('pay-outcome').textContent())
      .toBe('Payment received: France-Daily-3Days is paid.');
    const card = page.getByRole('article').filter({ hasText: 'France-Daily-3Days' });
    await expect.poll(() => card.textContent()).toContain('Unused');
    await checkScreen(page, '#/scanOrder after a payment');

    // No box was ordered with it: the pickup asks for the box deposit first.
    await card.getByRole('button', { name: 'Pick up at a cabinet' }).click();
    await page.getByRole('heading', { name: 'Box deposit' }).waitFor();
    await checkScreen(page, '#/pickUp, the deposit step');
    await page.evaluate(() => localStorage.setItem('lang', 'lt-LT'));
    await page.reload();
    await page.getByRole('heading', { name: 'Įrenginio užstatas' }).waitFor();
    await checkScreen(page, 'lt-LT #/pickUp, the deposit step');
    await page.evaluate(() => localStorage.setItem('lang', 'en-US'));
    await page.reload();
    await page.getByRole('link', { name: /^Pay the .+ deposit$/ }).click();
    await expect.poll(() => hash(page)).toMatch(/^#\/confirm\?.*mifiDeposit=1/);
    await choosePayPal(page);
    // PayPal can hold: the deposit is authorised there, not charged.
    await page.getByText(/^Wi-Fi box deposit: the amount is held by your payment method/).waitFor();
    await checkScreen(page, '#/confirm, a box deposit');
    await page.getByRole('button', { name: /^Authorize / }).click();
    await page.waitForURL(/\/sandbox-pay\/checkout\//);
    await page.getByRole('button', { name: 'Authorise the deposit' }).click();
    await expect.poll(() => hash(page), { timeout: 30_000 }).toMatch(/^#\/pickUp\?orderId=.+&deposit=paid$/);
    await page.getByText('Deposit paid. Pick up your box at a cabinet.').waitFor();
    await page.getByLabel('Cabinet code').fill('PWL-LIS-001');
    await page.getByRole('button', { name: 'Pick up here' }).click();
    await expect.poll(() => hash(page), { timeout: 20_000 }).toMatch(/^#\/packageDetail\?orderId=/);
    await expect.poll(() => page.getByTestId('device-sn').textContent()).toMatch(/^MF-LIS-/);
    await context.close();
  });
});
