// An agent's rider setting in the console, in Chromium against the real server: the owner, in the longest language
// (Lithuanian), opens an agent at tablet width (768 px), turns on "deposits are always paid", saves it with a reason;
// after a reload the box is still ticked and the server has it. Nothing wider than the screen, axe clean.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { axeViolations } from './axe.ts';
import { consoleInChromium } from './opsConsole.ts';

const env = consoleInChromium();
const LANG = 'lt-LT';
const lt = JSON.parse(readFileSync(new URL(`../../locales/ops/${LANG}.json`, import.meta.url), 'utf8')).ops;

/** Axe clean, and nothing wider than the 768 px screen (the page scrolls only vertically). */
async function fitsTablet(page: Page, what: string) {
  expect(await page.evaluate(() => document.documentElement.scrollWidth), `${what} at 768 px`).toBeLessThanOrEqual(768);
  expect(await axeViolations(page), what).toEqual([]);
}

describe('an agent’s rider settings in the console', () => {
  it(`"deposits are always paid": turned on, saved, kept after a reload (768 px, ${LANG})`, async () => {
    const { product, page, base } = env;
    await product.app.powerly.fleet.agents.create({
      id: 'agent-deposits',
      name: 'Vilniaus partneris',
      currencies: ['EUR'],
      origins: [],
    });
    const token = await product.app.powerly.staff.seedOwner('owner@powerly.local', 'Olivia Owner');
    await page.setViewportSize({ width: 768, height: 1024 });
    await page.goto(`${base}/ops/#/invitation?token=${encodeURIComponent(token!)}`);
    await page.getByRole('button', { name: 'Create passkey and join' }).click();
    await page.getByRole('heading', { level: 1, name: 'My account' }).waitFor();
    await page.evaluate((l) => localStorage.setItem('lang', l), LANG);
    await page.goto(`${base}/ops/#/agents`);
    await page.reload();
    await expect.poll(() => page.evaluate(() => document.documentElement.lang)).toBe(LANG);

    const main = page.getByRole('main');
    await main.getByRole('link', { name: 'Vilniaus partneris' }).waitFor();
    await fitsTablet(page, 'the agents list');
    await main.getByRole('link', { name: 'Vilniaus partneris' }).click();
    await main.getByRole('heading', { level: 2, name: 'Vilniaus partneris' }).waitFor();
    const always = main.getByRole('checkbox', { name: lt.agents.depositByPayment });
    // Its hint describes it.
    await expect
      .poll(() =>
        always.evaluate((el) => document.getElementById(el.getAttribute('aria-describedby') ?? '')?.textContent),
      )
      .toBe(lt.agents.depositByPaymentHint);
    expect(await always.isChecked()).toBe(false);
    await fitsTablet(page, 'the agent form');

    await always.check();
    await main.getByLabel(lt.reason).fill('užstatas visada kortele');
    await main.getByRole('button', { name: lt.form.save, exact: true }).click();
    await main.getByText(lt.form.saved).waitFor();
    await fitsTablet(page, 'the agent form, saved');
    await expect
      .poll(
        async () =>
          (
            await product.db.query<{ d: boolean }>(
              `select deposit_by_payment as d from agents where id = 'agent-deposits'`,
            )
          ).rows[0]?.d,
      )
      .toBe(true);

    await page.reload();
    await main.getByRole('heading', { level: 2, name: 'Vilniaus partneris' }).waitFor();
    await expect.poll(() => always.isChecked()).toBe(true);
    await fitsTablet(page, 'the agent form after a reload');

    // And off again: the setting is the form's, not stuck once on.
    await always.uncheck();
    await main.getByLabel(lt.reason).fill('vėl kaip anksčiau');
    await main.getByRole('button', { name: lt.form.save, exact: true }).click();
    await main.getByText(lt.form.saved).waitFor();
    await page.reload();
    await main.getByRole('heading', { level: 2, name: 'Vilniaus partneris' }).waitFor();
    await expect.poll(() => always.isChecked()).toBe(false);
  });
});
