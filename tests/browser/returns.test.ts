// Fair returns in Chromium against the real server: after a rental starts the rider turns on this device's
// notifications (the service worker, public/sw.js, and a push subscription); the receipt the server pushes at the
// return goes through a local push service that speaks the Web Push protocol (server/test/providers/push-endpoint.ts:
// VAPID checked, payload decrypted), which hands it to the service worker as the browser's push service would, and
// the service worker shows it. Chromium's own push service is not reachable here, so the page's PushManager answers
// with a subscription at the local service. The new screens pass axe at 320 px in the longest language.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { axeViolations } from './axe.ts';
import { continueToCabinetHome, productInChromium } from './product.ts';
import { PushEndpoint } from '../../server/test/providers/push-endpoint.ts';
import { cardToken, touristToken } from '../../server/test/helper.ts';
import { RETURN_WITHOUT_POWER_BANK } from '../../server/src/modules/cabinets/evidence-repository.ts';

const push = new PushEndpoint();
beforeAll(async () => {
  await push.start();
});
afterAll(() => push.stop());
const env = productInChromium({
  get pushAgent() {
    return push.agent;
  },
});
const API = '/cdb-app-api/v1/app';

/** The page's push service is the local one: PushManager answers with a subscription there. */
async function localPushService(page: Page, sub: ReturnType<PushEndpoint['subscribe']>) {
  await page.addInitScript((s) => {
    const fake = { endpoint: s.endpoint, toJSON: () => s, unsubscribe: async () => true };
    let made = false;
    PushManager.prototype.subscribe = async function () {
      made = true;
      return fake as unknown as PushSubscription;
    };
    PushManager.prototype.getSubscription = async function () {
      return (made ? fake : null) as unknown as PushSubscription;
    };
  }, sub);
}

