// Wi-Fi packages: the catalogue proxy, buying (payType mifi) through the payment layer and ledger, the
// package status machine, pickup by scan (the cabinet ejects a box) and by QR (checkPickUp poll), telemetry and
// traffic per package period, renewal and return (deposit released). Paying and refunds: mifi-payment.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PACKAGE_TRANSITIONS } from '#core/mifi.ts';
import { cardToken, touristToken, waitFor, type Built } from './helper.ts';
import { API, mifiCalls, startMifi } from './mifi-helpers.ts';

let b: Built;
beforeAll(async () => {
  b = await startMifi();
});
afterAll(async () => b?.close());
const { post, get, query, pkg, ledgerBalanced, buy } = mifiCalls(() => b);

describe('the catalogue', () => {
  it('answers the query proxy: regions with countries, a paged search, the variants of a SKU', async () => {
    const token = await touristToken(b.app);
    const regions = await query(token, 'regionList', {});
    expect(regions.length).toBeGreaterThanOrEqual(3);
    expect(regions.flatMap((r: { countries: unknown[] }) => r.countries).length).toBeGreaterThanOrEqual(10);
    const page = await query(token, 'packagePage', { size: 6, current: 1, currency: 'EUR' });
    expect(page.records).toHaveLength(6);
    expect(page.total).toBeGreaterThan(6);
    const pt = await query(token, 'packagePage', { size: 6, current: 1, searchKeywords: 'portugal', currency: 'EUR' });
    expect(pt.records.map((r: { packageName: string }) => r.packageName)).toContain('Portugal-Daily-Unlimited');
    expect(pt.records[0]).toMatchObject({ country: 'PT', timeZone: 'Europe/Lisbon', currency: 'EUR' });
    const bad = await b.app.inject({
      method: 'POST',
      url: `${API}/chargenow/mifi/query`,
      headers: { token },
      payload: { requestMethod: 'POST', url: 'packagePage', data: '{nope' },
    });
    expect(bad.statusCode).toBe(400);
  });
});

