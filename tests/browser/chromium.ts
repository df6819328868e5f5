// Debian's Chromium driven by playwright-core (never a downloaded browser build).
import { chromium, type Browser, type Page } from 'playwright-core';
import { existsSync } from 'node:fs';

const CANDIDATES = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'];

export function chromiumPath(): string {
  const found = CANDIDATES.find((p): p is string => !!p && existsSync(p));
  if (!found) throw new Error('Chromium not found: apt-get install -y chromium (or set CHROMIUM_PATH)');
  return found;
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath(),
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/** A fresh context sized like a phone (390×844, en-US) and its page, with a 15 s default wait. */
export async function phonePage(browser: Browser): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 390, height: 844 }, locale: 'en-US' });
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  return page;
}

/**
 * The app has mounted (App's first effect; over prerendered markup: hydrated). A person may tap the painted page
 * before that; a test that interacts straight after `goto` waits for it, so what it checks is the app's answer.
 */
export async function mounted(page: Page): Promise<void> {
  await page.waitForSelector('html[data-mounted]', { state: 'attached', timeout: 30_000 });
}