describe('notifications and the receipt', () => {
  it('after a rental starts, turn on notifications; the receipt arrives through Web Push and the service worker shows it', async () => {
    const page = await env.newPage();
    const origin = env.product.base;
    await page.context().grantPermissions(['notifications'], { origin });
    const sub = push.subscribe();
    await localPushService(page, sub);
    await page.goto(`${origin}/#/?qrcode=PWL-VNO-001`);
    // Nothing is asked on load.
    expect(await page.getByTestId('push-offer').count()).toBe(0);
    await continueToCabinetHome(page);
    await page.getByRole('button', { name: /^Hold / }).click();
    await page.getByLabel('Card number').fill('4242 4242 4242 4242');
    await page.getByLabel('Expiry date (MM/YY)').fill('12/34');
    await page.getByLabel('CVC').fill('123');
    await page.getByRole('button', { name: /^Authorize/ }).click();
    await page.getByRole('heading', { name: 'Your power bank is out!' }).waitFor({ timeout: 30_000 });

    const offer = page.getByTestId('push-offer');
    await offer.getByRole('button', { name: 'Turn on notifications' }).click();
    await expect.poll(() => offer.getByRole('status').textContent()).toBe('Notifications are on for this device.');
    const { rows: subs } = await env.product.db.query<{ endpoint: string }>(
      'select endpoint from push_subscriptions where gone_at is null',
    );
    expect(subs.map((s) => s.endpoint)).toContain(sub.endpoint);
    const {
      rows: [prefs],
    } = await env.product.db.query<{ channels: string[]; locale: string }>(
      'select channels, locale from notice_prefs order by updated_at desc limit 1',
    );
    expect(prefs).toMatchObject({ channels: expect.arrayContaining(['push']), locale: 'en-US' });

    // The service worker controls the page; the local push service hands it what it receives (CDP's push delivery).
    const { cdp, registrationId } = await swRegistration(page);
    const {
      rows: [o],
    } = await env.product.db.query<{ id: string; powerbank_id: string }>(
      `select id, powerbank_id from orders where zujie = 1 order by created_at desc limit 1`,
    );
    env.product.clock.advance(75 * 60_000);
    await fetch(`${origin}/demo-api/cabinets/PWL-LIS-001/return`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ powerbankId: o!.powerbank_id }),
    });
    // The reminder before the free minutes ended (due 5 minutes in) went out too; then the receipt, once.
    const kinds = () => push.of(sub.endpoint).map((m) => (JSON.parse(m.payload) as { kind: string }).kind);
    await expect
      .poll(
        async () => {
          await env.product.app.powerly.jobs.runDue();
          return kinds();
        },
        { timeout: 20_000 },
      )
      .toEqual(['free_end', 'receipt']);
    const message = push.of(sub.endpoint)[1]!;
    await cdp.send('ServiceWorker.deliverPushMessage', { origin, registrationId, data: message.payload });
    const notes = () =>
      page.evaluate(async () =>
        (await (await navigator.serviceWorker.ready).getNotifications()).map((n) => ({
          title: n.title,
          body: n.body,
          tag: n.tag,
        })),
      );
    await expect.poll(async () => (await notes()).length, { timeout: 15_000 }).toBe(1);
    expect(await notes()).toEqual([
      {
        title: 'Power bank returned',
        body: expect.stringMatching(/^€2\.00 for 1 hr,? 15 min\. Returned at Time Out Market Lisboa on .+\.$/),
        tag: `${o!.id}:receipt`,
      },
    ]);
  });

  it('the new screens at 320 px in the longest language (es-ES): the notification offer and the deposit refund, 0 axe violations', async () => {
    const page = await env.newPage();
    await page.setViewportSize({ width: 320, height: 700 });
    const token = await touristToken(env.product.app);
    // A top-up rental in Shanghai whose eject fails: its deposit goes back to the card unless kept in the wallet.
    await fetch(`${env.product.base}/demo-api/cabinets/PWL-SH-001/fail-next-eject`, { method: 'POST' });
    const rent = await env.product.app.inject({
      method: 'POST',
      url: `${API}/cdb/cabinet/useDepositToRent`,
      headers: { token },
      payload: { qrcode: 'PWL-SH-001', stripeToken: await cardToken(env.product.app), paymentId: 'card-sandbox' },
    });
    const failed: string = rent.json().data.outTradeNo;
    await page.addInitScript((t) => {
      localStorage.setItem('token', t);
      localStorage.setItem('lang', 'es-ES');
    }, token);
    await page.goto(`${env.product.base}/#/result?tradeNo=${failed}&payMode=YJ`);
    const note = page.getByTestId('money-note');
    await expect.poll(() => note.getAttribute('data-state'), { timeout: 30_000 }).toBe('scheduled');
    expect(await note.textContent()).toMatch(
      /^No se ha cobrado nada\. Tu depósito de .+ vuelve a Visa •••• 4242 el .+; un reembolso suele llegar/,
    );
    expect(await axeViolations(page)).toEqual([]);
    await page.getByRole('button', { name: /^Mantener .+ en mi monedero$/ }).click();
    await expect.poll(() => note.getAttribute('data-state')).toBe('kept');
    expect(await axeViolations(page)).toEqual([]);
    // A rental that started: the offer to turn on notifications, in Spanish.
    const ok = await env.product.app.inject({
      method: 'GET',
      url: `${API}/cdb/cabinet/useBalanceToRent?qrcode=PWL-SH-001`,
      headers: { token },
    });
    const started: string = ok.json().data.outTradNo;
    await page.goto(`${env.product.base}/#/result?tradeNo=${started}&payMode=YE`);
    await page
      .getByTestId('push-offer')
      .getByRole('button', { name: 'Activar notificaciones' })
      .waitFor({ timeout: 30_000 });
    expect(await axeViolations(page)).toEqual([]);
  });
});

describe('"I returned it"', () => {
  it("the rider claims a return; the cabinet's record ends the rental at its time", async () => {
    const page = await env.newPage();
    await page.setViewportSize({ width: 320, height: 700 });
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
    // Half an hour later the Lisbon cabinet detects a return it cannot read.
    env.product.clock.advance(30 * 60_000);
    await env.product.app.powerly.cabinets.reject(
      'PWL-LIS-001',
      RETURN_WITHOUT_POWER_BANK,
      JSON.stringify({ slot: 2, kind: 'return-without-power-bank', bankId: '' }),
    );
    env.product.clock.advance(60 * 60_000);
    await page.addInitScript((t) => localStorage.setItem('token', t), token);
    await page.goto(`${env.product.base}/#/orderDetail?orderId=${orderId}`);
    const panel = page.getByTestId('return-claim');
    await panel.getByRole('button', { name: 'I returned it' }).click();
    await panel.getByLabel(/^Cabinet code/).fill('PWL-LIS-001');
    // About when, on the product's clock (the test's), in the browser's time zone as a datetime-local field takes it.
    const when = await page.evaluate(
      (iso) => {
        const d = new Date(iso);
        d.setMinutes(d.getMinutes() - d.getTimezoneOffset());
        return d.toISOString().slice(0, 16);
      },
      new Date(env.product.clock.now().getTime() - 55 * 60_000).toISOString(),
    );
    await panel.getByLabel('About when').fill(when);
    expect(await axeViolations(page)).toEqual([]);
    await panel.getByRole('button', { name: "Check with the cabinet's records" }).click();
    await expect.poll(() => panel.getByRole('status').textContent()).toContain("Found in the cabinet's records");
    const {
      rows: [o],
    } = await env.product.db.query<{ zujie: number; fee: number }>('select zujie, fee from orders where id = $1', [
      orderId,
    ]);
    expect(o).toMatchObject({ zujie: 3 });
    expect(Number(o!.fee)).toBe(100); // 30 minutes: one started hour after the 10 free minutes
  });
});

