// The back-office console in Chromium for a test file: the product on an ephemeral port (reached as localhost: a
// passkey's relying party is a host name, never an IP address), and one page with a virtual authenticator
// (DevTools protocol WebAuthn domain) so passkeys can be created and used.
import { afterAll, beforeAll } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchChromium } from './chromium.ts';
import { startProduct, type RunningProduct } from './product.ts';

export function consoleInChromium() {
  const env = {
    product: undefined as unknown as RunningProduct,
    browser: undefined as unknown as Browser,
    context: undefined as unknown as BrowserContext,
    page: undefined as unknown as Page,
    base: '',
  };
  beforeAll(async () => {
    env.product = await startProduct({ simulator: false });
    env.base = env.product.base.replace('127.0.0.1', 'localhost');
    env.browser = await launchChromium();
    env.context = await env.browser.newContext({ viewport: { width: 1280, height: 800 }, locale: 'en-US' });
    env.page = await env.context.newPage();
    env.page.setDefaultTimeout(15_000);
    const cdp = await env.context.newCDPSession(env.page);
    await cdp.send('WebAuthn.enable');
    await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: {
        protocol: 'ctap2',
        transport: 'internal',
        hasResidentKey: true,
        hasUserVerification: true,
        isUserVerified: true,
        automaticPresenceSimulation: true,
      },
    });
  }, 120_000);
  afterAll(async () => {
    await env.browser?.close();
    await env.product?.close();
  });
  return env;
}
