// The embed in a native app's web view, where messages have no origin (docs/embed.md): the content is signed in by
// a one-time code the server redeems (embed/nativeBridge.ts). A rental end to end through the native channel with
// a replayed code refused, and a hostile opener whose own code is never redeemed by the window it opened.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from './chromium.ts';
import type { RunningProduct } from './product.ts';
import {
  hostPage,
  log,
  payInFrame,
  powerbankOut,
  returnTo,
  startHosts,
  widgetFrame,
  type Hosts,
} from './embedHosts.ts';

let hosts: Hosts;
let product: RunningProduct;
let browser: Browser;
let partnerOrigin: string;

beforeAll(async () => {
  hosts = await startHosts({ nativeApp: true });
  ({ product, partnerOrigin } = hosts);
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await hosts?.close();
});

const newPage = (): Promise<Page> => hostPage(browser);

describe('native web-view host (no origin: a signed one-time code)', () => {
  it('redeems the code, rents end to end, and reports through the native channel; a replayed code is refused', async () => {
    const page = await newPage();
    await page.goto(`${product.base}/demo/native.html`);
    const frame = await widgetFrame(page);
    await expect.poll(() => frame.getByText('Time Out Market Lisboa').count()).toBeGreaterThan(0);
    await expect.poll(() => log(page).textContent()).toContain('webview ready');
    await payInFrame(frame);
    await expect.poll(() => log(page).textContent()).toMatch(/webview eject\.confirmed orderId=\S+/);
    await returnTo(product.base, 'PWL-NYC-001', await powerbankOut(frame));
    await expect
      .poll(() => log(page).textContent(), { timeout: 20_000 })
      .toMatch(/webview rental\.returned orderId=\S+/);

    // An injected message without a valid code is ignored; replaying the used code is refused.
    const replay = await frame.evaluate(async () => {
      const out: string[] = [];
      (window as unknown as { ReactNativeWebView: { postMessage(s: string): void } }).ReactNativeWebView = {
        postMessage: (s) => out.push(s),
      };
      window.dispatchEvent(
        new MessageEvent('message', {
          data: JSON.stringify({ powerly: 1, type: 'setQrcode', payload: { qrcode: 'PWL-VNO-001' } }),
        }),
      );
      window.dispatchEvent(
        new MessageEvent('message', {
          data: JSON.stringify({ powerly: 1, type: 'init', payload: { version: 1, qrcode: 'PWL-VNO-001' } }),
        }),
      );
      window.dispatchEvent(
        new MessageEvent('message', {
          data: JSON.stringify({
            powerly: 1,
            type: 'init',
            payload: { version: 1, code: 'v1.forged.' + 'A'.repeat(43), qrcode: 'PWL-VNO-001' },
          }),
        }),
      );
      await new Promise((r) => setTimeout(r, 1500));
      return out;
    });
    expect(replay.some((s) => s.includes('"badCode"'))).toBe(true);
    expect(await frame.getByText('GO9 Gedimino 9').count()).toBe(0);
  });
});

describe('the hostile opener', () => {
  it('a page that window.open()s the native frame and posts its own one-time code does not sign that window in', async () => {
    // The attacker's own account and a valid one-time code for it.
    const login = await product.app.inject({
      method: 'POST',
      url: '/cdb-app-api/v1/app/saas/tourist/login?code=attacker-device-0000000001',
    });
    const attacker = login.json().data as string;
    const issued = await product.app.inject({
      method: 'POST',
      url: '/cdb-app-api/v1/app/embed/code',
      headers: { token: attacker },
      payload: { agent: 'demo-app' },
    });
    const code = issued.json().data.code as string;
    expect(code).toMatch(/^v1\./);
    const page = await newPage();
    await page.goto(`${partnerOrigin}/demo/partner/?api=none`); // the attacker's page, another origin
    const opened = page.context().waitForEvent('page');
    await page.evaluate(
      ({ url, code }) => {
        const w = window.open(url);
        const msg = JSON.stringify({ powerly: 1, type: 'init', payload: { version: 1, code } });
        const t = setInterval(() => {
          try {
            w?.postMessage(msg, '*');
          } catch {
            /* severed */
          }
        }, 100);
        setTimeout(() => clearInterval(t), 5000);
      },
      { url: `${product.base}/embed/frame.html?agent=demo-app&transport=native`, code },
    );
    const victim = await opened;
    await victim.waitForLoadState();
    await new Promise((r) => setTimeout(r, 5500));
    // The code was never redeemed by the victim's window (so it holds no session of the attacker's): it still
    // works, exactly once, here.
    const redeem = await product.app.inject({
      method: 'POST',
      url: '/cdb-app-api/v1/app/embed/code/redeem',
      payload: { code, agent: 'demo-app' },
    });
    expect(redeem.json().code).toBe(0);
  });
});