describe('a grace period', () => {
  it('offered on the open order when the cabinets nearby are closed, granted, in Spanish at 320 px (axe-clean, 44 px)', async () => {
    const { db, clock, app, base } = env.product;
    const token = await touristToken(app);
    const rent = await app.inject({
      method: 'POST',
      url: `${API}/cdb/cabinet/useDepositToRent`,
      headers: { token },
      payload: { qrcode: 'PWL-VNO-001', stripeToken: await cardToken(app), paymentId: 'card-sandbox' },
    });
    const orderId: string = rent.json().data.outTradeNo;
    await expect
      .poll(
        async () =>
          (
            await app.inject({
              method: 'GET',
              url: `${API}/cdb/mine/order/detail?orderId=${orderId}`,
              headers: { token },
            })
          ).json().data.pZujie,
        { timeout: 30_000 },
      )
      .toBe(1);
    // The only venue within the radius opens three hours from now (UTC, the default agent's time zone).
    const h = (clock.now().getUTCHours() + 3) % 24;
    const hh = (n: number) => `${String(n % 24).padStart(2, '0')}:00`;
    const day = [{ open: hh(h), close: hh(h + 2) }];
    const weekly = Object.fromEntries(['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'].map((d) => [d, day]));
    await db.query(`update venues set opening_hours = $1 where id = 'v-vno-gedimino'`, [
      JSON.stringify({ weekly, exceptions: [] }),
    ]);
    try {
      const page = await env.newPage();
      await page.setViewportSize({ width: 320, height: 700 });
      await page.context().grantPermissions(['geolocation'], { origin: base });
      await page.context().setGeolocation({ latitude: 54.6871, longitude: 25.2801 });
      await page.addInitScript((t) => {
        localStorage.setItem('token', t);
        localStorage.setItem('lang', 'es-ES');
      }, token);
      await page.goto(`${base}/#/orderDetail?orderId=${orderId}`);
      const panel = page.getByTestId('grace');
      const check = panel.getByRole('button', { name: 'Ver los armarios cerca de mí' });
      expect((await check.boundingBox())!.height).toBeGreaterThanOrEqual(44);
      expect(await axeViolations(page)).toEqual([]);
      await check.click();
      await expect
        .poll(() => panel.getByRole('status').textContent())
        .toMatch(
          /^Ningún armario en un radio de 2\.?000 m está abierto con una ranura libre ahora\. GO9 Gedimino 9 abre a las .+\.$/,
        );
      const ask = panel.getByRole('button', { name: /^Pausar el alquiler hasta / });
      expect((await ask.boundingBox())!.height).toBeGreaterThanOrEqual(44);
      expect(await axeViolations(page)).toEqual([]);
      await ask.click();
      await expect
        .poll(() => panel.getByTestId('grace-active').textContent())
        .toMatch(/^El alquiler está pausado hasta .+: este tiempo no se cobra/);
      expect(await panel.getByRole('button').count()).toBe(0);
      expect(await axeViolations(page)).toEqual([]);
      const {
        rows: [o],
      } = await db.query<{ grace: { reason: string }[] }>('select grace from orders where id = $1', [orderId]);
      expect(o!.grace.map((g) => g.reason)).toEqual(['closed']);
    } finally {
      await db.query(`update venues set opening_hours = null where id = 'v-vno-gedimino'`);
    }
  });
});

/** The page's service worker registration id, and the CDP session (ServiceWorker domain on) that delivers to it. */
async function swRegistration(page: Page) {
  await page.evaluate(() => navigator.serviceWorker.ready);
  const cdp = await page.context().newCDPSession(page);
  const ids: string[] = [];
  cdp.on(
    'ServiceWorker.workerRegistrationUpdated',
    (e: { registrations: { registrationId: string; isDeleted: boolean }[] }) => {
      for (const r of e.registrations) if (!r.isDeleted) ids.push(r.registrationId);
    },
  );
  await cdp.send('ServiceWorker.enable');
  await expect.poll(() => ids.length).toBeGreaterThan(0);
  return { cdp, registrationId: ids[0]! };
}
