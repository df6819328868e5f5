// The wallet in Chromium against the real server: top up with the sandbox test card, withdraw back to the card
// (auto-audited), top up again, withdraw all through the payout-channel sheet, and see the movements.
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { productInChromium } from './product.ts';

const env = productInChromium();
const newPage = env.newPage;

async function topUp(page: Page, preset: string) {
  await page.getByRole('link', { name: 'Top up' }).click();
  await page.waitForURL(/#\/wallet_in/).catch(async () => {
    throw new Error(`not on wallet_in: ${page.url()} ${(await page.textContent('body'))?.slice(0, 300)}`);
  });
  await page
    .getByRole('heading', { name: 'Top up' })
    .waitFor()
    .catch(async () => {
      throw new Error(`no screen: ${page.url()} ${(await page.textContent('body'))?.slice(0, 500)}`);
    });
  await expect.poll(() => page.getByLabel(/^Amount/).inputValue()).toBe('10'); // default
  expect(await page.getByLabel(/^Amount/).getAttribute('readonly')).not.toBeNull();
  await page.getByRole('button', { name: preset, exact: true }).click();
  await page.getByLabel('Card number').fill('4242 4242 4242 4242');
  await page.getByLabel('Expiry date (MM/YY)').fill('12/34');
  await page.getByLabel('CVC').fill('123');
  await page.getByRole('button', { name: `Pay ${preset}` }).click();
  await page.getByRole('dialog', { name: 'Top-up successful' }).waitFor();
  await page.getByRole('button', { name: 'OK' }).click();
  // After a wallet top-up (CZ) the success dialog leads to /mine.
  await page.waitForURL(/#\/mine/);
  await page.goto(page.url().replace(/#.*/, '#/wallet'));
}

describe('wallet: top-up then withdrawal', () => {
  it('tops up, withdraws, and shows the balance and movements', async () => {
    const page = await newPage();
    // A tourist session comes with the code link (NYC: a USD venue).
    await page.goto(`${env.product.base}/#/?qrcode=PWL-NYC-001`);
    // Only once the scan has answered (it lands on package selection and opens the USD wallet): going to the
    // wallet earlier races the scan's own navigation and the wallet list may not have USD yet.
    await expect.poll(() => page.evaluate(() => location.hash), { timeout: 20_000 }).toMatch(/^#\/selectPakage/);
    await page.goto(`${env.product.base}/#/wallet`);
    const card = page.getByTestId('wallet-USD');
    await expect.poll(() => card.getByTestId('balance').textContent()).toBe('$0');

    await topUp(page, '$30');
    await expect.poll(() => card.getByTestId('balance').textContent()).toBe('$30');

    // Withdrawal: rules first, then 20 back to the card (refundTypes includes 0: auto-audited).
    await page.getByRole('link', { name: 'Withdraw' }).click();
    await expect.poll(() => page.getByTestId('available').textContent()).toBe('$30');
    const amount = page.getByLabel(/^Amount to withdraw/);
    await page.getByRole('button', { name: 'Withdraw', exact: true }).click();
    await expect.poll(() => page.getByText('Enter an amount.').count()).toBe(1);
    await amount.fill('31');
    await page.getByRole('button', { name: 'Withdraw', exact: true }).click();
    await expect.poll(() => page.getByText('The amount cannot be more than your balance.').count()).toBe(1);
    await amount.fill('20');
    await page.getByRole('button', { name: 'Withdraw', exact: true }).click();
    const done = page.getByRole('dialog', { name: 'Withdrawal requested' });
    await done.waitFor();
    expect(await done.textContent()).toContain('Funds arrive in 1 to 5 workdays.');
    await done.getByRole('button', { name: 'OK' }).click();
    await expect.poll(() => page.getByTestId('available').textContent()).toBe('$10');
    expect(await amount.inputValue()).toBe(''); // reset

    // Top up 10 more; withdrawing all 20 cannot go back to one card: the payout-channel sheet.
    await page.goto(`${env.product.base}/#/wallet`);
    await topUp(page, '$10');
    await expect.poll(() => card.getByTestId('balance').textContent()).toBe('$20');
    await page.getByRole('link', { name: 'Withdraw' }).click();
    await expect.poll(() => page.getByTestId('available').textContent()).toBe('$20');
    await page.getByRole('button', { name: 'Withdraw all' }).click();
    expect(await amount.inputValue()).toBe('20');
    await page.getByRole('button', { name: 'Withdraw', exact: true }).click();
    const sheet = page.getByRole('dialog', { name: 'Where should we send the money?' });
    await sheet.waitFor();
    await sheet.getByLabel('Account holder').fill('Ana Silva');
    await sheet.getByRole('button', { name: 'Confirm' }).click();
    await expect.poll(() => sheet.getByText('All information is required').count()).toBe(1);
    await sheet.getByLabel('Routing number').fill('011000015');
    await sheet.getByLabel('Account number').fill('1234567890');
    await sheet.getByLabel('Account type').selectOption('checking');
    await sheet.getByRole('button', { name: 'Confirm' }).click();
    await done.waitFor();
    await done.getByRole('button', { name: 'OK' }).click();
    await expect.poll(() => page.getByTestId('available').textContent()).toBe('$0');

    // The provider confirms the payouts (signed webhook events from its job); the movements show them.
    await env.product.app.powerly.jobs.runDue();
    await page.goto(`${env.product.base}/#/wallet_list?currency=USD`);
    const rows = page.getByRole('list', { name: 'Transactions' }).getByRole('listitem');
    await expect.poll(() => rows.count()).toBe(4);
    const text = (await rows.allTextContents()).join('\n');
    expect(text.match(/Withdrawal.*Paid out/g)?.length).toBe(2);
    expect(text.match(/Top-up/g)?.length).toBe(2);
  });
});
