// The back-office console in Chromium against the real server: the seeded owner's invitation link creates a
// passkey in a virtual authenticator (DevTools protocol WebAuthn domain), the shell shows only what the owner may
// use, signing out and in again with that passkey works from the keyboard, and axe finds no violation.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { axeViolations } from './axe.ts';
import { launchChromium } from './chromium.ts';
import { startProduct, type RunningProduct } from './product.ts';

let product: RunningProduct;
let browser: Browser;
let page: Page;
let base: string;

beforeAll(async () => {
  product = await startProduct({ simulator: false });
  // A passkey's relying party is a host name, never an IP address.
  base = product.base.replace('127.0.0.1', 'localhost');
  browser = await launchChromium();
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, locale: 'en-US' });
  page = await context.newPage();
  page.setDefaultTimeout(15_000);
  const cdp = await context.newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
  });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await product?.close();
});

describe('the back-office console', () => {
  it('joins with a passkey, shows the shell, signs out and in again with the passkey, with no axe violation', async () => {
    const token = await product.app.powerly.staff.seedOwner('owner@powerly.local', 'Olivia Owner');
    await page.goto(`${base}/ops/#/invitation?token=${encodeURIComponent(token!)}`);
    await page.getByRole('button', { name: 'Create passkey and join' }).click();
    await page.getByRole('heading', { level: 1, name: 'My account' }).waitFor();
    const nav = page.getByRole('navigation', { name: 'Main' });
    expect(await nav.getByRole('link').allTextContents()).toEqual(['Staff', 'Audit log', 'Partners', 'Alerts', 'My account']);
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
});
