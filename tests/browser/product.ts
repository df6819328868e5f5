// The whole product in this process for a browser test: the server's own test build (fresh database,
// private MQTT topics, the cabinet simulator, a clock the test moves) serving the built app and demo pages
// on an ephemeral port.
import { afterAll, beforeAll, expect } from 'vitest';
import type { Browser, Frame, Page } from 'playwright-core';
import { launchChromium, phonePage } from './chromium.ts';
import { build, cabinetsOnline, type Built, type BuildOptions } from '../../server/test/helper.ts';

export interface RunningProduct extends Built {
  base: string;
}

export async function startProduct(opts: Omit<BuildOptions, 'frontEnd'> = {}): Promise<RunningProduct> {
  const built = await build({ ...opts, frontEnd: 'dist' });
  try {
    const base = await built.app.listen({ port: 0, host: '127.0.0.1' });
    // Every simulated cabinet has said hello: a rent at a cabinet not heard from is refused at once (fail fast).
    if (built.fleet) {
      const { rows } = await built.db.query<{ id: string }>('select id from cabinets');
      await cabinetsOnline(
        built,
        rows.map((r) => r.id),
      );
    }
    return { ...built, base };
  } catch (e) {
    await built.close();
    throw e;
  }
}

/**
 * After a scan the app shows package selection (#/selectPakage scan flow): check it is there with
 * the scanned cabinet, and go on to the cabinet home the way a person does — its Continue button.
 */
export async function continueToCabinetHome(page: Page | Frame, venue?: string): Promise<void> {
  await expect.poll(() => page.evaluate(() => location.hash), { timeout: 20_000 }).toMatch(/^#\/selectPakage/);
  const screen = page.locator('main.select-pakage');
  if (venue) await expect.poll(() => screen.getByRole('heading', { name: venue }).count()).toBe(1);
  await screen.getByRole('button', { name: 'Continue', exact: true }).click();
  await expect.poll(() => page.evaluate(() => location.hash)).toBe('#/home');
}

/** The sandbox card form: a card number (the test card decides the outcome), any expiry and CVC, then Authorize. */
export async function payWithCard(page: Page | Frame, number = '4242 4242 4242 4242'): Promise<void> {
  await page.getByLabel('Card number').fill(number);
  await page.getByLabel('Expiry date (MM/YY)').fill('12/34');
  await page.getByLabel('CVC').fill('123');
  await page.getByRole('button', { name: /^Authorize/ }).click();
}

/**
 * One product and one Chromium for a test file, started before its tests and closed after them.
 * `newPage()` opens a phone-sized page.
 */
export function productInChromium(options: Omit<BuildOptions, 'frontEnd'> = {}) {
  const env = {
    product: undefined as unknown as RunningProduct,
    browser: undefined as unknown as Browser,
    newPage: () => phonePage(env.browser),
  };
  beforeAll(async () => {
    env.product = await startProduct(options);
    env.browser = await launchChromium();
  });
  afterAll(async () => {
    await env.browser?.close();
    await env.product?.close();
  });
  return env;
}
