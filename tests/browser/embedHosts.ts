// What the embed's browser tests share (embed.test.ts, embedApi.test.ts): the product with the partner site on
// another origin and the demo agents, a context sized for the widgets, the widget's frame on a host page, a rental
// paid inside it, its power bank taken out and returned, and the host page's event log.
import { expect } from 'vitest';
import type { Browser, BrowserContext, Frame, Page } from 'playwright-core';
import { startPartnerSite } from '../../server/src/demo/partner-site.ts';
import { continueToCabinetHome, payWithCard, startProduct, type RunningProduct } from './product.ts';

export interface Hosts {
  product: RunningProduct;
  partner: Awaited<ReturnType<typeof startPartnerSite>>;
  partnerOrigin: string;
  /** The same partner site under another host name: another top-level site for the browser. */
  otherSiteOrigin: string;
  close(): Promise<void>;
}

/**
 * A product (fresh database, simulated cabinets with their seeded stock) with venue.html and the partner site, and
 * their agents: demo-venue (the product's origin), demo-partner (the partner site, and with `otherSite` the same
 * site under its other host name), and with `nativeApp` demo-app (the native web-view host).
 */
export async function startHosts(opts: { otherSite?: boolean; nativeApp?: boolean } = {}): Promise<Hosts> {
  const product = await startProduct();
  const partner = await startPartnerSite('dist', 0, '127.0.0.1', product.base);
  const partnerOrigin = new URL(partner.url).origin;
  const otherSiteOrigin = partnerOrigin.replace('127.0.0.1', 'localhost');
  await product.app.powerly.embed.saveAgent({
    id: 'demo-venue',
    name: 'venue',
    origins: [new URL(product.base).origin],
  });
  await product.app.powerly.embed.saveAgent({
    id: 'demo-partner',
    name: 'partner',
    origins: opts.otherSite ? [partnerOrigin, otherSiteOrigin] : [partnerOrigin],
  });
  if (opts.nativeApp)
    await product.app.powerly.embed.saveAgent({
      id: 'demo-app',
      name: 'native',
      origins: [new URL(product.base).origin],
    });
  return {
    product,
    partner,
    partnerOrigin,
    otherSiteOrigin,
    async close() {
      await partner.site.close();
      await product.close();
    },
  };
}

/** A fresh context sized for a host page with a widget (420×900, en-US). */
export function embedContext(browser: Browser): Promise<BrowserContext> {
  return browser.newContext({ viewport: { width: 420, height: 900 }, locale: 'en-US' });
}

/** A host page in a fresh context of its own (embedContext), with a 20 s default wait. */
export async function hostPage(browser: Browser): Promise<Page> {
  const page = await (await embedContext(browser)).newPage();
  page.setDefaultTimeout(20_000);
  return page;
}

/** The `nth` widget's frame on the page (the iframe page's URL), once there is one. */
export function widgetFrame(page: Page, nth = 0): Promise<Frame> {
  return expect
    .poll(() => page.frames().filter((f) => f.url().includes('/embed/frame.html')).length)
    .toBeGreaterThan(nth)
    .then(() => page.frames().filter((f) => f.url().includes('/embed/frame.html'))[nth]!);
}

/** The host page's log of the widget's events. */
export const log = (page: Page) => page.getByRole('log');

/** The frame of the iframe `selector` names, once it has one. */
export async function frameOf(page: Page, selector: string): Promise<Frame> {
  await expect.poll(async () => !!(await (await page.locator(selector).elementHandle())?.contentFrame())).toBe(true);
  return (await (await page.locator(selector).elementHandle())!.contentFrame())!;
}

/** From the scanned cabinet's package selection to a card payment of the deposit hold (the card decides how). */
export async function payInFrame(frame: Frame, card = '4242 4242 4242 4242') {
  await continueToCabinetHome(frame);
  await frame.getByRole('button', { name: /^Hold / }).click();
  await payWithCard(frame, card);
}

/** The power bank the widget says is out. */
export async function powerbankOut(frame: Frame): Promise<string> {
  const out = frame.getByRole('status').filter({ hasText: 'Your power bank is out!' });
  // On a timeout, say where the widget stood (seen once under heavy machine load, not reproduced since).
  await out.waitFor().catch(async (e: unknown) => {
    const where = await frame
      .evaluate(
        () =>
          `${location.hash}: ${document.body.innerText.slice(0, 600)} HTML ${document.body.innerHTML.slice(0, 3000)}`,
      )
      .catch(() => '?');
    throw new Error(`no "power bank is out" in the widget at ${where}`, { cause: e });
  });
  return (await out.textContent())!.match(/power bank (\S+) from slot/)![1]!;
}

/** The power bank put back into a simulated cabinet of the product at `base`. */
export async function returnTo(base: string, cabinet: string, powerbankId: string) {
  const res = await fetch(`${base}/demo-api/cabinets/${cabinet}/return`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ powerbankId }),
  });
  expect(res.status).toBe(200);
}
