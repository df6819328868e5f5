// /scanQr in Chromium against the real server: the camera scan of a cabinet's code is a screen (not the not-found
// one). Without a camera it says why and keeps the typed code, which scans that cabinet; axe clean, every target at
// least 44 × 44 px in Chinese, and at 320 px with text at 200 % in Lithuanian and Portuguese.
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { productInChromium } from './product.ts';
import { fitsSmallAndLarge } from './fits.ts';
import { touristToken } from '../../server/test/helper.ts';

const env = productInChromium();

async function pageIn(lang: string, token: string): Promise<Page> {
  const context = await env.browser.newContext({ viewport: { width: 390, height: 844 }, locale: 'en-US' });
  await context.addInitScript(
    ([l, t]) => {
      localStorage.setItem('lang', l!);
      localStorage.setItem('token', t!);
    },
    [lang, token] as const,
  );
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  return page;
}

describe('/scanQr', () => {
  it('without a camera says why; the typed cabinet code scans that cabinet', async () => {
    const page = await pageIn('en-US', await touristToken(env.product.app));
    await page.goto(`${env.product.base}/#/scanQr`);
    await expect.poll(() => page.locator('h1').textContent()).toBe("Scan the cabinet's QR code");
    // Headless Chromium has no camera: one of the camera messages, never the not-found screen.
    await expect.poll(() => page.getByRole('alert').textContent()).toMatch(/camera|Camera/);
    expect(await page.locator('main').textContent()).not.toContain('not found');
    await page.getByLabel('Or type the code printed on the cabinet').fill('PWL-LIS-001');
    await page.getByRole('button', { name: 'Continue', exact: true }).click();
    await expect.poll(() => page.evaluate(() => location.hash), { timeout: 20_000 }).toMatch(/^#\/selectPakage/);
  });

  it('fits a phone in every language; targets at least 44 × 44 px', async () => {
    const token = await touristToken(env.product.app);
    for (const lang of ['lt-LT', 'pt-PT', 'zh-CN']) {
      const page = await pageIn(lang, token);
      await page.goto(`${env.product.base}/#/scanQr?orderId=MF-PKG-0000001`);
      await expect.poll(() => page.getByRole('alert').count()).toBe(1);
      await expect.poll(() => page.locator('main p').first().textContent()).toContain('MF-PKG-0000001');
      const small = await page.evaluate(() =>
        [...document.querySelectorAll('main a, main button')]
          .map((el) => ({ el, r: el.getBoundingClientRect() }))
          .filter(({ r }) => r.width > 0 && r.height > 0 && (r.width < 44 || r.height < 44))
          .map(({ el, r }) => `${el.textContent?.trim()} ${Math.round(r.width)}×${Math.round(r.height)}`),
      );
      expect(small, lang).toEqual([]);
      await fitsSmallAndLarge(page, `/scanQr in ${lang}`);
      await page.context().close();
    }
  });
});
