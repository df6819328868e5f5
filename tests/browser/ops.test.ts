// The back-office console in Chromium against the real server: the seeded owner's invitation link creates a
// passkey in a virtual authenticator (DevTools protocol WebAuthn domain), the shell shows only what the owner may
// use, signing out and in again with that passkey works from the keyboard, and axe finds no violation.
import { describe, expect, it } from 'vitest';
import { axeViolations } from './axe.ts';
import { consoleInChromium } from './opsConsole.ts';

const env = consoleInChromium();

describe('the back-office console', () => {
  it('joins with a passkey, shows the shell, signs out and in again with the passkey, with no axe violation', async () => {
    const { product, page, base } = env;
    const token = await product.app.powerly.staff.seedOwner('owner@powerly.local', 'Olivia Owner');
    await page.goto(`${base}/ops/#/invitation?token=${encodeURIComponent(token!)}`);
    await page.getByRole('button', { name: 'Create passkey and join' }).click();
    await page.getByRole('heading', { level: 1, name: 'My account' }).waitFor();
    const nav = page.getByRole('navigation', { name: 'Main' });
    expect(await nav.getByRole('link').allTextContents()).toEqual([
      'Staff',
      'Venues',
      'Cabinets',
      'Price plans',
      'Wi-Fi line',
      'Agents and embeds',
      'Payment methods',
      'Coupons',
      'Rentals',
      'Riders',
      'Payments',
      'Wi-Fi packages',
      'Disputes',
      'Withdrawals',
      'Money',
      'Wallet credits and debits',
      'Partners',
      'Alerts',
      'Dashboard',
      'Rebalancing',
      'Dead jobs',
      'Cabinet inbox',
      'Audit log',
      'My account',
    ]);
    expect(await axeViolations(page)).toEqual([]);

    await nav.getByRole('link', { name: 'Audit log' }).click();
    await page.getByRole('cell', { name: 'staff.accept' }).waitFor();
    expect(await axeViolations(page)).toEqual([]);

    await page.getByRole('button', { name: 'Sign out' }).click();
    const passkey = page.getByRole('button', { name: 'Sign in with a passkey' });
    await passkey.waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await passkey.focus();
    await page.keyboard.press('Enter');
    // Signed in again: the shell names the owner (the sign-in screen has a heading of its own, so wait for the shell).
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
    await page.getByText('owner@powerly.local').first().waitFor();
    await expect.poll(() => passkey.count()).toBe(0);
  });

  it('creates a coupon from the form, pauses it with a reason and shows its uses, at 768 px, with no axe violation', async () => {
    const { page, base } = env;
    await page.setViewportSize({ width: 768, height: 900 });
    await page.goto(`${base}/ops/#/coupons`);
    await page.getByRole('heading', { level: 1, name: 'Coupons' }).waitFor();
    const form = page.getByRole('region', { name: 'New coupon' });
    await form.getByLabel('Code').fill('SPRING15');
    await form.getByRole('spinbutton', { name: 'Percentage' }).fill('15');
    await form.getByLabel('Valid from').fill('2026-01-01T00:00');
    await form.getByLabel('Valid until').fill('2030-01-01T00:00');
    await form.getByLabel('Reason').fill('spring campaign');
    await form.getByRole('button', { name: 'Create coupon' }).click();
    const created = page.getByRole('status').filter({ hasText: 'Coupon SPRING15 created.' });
    await created.or(form.getByRole('alert')).waitFor();
    expect(await form.getByRole('alert').allTextContents()).toEqual([]);
    const row = page.getByRole('row').filter({ hasText: 'SPRING15' });
    await row.getByText('15%').waitFor();
    await row.getByText('0 used · at most ∞ in total, 1 per rider').waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await row.getByLabel('Reason').fill('paused for the audit');
    await row.getByRole('button', { name: 'Pause' }).click();
    await row.getByRole('button', { name: 'Resume' }).waitFor();
    await row.getByText('Latest uses').click();
    await row.getByText('Nothing here yet.').waitFor();
    expect(await axeViolations(page)).toEqual([]);
  });
});
