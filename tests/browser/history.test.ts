// History in Chromium: the app's back button walks back over in-app screens only and never leaves the app;
// inside the embed's iframe the widget's navigation and back never touch the host page's URL or history.
import { describe, expect, it } from 'vitest';
import type { Frame } from 'playwright-core';
import { productInChromium } from './product.ts';

const env = productInChromium();

describe('the app', () => {
  it('two screens on, Back twice comes back; Back once more goes to the fallback home, not out of the app', async () => {
    const page = await env.newPage();
    await page.goto('about:blank');
    await page.goto(`${env.product.base}/#/contactUs`);
    const back = page.locator('header.page-header').getByRole('button', { name: 'Back' });
    await back.waitFor();
    await page.evaluate(() => (location.hash = '#/aboutUs'));
    await expect.poll(() => page.locator('h1').first().textContent()).toBe('About us');
    await page.evaluate(() => (location.hash = '#/contactUs?from=about'));
    await expect.poll(() => page.locator('h1').first().textContent()).toBe('Contact us');
    const length = await page.evaluate(() => history.length);

    await back.click();
    await expect.poll(() => page.evaluate(() => location.hash)).toBe('#/aboutUs');
    await back.click();
    await expect.poll(() => page.evaluate(() => location.hash)).toBe('#/contactUs');
    // Nothing in-app behind: the fallback (no account type, no stored home → homeMap), by replace.
    await back.click();
    await expect.poll(() => page.evaluate(() => location.hash)).toBe('#/homeMap');
    expect(new URL(page.url()).origin).toBe(new URL(env.product.base).origin);
    expect(await page.evaluate(() => history.length)).toBe(length);
    // The browser's own Forward and Back keep the app's position.
    await page.goForward();
    await expect.poll(() => page.evaluate(() => location.hash)).toBe('#/aboutUs');
    await page.goBack();
    await expect.poll(() => page.evaluate(() => location.hash)).toBe('#/homeMap');
    // The title follows once the screen has rendered (the hash changes first).
    await expect.poll(() => page.title()).toBe('Find a power bank · Powerly');
  });
});

describe('the embed', () => {
  it("the widget's navigation and Back leave the host page's URL and history alone", async () => {
    await env.product.app.powerly.embed.saveAgent({
      id: 'demo-venue',
      name: 'venue',
      origins: [new URL(env.product.base).origin],
    });
    const page = await env.newPage();
    await page.goto(`${env.product.base}/demo/venue.html`);
    const frame = (await (await page.locator('#rent-lisbon iframe').elementHandle())!.contentFrame()) as Frame;
    await expect.poll(() => frame.evaluate(() => location.hash), { timeout: 20_000 }).toMatch(/^#\/selectPakage/);
    const host = await page.evaluate(() => ({ url: location.href, length: history.length }));

    // An in-frame hash link (taken over by the router), then the screen's Back button.
    await frame.evaluate(() => {
      const a = document.createElement('a');
      a.href = '#/aboutUs';
      a.textContent = 'about';
      a.id = 'probe-link';
      document.body.append(a);
    });
    await frame.locator('#probe-link').click();
    await expect.poll(() => frame.evaluate(() => location.hash)).toBe('#/aboutUs');
    await frame.locator('header.page-header').getByRole('button', { name: 'Back' }).click();
    await expect.poll(() => frame.evaluate(() => location.hash)).toMatch(/^#\/selectPakage/);
    expect(await page.evaluate(() => ({ url: location.href, length: history.length }))).toEqual(host);
  });
});
