// The back-office console in Chromium for a test file: the product (no simulated fleet), a desktop page at the
// console's host name (a passkey's relying party is a host name, never an IP address), and a virtual authenticator
// (DevTools protocol WebAuthn domain) that creates and uses passkeys without a person.
import { afterAll, beforeAll } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from './chromium.ts';
import { startProduct, type RunningProduct } from './product.ts';

export function consoleInChromium() {
  const env = { product: undefined as unknown as RunningProduct, browser: undefined as unknown as Browser, page: undefined as unknown as Page, base: '' };
  beforeAll(async () => {
    env.product = await startProduct({ simulator: false });
    env.base = env.product.base.replace('127.0.0.1', 'localhost');
    env.browser = await launchChromium();
    const context = await env.browser.newContext({ viewport: { width: 1280, height: 800 }, locale: 'en-US' });
    env.page = await context.newPage();
    env.page.setDefaultTimeout(20_000);
    const cdp = await context.newCDPSession(env.page);
    await cdp.send('WebAuthn.enable');
    await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
    });
  }, 120_000);
  afterAll(async () => {
    await env.browser?.close();
    await env.product?.close();
  });
  return env;
}
