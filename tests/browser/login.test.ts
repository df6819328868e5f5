// Phone login as a person does it, in Chromium against the real server: the landing, other login, the
// area-code wheel picker (filter), the picture captcha, the code texted by the sandbox SMS gateway (read off
// the demo page's SMS panel), the 4-digit code screen, and the home map route with a signed-in session.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { sha256 } from '../../server/src/lib/ids.ts';
import { axeViolations } from './axe.ts';
import { launchChromium } from './chromium.ts';
import { startProduct, type RunningProduct } from './product.ts';

let product: RunningProduct;
let browser: Browser;

beforeAll(async () => {
  product = await startProduct();
  // The timestamp sign is checked against the server clock: let the test clock show real time.
  product.clock.advance(Date.now() - product.clock.now().getTime());
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await product?.close();
});

describe('sign in to borrow (/loginborrow)', () => {
  it('shows the sign-in landing, and the borrow is where the sign-in comes back to', async () => {
    const context = await browser.newContext({ viewport: { width: 390, height: 844 }, locale: 'en-US' });
    const page = await context.newPage();
    await page.goto(`${product.base}/#/loginborrow?qrcode=PWL-LIS-001`);
    await expect.poll(() => page.getByRole('heading', { name: 'Sign in' }).count()).toBe(1);
    // Stored by the screen's effect, which runs after the paint that shows the heading.
    await expect.poll(() => page.evaluate(() => localStorage.getItem('loginPath'))).toBe('/?qrcode=PWL-LIS-001');
    expect(await axeViolations(page)).toEqual([]);
    await context.close();
  });
});