describe('a package with a box', () => {
  it('buys (33 → 0), picks up by scan (0 → 1), activates on traffic (2), counts traffic, renews, returns the box', async () => {
    const token = await touristToken(b.app);
    const wrong = await post(token, 'rent', {
      paymentId: 'card-sandbox',
      stripeToken: await cardToken(b.app),
      orderSubmit: {
        orderType: 0,
        currency: 'EUR',
        totalAmount: 1,
        submitDtlDtoList: [{ skuId: 'pt-unl', selectDays: 2 }],
      },
    });
    expect(wrong.code).not.toBe(0);
    const r = await buy(token, { skuId: 'pt-unl', days: 2 });
    expect(r.code, JSON.stringify(r)).toBe(0);
    const id: string = r.data.orderId;
    expect(await pkg(token, id)).toMatchObject({
      packageStatus: 0,
      deviceOrderStatus: 5,
      packagePrice: 4,
      depositAmount: 50,
      productSendSn: '',
    });
    await ledgerBalanced();

    expect((await get(token, `checkPickUp?mifiOrderId=${id}`)).data).toMatchObject({ status: 0 });
    expect((await post(token, 'pickup', { qrcode: 'PWL-LIS-001', pickOrderId: id })).code).toBe(0);
    const picked = await waitFor(
      async () => ((await get(token, `checkPickUp?mifiOrderId=${id}`)).data.status === 2 ? pkg(token, id) : null),
      'box out',
    );
    expect(picked).toMatchObject({
      packageStatus: 1,
      deviceOrderStatus: 1,
      productSendSn: expect.stringMatching(/^MF-LIS-/),
    });
    const sn = (picked as unknown as { productSendSn: string }).productSendSn;

    const detail = (await get(token, `orderDetail?orderId=${id}`)).data;
    expect(detail.deviceJson).toMatchObject({
      wifiSSID: expect.stringMatching(/^Powerly-/),
      wifiPassword: expect.any(String),
    });
    const sim = b.fleet!.get('PWL-LIS-001')!;
    await sim.boxTelemetry({ sn, bytesTotal: 1_000_000, battery: 90, signal: 3 });
    await sim.boxTelemetry({ sn, bytesTotal: 6_000_000, battery: 88, signal: 4 });
    const active = await waitFor(
      async () => ((await pkg(token, id)).packageStatus === 2 ? pkg(token, id) : null),
      'activated by traffic',
    );
    expect(active).toMatchObject({ usedBytes: 5_000_000 });
    expect((await get(token, `orderDetail?orderId=${id}`)).data).toMatchObject({
      dianliang: 88,
      deviceJson: { lastKnownVsimSignalStrength: 4 },
    });
    const now = Math.floor(b.clock.now().getTime() / 1000);
    expect(
      (await post(token, 'trafficUsage', { sn, packageStartTime: now - 3600, packageEndTime: now + 60 })).data
        .totalUsage,
    ).toBe(5_000_000);
    expect((await post(token, 'flowUsageList', { sn })).data).toMatchObject({ packageUsedTotal: 5_000_000, sn });

    // A renewal (type 1) extends the package from its end, on the same box.
    const ren = await buy(token, { skuId: 'pt-unl', days: 1, type: 1, mifiOrderId: id });
    expect(ren.code, JSON.stringify(ren)).toBe(0);
    const renewal = (await pkg(token, ren.data.orderId)) as unknown as {
      packageStatus: number;
      productSendSn: string;
      reserverStartTime: string;
      renewalOf: string;
    };
    expect(renewal).toMatchObject({ packageStatus: 1, productSendSn: sn, renewalOf: id });
    expect(renewal.reserverStartTime).toBe(
      ((await pkg(token, id)) as unknown as { reserverEndTime: string }).reserverEndTime,
    );

    // The package ends at its end time (2 → 9), the renewal activates (1 → 2).
    b.clock.advance(2 * 86_400_000 + 30 * 60_000); // it started 20 minutes after the purchase
    await b.app.powerly.jobs.runDue();
    await b.app.powerly.jobs.runDue();
    expect((await pkg(token, id)).packageStatus).toBe(9);
    expect((await pkg(token, ren.data.orderId)).packageStatus).toBe(2);

    // The box goes back into any cabinet: the deposit returns to the wallet, the running package ends (4).
    await b.fleet!.get('PWL-SH-001')!.insert(sn);
    await waitFor(async () => ((await pkg(token, ren.data.orderId)).packageStatus === 4 ? true : null), 'returned');
    const me = (await b.app.inject({ method: 'GET', url: `${API}/userInfo`, headers: { token } })).json().data;
    expect(me.pyajin).toBe(0);
    await ledgerBalanced();
  });

  it('picks up by QR: the box binds the package shown, the poll answers 2; an unknown box fails', async () => {
    const token = await touristToken(b.app);
    // The box sits in the New York cabinet: a package paid in dollars (the deposit's currency there).
    const r = await buy(token, { skuId: 'es-3d', currency: 'USD' });
    expect(r.code, JSON.stringify(r)).toBe(0);
    const id: string = r.data.orderId;
    expect((await post(token, 'bindSn', { sn: 'MF-NOPE', mifiOrderId: id })).code).not.toBe(0);
    expect((await get(token, `checkPickUp?mifiOrderId=${id}`)).data).toMatchObject({
      status: 9,
      pickUp_msg: 'Failed to retrieve the device',
    });
    expect((await post(token, 'bindSn', { sn: 'MF-NYC-0001', mifiOrderId: id })).code).toBe(0);
    expect((await get(token, `checkPickUp?mifiOrderId=${id}`)).data).toMatchObject({
      status: 2,
      productSendSn: 'MF-NYC-0001',
    });
    // Another user typing the serial of that box (now this user's) does not take it.
    const other = await touristToken(b.app);
    const theirs = await buy(other, { skuId: 'es-3d', currency: 'USD' });
    const taken = await post(other, 'bindSn', { sn: 'MF-NYC-0001', mifiOrderId: theirs.data.orderId });
    expect(taken).toMatchObject({ code: 409, msg: 'This Wi-Fi box is already in use.' });
    expect(await pkg(other, theirs.data.orderId)).toMatchObject({ productSendSn: '', packageStatus: 0 });
    expect(await pkg(token, id)).toMatchObject({ productSendSn: 'MF-NYC-0001' });
  });

  it('picks up by QR through the cabinet protocol: the box reports the code it read (box-code-read) and is bound', async () => {
    const token = await touristToken(b.app);
    const id: string = (await buy(token, { skuId: 'fr-3d' })).data.orderId;
    const gateway = b.fleet!.get('PWL-LIS-001')!;
    const sn = (
      await b.db.query<{ id: string }>(
        `select id from powerbanks where cabinet_id = 'PWL-LIS-001' and kind = 'mifi' and state = 'in_cabinet' limit 1`,
      )
    ).rows[0]!.id;
    // A box nobody knows reads it: the pickup fails, and the poll says so.
    await gateway.boxCodeRead('MF-NOBODY', id);
    await waitFor(
      async () => ((await get(token, `checkPickUp?mifiOrderId=${id}`)).data.status === 9 ? true : null),
      'failed pickup',
    );
    // The box of the cabinet reads it: bound, the poll answers 2 with its serial.
    await gateway.takeOut(sn);
    await gateway.boxCodeRead(sn, id);
    const done = await waitFor(
      async () => ((r) => (r.status === 2 ? r : null))((await get(token, `checkPickUp?mifiOrderId=${id}`)).data),
      'bound',
    );
    expect(done).toMatchObject({ status: 2, productSendSn: sn });
    // A code that names no package (any QR a box may read) changes nothing and is not retried.
    await gateway.boxCodeRead(sn, 'not-a-package');
    await waitFor(
      async () =>
        Number(
          (
            await b.db.query<{ n: string }>(
              `select count(*) n from cabinet_events where type = 'box-code-read' and state = 'done'`,
            )
          ).rows[0]!.n,
        ) >= 3
          ? true
          : null,
      'events done',
    );
    // The box goes back into the cabinet (the tests after this one pick it up there).
    await gateway.insert(sn);
    await waitFor(
      async () =>
        (await pkg(token, id)).packageStatus === 9 || (await pkg(token, id)).packageStatus === 4 ? true : null,
      'box returned',
    );
  });
});

