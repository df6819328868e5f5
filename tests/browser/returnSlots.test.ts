// Always a place to return, in Chromium against the real server and cabinet simulator: the map keeps only the venues
// with a slot to return into now (the filter reaches the server) and counts a slot another rider keeps as taken; on a
// venue's page a rider with a power bank out keeps a slot for 15 minutes, sees the cabinet confirm it, and gives it
// back. A rider with nothing out is told so in their language. Each cabinet on the venue page shows its free slots and
// power banks and follows them live: another rider's rental changes them without a reload. At 320 px, 44 px targets,
// 0 axe violations.
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { axeViolations } from './axe.ts';
import { fitsSmallAndLarge } from './fits.ts';
import { productInChromium } from './product.ts';
import { cabinetsOnline, cardToken, touristToken } from '../../server/test/helper.ts';

const env = productInChromium();
const API = '/cdb-app-api/v1/app';
const VENUE = '#/nearby_shop?shopId=v-vno-gedimino';

async function rentedAtVilnius() {
  await cabinetsOnline(env.product, ['PWL-VNO-001']);
  const token = await touristToken(env.product.app);
  const rent = await env.product.app.inject({
    method: 'POST',
    url: `${API}/cdb/cabinet/useDepositToRent`,
    headers: { token },
    payload: { qrcode: 'PWL-VNO-001', stripeToken: await cardToken(env.product.app), paymentId: 'card-sandbox' },
  });
  const orderId: string = rent.json().data.outTradeNo;
  await expect
    .poll(
      async () =>
        (
          await env.product.app.inject({
            method: 'GET',
            url: `${API}/cdb/mine/order/detail?orderId=${orderId}`,
            headers: { token },
          })
        ).json().data.pZujie,
      { timeout: 30_000 },
    )
    .toBe(1);
  return token;
}

async function signedIn(token: string, lang = 'en-US'): Promise<Page> {
  const page = await env.newPage();
  await page.setViewportSize({ width: 320, height: 700 });
  await page.addInitScript(
    ([t, l]) => {
      localStorage.setItem('token', t!);
      localStorage.setItem('lang', l!);
    },
    [token, lang],
  );
  return page;
}

describe('return slots', () => {
  it('keep a slot at a venue, the cabinet confirms it, the map counts it as taken for others, give it back', async () => {
    const token = await rentedAtVilnius();
    const page = await signedIn(token);
    await page.goto(`${env.product.base}/${VENUE}`);
    const panel = page.getByTestId('return-slot');
    const keep = panel.getByRole('button', { name: 'Keep a slot here for 15 minutes' });
    await keep.waitFor({ timeout: 30_000 });
    expect((await keep.boundingBox())!.height).toBeGreaterThanOrEqual(44);
    expect(await axeViolations(page)).toEqual([]);
    await keep.click();
    const status = panel.getByRole('status');
    await expect
      .poll(() => status.textContent())
      .toMatch(/^Slot \d of cabinet PWL-VNO-001 at GO9 Gedimino 9 is kept for your power bank until .+\./);
    await expect.poll(() => status.textContent(), { timeout: 20_000 }).toContain('The cabinet confirmed it.');
    expect(await axeViolations(page)).toEqual([]);
    const {
      rows: [held],
    } = await env.product.db.query<{ slot: number }>(
      `select slot from return_reservations where state = 'held' order by created_at desc limit 1`,
    );
    expect(env.product.fleet!.get('PWL-VNO-001')!.keptFor(held!.slot)).toBeTruthy();

    // Another rider's map, filtered to "can return here": the filter goes to the server, and of the 3 empty slots
    // one is kept, so 2 are left to return into.
    const other = await signedIn(await touristToken(env.product.app));
    const bodies: string[] = [];
    other.on('request', (r) => {
      if (r.url().includes('/cdb/shop/listnear')) bodies.push(r.postData() ?? '');
    });
    await other.goto(`${env.product.base}/#/homeMap?lat=54.6871&lng=25.2801`);
    await other.getByRole('checkbox', { name: 'Only cabinets with a free slot to return' }).check();
    await expect.poll(() => bodies.some((b) => /filter=return/.test(b))).toBe(true);
    const card = other.getByRole('region', { name: 'GO9 Gedimino 9' });
    await expect.poll(() => card.count()).toBe(1);
    await expect.poll(() => card.getByRole('definition').allTextContents()).toEqual(['3', '2']); // to rent, to return

    // Given back: the cabinet is told and frees the slot.
    await panel.getByRole('button', { name: 'Give the slot back' }).click();
    await expect.poll(() => status.textContent()).toMatch(/^You gave the slot back at .+\.$/);
    await expect.poll(() => env.product.fleet!.get('PWL-VNO-001')!.keptFor(held!.slot) ?? null).toBeNull();
  });

  it('a rider with nothing out is told so, in Spanish at 320 px', async () => {
    const page = await signedIn(await touristToken(env.product.app), 'es-ES');
    await page.goto(`${env.product.base}/${VENUE}`);
    const panel = page.getByTestId('return-slot');
    await panel.getByRole('button', { name: 'Reservar una ranura aquí durante 15 minutos' }).click();
    await expect
      .poll(() => panel.getByRole('alert').textContent())
      .toBe('No tienes ninguna batería alquilada que devolver.');
    expect(await axeViolations(page)).toEqual([]);
  });

  it("each cabinet's free slots and power banks follow the venue live, in Lithuanian at 320 px", async () => {
    await cabinetsOnline(env.product, ['PWL-VNO-001']);
    const page = await signedIn(await touristToken(env.product.app), 'lt-LT');
    const streams: string[] = [];
    page.on('request', (r) => {
      if (r.url().includes('/live/shop?')) streams.push(r.url());
    });
    await page.goto(`${env.product.base}/${VENUE}`);
    const row = page.locator('[data-cabinet="PWL-VNO-001"]');
    const stock = async () => ({
      back: await row.locator('[data-stock="return"]').textContent(),
      rent: await row.locator('[data-stock="rent"]').textContent(),
    });
    await row.locator('[data-stock="rent"]').waitFor({ timeout: 30_000 });
    const before = await stock();
    const n = (text: string | null) => Number(/\d+/.exec(text ?? '')![0]);
    expect(before.back).toMatch(/^\d+ laisv(a|os|ų) viet(a|os|ų)$/);
    expect(before.rent).toMatch(/^\d+ įkrovikli(s|ai|o|ų)$/);
    expect((await row.boundingBox())!.height).toBeGreaterThanOrEqual(44);
    await expect.poll(() => streams.length, { timeout: 20_000 }).toBeGreaterThan(0);

    // Another rider takes a power bank from it: the page shows one power bank fewer and one free slot more, unreloaded.
    await page.evaluate(() => ((window as unknown as { stayed: boolean }).stayed = true));
    await rentedAtVilnius();
    await expect.poll(async () => n((await stock()).rent), { timeout: 20_000 }).toBe(n(before.rent) - 1);
    await expect.poll(async () => n((await stock()).back)).toBe(n(before.back) + 1);
    expect(await page.evaluate(() => (window as unknown as { stayed?: boolean }).stayed)).toBe(true);
    await fitsSmallAndLarge(page, 'the venue page with its cabinets');
  });
});