describe('phone login', () => {
  it('from the landing to the home map, signed in', async () => {
    const context = await browser.newContext({ viewport: { width: 390, height: 844 }, locale: 'en-US' });
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    await page.goto(`${product.base}/#/login`);

    await expect.poll(() => page.getByRole('heading', { name: 'Sign in' }).count()).toBe(1);
    expect(await page.getByRole('button', { name: 'Continue with Google' }).count()).toBe(1); // not iOS: Google
    await page.getByRole('button', { name: 'Other ways to sign in' }).click();
    await expect.poll(() => page.evaluate(() => location.hash)).toBe('#/otherLogin');

    // Mobile login tab; en-US browser → +1; pick Lithuania through the filtered wheel.
    expect(await page.getByRole('tab', { name: /Mobile login/ }).getAttribute('aria-selected')).toBe('true');
    await page.getByRole('button', { name: 'Area code +1, change' }).click();
    await page.getByLabel('Search').fill('LITH');
    await expect.poll(() => page.getByRole('option').count(), { timeout: 3000 }).toBe(1);
    await page.getByRole('button', { name: 'Confirm' }).click();
    await expect.poll(() => page.getByRole('button', { name: 'Area code +370, change' }).count()).toBe(1);

    // Validation first: no number.
    await page.getByRole('button', { name: 'Send code' }).click();
    await expect.poll(() => page.getByRole('alert').first().textContent()).toBe('Phone number required');

    await page.getByLabel('Phone number').fill('61234567');
    // The picture captcha: its answer is stored hashed; the test sets a known one for the shown uuid.
    const img = page.getByAltText(/Picture code/);
    await expect.poll(() => img.evaluate((el) => (el as HTMLImageElement).naturalWidth)).toBeGreaterThan(0);
    const uuid = new URL((await img.getAttribute('src'))!, product.base).searchParams.get('uuid')!;
    const set = await product.db.query('update captchas set answer_hash = $2 where uuid = $1', [uuid, sha256('k7pq')]);
    expect(set.rowCount).toBe(1);
    await page.getByLabel('Picture code', { exact: true }).fill('K7PQ');
    await page.getByRole('button', { name: 'Send code' }).click();
    await expect.poll(() => page.getByText(/We sent a 4-digit code to \+370 61234567/).count()).toBe(1);

    // The code, as the demo page's sandbox SMS panel shows it.
    const demo = await context.newPage();
    await demo.goto(`${product.base}/demo/`);
    const row = demo.getByRole('row').filter({ hasText: '+37061234567' });
    await expect.poll(() => row.count()).toBe(1);
    const code = /\b(\d{4})\b/.exec((await row.textContent())!)![1]!;
    await demo.close();

    // A wrong code first, then the right one.
    await page.getByLabel('4-digit code').fill(code === '0000' ? '1111' : '0000');
    await page.getByRole('button', { name: 'Log in' }).click();
    await expect.poll(() => page.getByRole('alert').first().textContent()).toBe('The code is wrong.');
    await page.getByLabel('4-digit code').fill(code);
    await page.getByRole('button', { name: 'Log in' }).click();
    // Said, not only shown by the next screen.
    await page.getByText('Login successful').waitFor();

    await expect.poll(() => page.evaluate(() => location.hash)).toBe('#/homeMap');
    const token = await page.evaluate(() => localStorage.getItem('token'));
    expect(token).toBeTruthy();
    const me = await page.evaluate(
      async (t) => (await fetch('/cdb-app-api/v1/app/userInfo', { headers: { token: t! } })).json(),
      token,
    );
    expect(me).toMatchObject({ code: 0, data: { pmobile: '37061234567', userType: 'user' } });

    // Signed in, /loginborrow goes straight back to the borrow: the cabinet's code is scanned again.
    await page.goto(`${product.base}/#/loginborrow?qrcode=PWL-LIS-001`);
    await expect.poll(() => page.evaluate(() => location.hash), { timeout: 20_000 }).toMatch(/^#\/selectPakage/);
    await context.close();
  });

  for (const lang of ['lt-LT', 'pt-PT', 'es-ES', 'zh-CN', 'en-US'] as const) {
    it(`the picture code fits at 320 px in ${lang}, and its accessible alternative is a question that sends the code`, async () => {
      const context = await browser.newContext({ viewport: { width: 320, height: 700 }, locale: lang });
      await context.addInitScript((l) => localStorage.setItem('lang', l), lang);
      const page = await context.newPage();
      page.setDefaultTimeout(15_000);
      await page.goto(`${product.base}/#/otherLogin`);
      const img = page.locator('.captcha-image img');
      await expect.poll(() => img.evaluate((el) => (el as HTMLImageElement).naturalWidth)).toBeGreaterThan(0);
      // The whole picture shows inside its button, and nothing overflows the screen.
      const fit = await img.evaluate((el) => {
        const i = el.getBoundingClientRect();
        const b = el.parentElement!.getBoundingClientRect();
        const cs = getComputedStyle(el.parentElement!);
        const inner = {
          left: b.left + parseFloat(cs.borderLeftWidth),
          right: b.right - parseFloat(cs.borderRightWidth),
        };
        return {
          inside: i.left >= inner.left - 0.5 && i.right <= inner.right + 0.5,
          page: document.documentElement.scrollWidth,
        };
      });
      expect(fit).toEqual({ inside: true, page: 320 });
      expect(await axeViolations(page)).toEqual([]);

      // The alternative: a question read as text (the field is described by it), answered with digits.
      const asked = page.waitForRequest(/captcha\/question/);
      await page.locator('.captcha-switch').click();
      const uuid = new URL((await asked).url()).searchParams.get('uuid')!;
      const question = page.locator('.captcha-question');
      await expect.poll(async () => ((await question.textContent()) ?? '').split(/[,、]/).length).toBe(5);
      const field = page.locator('.captcha-row, .field').filter({ has: question }).locator('input');
      expect(await field.getAttribute('aria-describedby')).toBe(await question.getAttribute('id'));
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBe(320);
      expect(await axeViolations(page)).toEqual([]);
      expect(
        (await product.db.query('update captchas set answer_hash = $2 where uuid = $1', [uuid, sha256('31415')]))
          .rowCount,
      ).toBe(1);
      await page.locator('input[type=tel]').fill(`6123${String(lang.charCodeAt(0))}${String(lang.charCodeAt(3))}`);
      await field.fill('31415');
      await page.locator('form button[type=submit]').click();
      await expect.poll(() => page.locator('.code-input').count()).toBe(1);
      await context.close();
    });
  }
});