describe('the status machine', () => {
  it('makes every transition of PACKAGE_TRANSITIONS, each by the event the state machine names', async () => {
    const DECLINED = '4000 0000 0000 0002';
    const seen = new Set<string>();
    const last = new Map<string, number>();
    /** Reads every package of the user and records each status change since the last look. */
    const look = async (token: string) => {
      const list = (await post(token, 'orderList', { current: 1, size: 100 })).data.records as {
        orderId: string;
        packageStatus: number;
        renewalOf: string;
      }[];
      for (const p of list) {
        const before = last.get(p.orderId);
        if (before !== undefined && before !== p.packageStatus) seen.add(`${before}→${p.packageStatus}`);
        last.set(p.orderId, p.packageStatus);
      }
      return list;
    };
    const confirm = async (token: string, id: string) =>
      expect(
        (
          await post(token, 'confirm', {
            mifiOrderId: id,
            paymentId: 'card-sandbox',
            stripeToken: await cardToken(b.app),
          })
        ).code,
      ).toBe(0);

    // A box package: a declined card leaves it unpaid (33), another card pays it (→ 0), the box is bound (→ 1).
    const a = await touristToken(b.app);
    expect((await buy(a, { skuId: 'pt-unl', days: 1, card: DECLINED })).code).not.toBe(0);
    const id = (await look(a)).find((p) => p.packageStatus === 33)!.orderId;
    await confirm(a, id);
    await look(a);
    expect((await post(a, 'pickup', { qrcode: 'PWL-LIS-001', pickOrderId: id })).code).toBe(0);
    await waitFor(
      async () => ((await look(a)).find((p) => p.orderId === id)!.packageStatus === 1 ? true : null),
      'box bound',
    );
    const sn = ((await get(a, `orderDetail?orderId=${id}`)).data as { sn: string }).sn;
    // Its renewal, declined then paid: a box in hand, so it waits for its start (33 → 1).
    expect((await buy(a, { skuId: 'pt-unl', days: 1, type: 1, mifiOrderId: id, card: DECLINED })).code).not.toBe(0);
    const ren = (await look(a)).find((p) => p.renewalOf === id && p.packageStatus === 33)!.orderId;
    await confirm(a, ren);
    await look(a);
    // First traffic activates the package (1 → 2); its end time ends it (2 → 9) and starts the renewal (1 → 2).
    const sim = b.fleet!.get('PWL-LIS-001')!;
    const bytes = await b.app.powerly.mifi.lastBytes(sn);
    await sim.boxTelemetry({ sn, bytesTotal: bytes + 1_000, battery: 80, signal: 3 });
    await sim.boxTelemetry({ sn, bytesTotal: bytes + 2_000_000, battery: 80, signal: 3 });
    await waitFor(
      async () => ((await look(a)).find((p) => p.orderId === id)!.packageStatus === 2 ? true : null),
      'activated',
    );
    b.clock.advance(86_400_000 + 30 * 60_000);
    await b.app.powerly.jobs.runDue();
    await b.app.powerly.jobs.runDue();
    expect((await look(a)).find((p) => p.orderId === id)!.packageStatus).toBe(9);
    expect(last.get(ren)).toBe(2);
    // The box back in a cabinet ends the running renewal as returned (2 → 4). (Vilnius holds no other box.)
    await b.fleet!.get('PWL-VNO-001')!.insert(sn);
    await waitFor(
      async () => ((await look(a)).find((p) => p.orderId === ren)!.packageStatus === 4 ? true : null),
      'returned',
    );

    // A box returned before its package started: the package ends unused (1 → 9). Vilnius hands out the box just
    // returned there, so this is also its second holding: the first holding's settled packages are left alone.
    const c = await touristToken(b.app);
    const r = await buy(c, { skuId: 'es-3d' });
    expect(r.code, JSON.stringify(r)).toBe(0);
    await look(c);
    expect((await post(c, 'pickup', { qrcode: 'PWL-VNO-001', pickOrderId: r.data.orderId })).code).toBe(0);
    await waitFor(
      async () => ((await look(c)).find((p) => p.orderId === r.data.orderId)!.packageStatus === 1 ? true : null),
      'box out',
    );
    const sn2 = ((await get(c, `orderDetail?orderId=${r.data.orderId}`)).data as { sn: string }).sn;
    expect(sn2).toBe(sn);
    // A renewal paid for it, not started when the box comes back: refunded (1 → 3, then 4 once the card refund ran).
    const cren = await buy(c, { skuId: 'es-3d', type: 1, mifiOrderId: r.data.orderId });
    expect(cren.code, JSON.stringify(cren)).toBe(0);
    await look(c);
    await b.fleet!.get('PWL-SH-001')!.insert(sn2);
    await waitFor(
      async () => ((await look(c)).find((p) => p.orderId === r.data.orderId)!.packageStatus === 9 ? true : null),
      'ended unused',
    );
    expect(last.get(cren.data.orderId)).toBe(3);

    // Cancellations: unpaid (33 → 88); paid and unused (0 → 3), its card refunded (3 → 4).
    expect((await buy(c, { skuId: 'fr-3d', type: 2, card: DECLINED })).code).not.toBe(0);
    const unpaid = (await look(c)).find((p) => p.packageStatus === 33)!.orderId;
    expect((await post(c, 'cancel', { mifiOrderId: unpaid })).data.packageStatus).toBe(88);
    const paid = await buy(c, { skuId: 'fr-3d', type: 2 });
    await look(c);
    expect((await post(c, 'cancel', { mifiOrderId: paid.data.orderId })).data.packageStatus).toBe(3);
    await look(c);
    await b.app.powerly.jobs.runDue();
    await look(c);

    const all = Object.entries(PACKAGE_TRANSITIONS).flatMap(([from, tos]) => tos.map((to) => `${from}→${to}`));
    expect([...seen].sort()).toEqual(all.sort());
    await ledgerBalanced();
  });

  it('answers one package order for the order detail screen, to its owner only', async () => {
    const token = await touristToken(b.app);
    const r = await buy(token, { skuId: 'fr-3d', type: 2 });
    const one = await get(token, `package?mifiOrderId=${r.data.orderId}`);
    expect(one.data).toMatchObject({
      orderId: r.data.orderId,
      packageName: expect.stringContaining('France'),
      packageStatus: 0,
    });
    const other = await touristToken(b.app);
    expect((await get(other, `package?mifiOrderId=${r.data.orderId}`)).code).not.toBe(0);
  });
});
