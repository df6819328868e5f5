// Wi-Fi packages: the catalogue proxy, buying (payType mifi) through the payment layer and ledger, the
// package status machine, pickup by scan (the cabinet ejects a box) and by QR (checkPickUp poll), telemetry and
// traffic per package period, renewal, return (deposit released) and the refund of a cancelled unused package.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PACKAGE_TRANSITIONS, packagePrice } from '#core/mifi.ts';
import { build, cabinetsOnline, cardToken, touristToken, waitFor, type Built } from './helper.ts';

const API = '/cdb-app-api/v1/app';
let b: Built;
beforeAll(async () => {
  b = await build();
  await cabinetsOnline(b, ['PWL-LIS-001', 'PWL-SH-001', 'PWL-NYC-001', 'PWL-VNO-001']);
});
afterAll(async () => b?.close());

const post = async (token: string, url: string, payload: unknown) =>
  (
    await b.app.inject({
      method: 'POST',
      url: `${API}/chargenow/mifi/${url}`,
      headers: { token },
      payload: payload as object,
    })
  ).json();
const get = async (token: string, url: string) =>
  (await b.app.inject({ method: 'GET', url: `${API}/chargenow/mifi/${url}`, headers: { token } })).json();
const query = async (token: string, url: string, data: unknown) =>
  JSON.parse((await post(token, 'query', { requestMethod: 'POST', url, data: JSON.stringify(data) })).data);
const pkg = async (token: string, id: string) =>
  (
    (await post(token, 'orderList', { current: 1, size: 100 })).data.records as {
      orderId: string;
      packageStatus: number;
    }[]
  ).find((p) => p.orderId === id)!;

async function ledgerBalanced() {
  const audit = await b.app.powerly.ledger.audit();
  expect(audit.accountsOutOfStep).toEqual([]);
  for (const c of audit.byCurrency) expect(Number(c.net), c.currency).toBe(0);
}

async function buy(
  token: string,
  opts: {
    skuId: string;
    days?: number;
    type?: number;
    card?: boolean | string;
    mifiOrderId?: string;
    currency?: string;
  },
) {
  const currency = opts.currency ?? 'EUR';
  const v = (
    (await query(token, 'packageDtlListBySkuId', { skuId: opts.skuId, currency })) as {
      skuId: string;
      price: number;
      isPackage: boolean;
      depositAmount: number;
      Day: number;
    }[]
  ).find((x) => x.skuId === opts.skuId);
  const days = opts.days ?? v!.Day;
  const type = opts.type ?? 0;
  const total =
    Math.round(packagePrice({ isPackage: v!.isPackage, price: v!.price * 100, selectDays: days })) / 100 +
    (type === 0 ? v!.depositAmount : 0);
  return post(token, 'rent', {
    paymentId: 'card-sandbox',
    stripeToken:
      opts.card === false ? undefined : await cardToken(b.app, typeof opts.card === 'string' ? opts.card : undefined),
    ejectOrNot: 0,
    orderSubmit: {
      orderType: type,
      currency,
      totalAmount: total,
      submitDtlDtoList: [{ skuId: opts.skuId, selectDays: days, mifiOrderId: opts.mifiOrderId }],
    },
  });
}

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

describe('cancellation', () => {
  it('an unused paid package is revoked (3) and refunded to the card (4); an unpaid one is cancelled (88)', async () => {
    const token = await touristToken(b.app);
    const r = await buy(token, { skuId: 'fr-3d', type: 2 });
    expect(r.code, JSON.stringify(r)).toBe(0);
    const id: string = r.data.orderId;
    expect(await pkg(token, id)).toMatchObject({ packageStatus: 0, deviceOrderStatus: 0 });
    expect((await post(token, 'cancel', { mifiOrderId: id })).data.packageStatus).toBe(3);
    await b.app.powerly.jobs.runDue();
    expect((await pkg(token, id)).packageStatus).toBe(4);
    const pay = (
      await b.db.query<{ refunded_amount: number; amount: number }>(
        `select refunded_amount, amount from payments where order_id = $1 and purpose = 'mifi'`,
        [r.data.out_trade_no],
      )
    ).rows[0]!;
    expect(Number(pay.refunded_amount)).toBe(Number(pay.amount));
    await ledgerBalanced();
    // Unpaid: a wallet order the balance does not cover stays 33 and is cancelled to 88.
    const unpaid = await buy(token, { skuId: 'fr-3d', type: 2, card: false });
    expect(unpaid.code).not.toBe(0);
  });

  it('continues the payment of an unpaid (33) package: confirm pays it through the payment layer (33 → 0)', async () => {
    const token = await touristToken(b.app);
    expect((await buy(token, { skuId: 'fr-3d', type: 2, card: false })).code).not.toBe(0);
    const list = (await post(token, 'orderList', { current: 1, size: 100 })).data.records as {
      orderId: string;
      packageStatus: number;
    }[];
    const unpaid = list.find((p) => p.packageStatus === 33)!;
    expect(unpaid).toBeDefined();
    expect((await post(token, 'confirm', { mifiOrderId: unpaid.orderId, paymentId: 'card-sandbox' })).code).not.toBe(0);
    const paid = await post(token, 'confirm', {
      mifiOrderId: unpaid.orderId,
      paymentId: 'card-sandbox',
      stripeToken: await cardToken(b.app),
    });
    expect(paid.code, JSON.stringify(paid)).toBe(0);
    expect(paid.data).toMatchObject({ orderId: unpaid.orderId, packageStatus: 0 });
    expect(
      (
        await post(token, 'confirm', {
          mifiOrderId: unpaid.orderId,
          paymentId: 'card-sandbox',
          stripeToken: await cardToken(b.app),
        })
      ).code,
    ).not.toBe(0);
    const other = await touristToken(b.app);
    expect((await post(other, 'confirm', { mifiOrderId: unpaid.orderId, paymentId: 'card-sandbox' })).code).not.toBe(0);
    await ledgerBalanced();
  });

  it('a declined card leaves the order unpaid (33), and another card pays it then', async () => {
    const token = await touristToken(b.app);
    const v = (
      (await query(token, 'packageDtlListBySkuId', { skuId: 'es-3d', currency: 'EUR' })) as {
        skuId: string;
        price: number;
        depositAmount: number;
      }[]
    ).find((x) => x.skuId === 'es-3d')!;
    const declined = await post(token, 'rent', {
      paymentId: 'card-sandbox',
      stripeToken: await cardToken(b.app, '4000 0000 0000 0002'),
      orderSubmit: { orderType: 2, currency: 'EUR', totalAmount: v.price, submitDtlDtoList: [{ skuId: 'es-3d' }] },
    });
    expect(declined.code).not.toBe(0);
    const list = (await post(token, 'orderList', { current: 1, size: 100 })).data.records as {
      orderId: string;
      packageStatus: number;
    }[];
    const unpaid = list.find((p) => p.packageStatus === 33)!;
    const paid = await post(token, 'confirm', {
      mifiOrderId: unpaid.orderId,
      paymentId: 'card-sandbox',
      stripeToken: await cardToken(b.app),
    });
    expect(paid.code, JSON.stringify(paid)).toBe(0);
    expect(paid.data.packageStatus).toBe(0);
    await ledgerBalanced();
  });
});

describe('paying an order twice at once', () => {
  const unpaidOrder = async (token: string) => {
    expect((await buy(token, { skuId: 'fr-3d', type: 2, card: false })).code).not.toBe(0);
    return (
      (await post(token, 'orderList', { current: 1, size: 100 })).data.records as {
        orderId: string;
        buyOrderNo: string;
        packageStatus: number;
      }[]
    ).find((p) => p.packageStatus === 33)!;
  };
  const payments = async (orderNo: string) =>
    (
      await b.db.query<{ status: string; amount: number; refunded_amount: number }>(
        `select status, amount, refunded_amount from payments where order_id = $1 and purpose = 'mifi' order by created_at`,
        [orderNo],
      )
    ).rows;

  /** However the two calls interleave (on PostgreSQL they may both pass the first check), the order is paid once. */
  const paidOnce = async (token: string, p: { orderId: string; buyOrderNo: string }, answers: { code: number }[]) => {
    expect(answers.filter((r) => r.code === 0).length, JSON.stringify(answers)).toBeGreaterThanOrEqual(1);
    // The racing call is refused: 409 (paid already) or 422 (its single-use card token was spent by the other call).
    for (const r of answers) expect([0, 409, 422]).toContain(r.code);
    const rows = await payments(p.buyOrderNo);
    const kept = rows
      .filter((r) => r.status !== 'declined')
      .reduce((s, r) => s + Number(r.amount) - Number(r.refunded_amount), 0);
    expect(kept, JSON.stringify(rows)).toBe(500); // fr-3d: €5, charged once
    expect((await pkg(token, p.orderId)).packageStatus).toBe(0);
    await ledgerBalanced();
    return rows;
  };

  it('the same card twice (a double tap, a retry racing the first): one charge', async () => {
    const token = await touristToken(b.app);
    const p = await unpaidOrder(token);
    const card = await cardToken(b.app);
    const both = await Promise.all(
      [0, 1].map(() =>
        post(token, 'confirm', { mifiOrderId: p.orderId, paymentId: 'card-sandbox', stripeToken: card }),
      ),
    );
    expect((await paidOnce(token, p, both)).filter((r) => r.status !== 'declined')).toHaveLength(1);
  });

  it('two cards at once: one pays the order, a second charge (if any was made) is refunded in full', async () => {
    const token = await touristToken(b.app);
    const p = await unpaidOrder(token);
    const [c1, c2] = [await cardToken(b.app), await cardToken(b.app)];
    const both = await Promise.all(
      [c1, c2].map((card) =>
        post(token, 'confirm', { mifiOrderId: p.orderId, paymentId: 'card-sandbox', stripeToken: card }),
      ),
    );
    await paidOnce(token, p, both);
  });
});

describe('a process that dies between the charge and the order', () => {
  it('the crash guard refunds the card charge no order took, once its delay has passed', async () => {
    const token = await touristToken(b.app);
    expect((await buy(token, { skuId: 'fr-3d', type: 2, card: false })).code).not.toBe(0);
    const p = (
      (await post(token, 'orderList', { current: 1, size: 100 })).data.records as {
        orderId: string;
        buyOrderNo: string;
        packageStatus: number;
      }[]
    ).find((x) => x.packageStatus === 33)!;
    // The order's transaction never happens (the process is gone as far as the database can tell).
    let crash!: (e: Error) => void;
    const dead = new Promise<never>((_, reject) => (crash = reject));
    const mifi = (b.app.powerly.mifi as unknown as { s: { paying: { settleCard: () => Promise<void> } } }).s.paying;
    const settle = mifi.settleCard;
    mifi.settleCard = () => dead;
    try {
      const inFlight = post(token, 'confirm', {
        mifiOrderId: p.orderId,
        paymentId: 'card-sandbox',
        stripeToken: await cardToken(b.app),
      });
      const intent = await waitFor(
        async () =>
          (
            await b.db.query<{ id: string; status: string }>(
              `select id, status from sandbox_intents where id like $1 and status = 'captured'`,
              [`pi_mifi_${p.buyOrderNo}_%`],
            )
          ).rows[0],
        'charged',
      );
      b.clock.advance(119_000);
      await b.app.powerly.jobs.runDue();
      expect(await b.app.powerly.sandbox.status(intent.id)).toBe('captured'); // not yet: the request may still finish
      b.clock.advance(2_000);
      await b.app.powerly.jobs.runDue();
      expect(await b.app.powerly.sandbox.status(intent.id)).toBe('refunded');
      crash(new Error('process died'));
      expect((await inFlight).code).not.toBe(0);
      expect((await pkg(token, p.orderId)).packageStatus).toBe(33);
    } finally {
      mifi.settleCard = settle;
    }
    await ledgerBalanced();
  });

  it('the box deposit of a package-only order (cabinetDisposit): held on the card (a pre-authorisation, not a charge), its guard cancelled', async () => {
    const token = await touristToken(b.app);
    const r = await buy(token, { skuId: 'fr-3d', type: 2 });
    expect(r.code, JSON.stringify(r)).toBe(0);
    const card = await cardToken(b.app);
    const dep = await post(token, 'cabinetDisposit', {
      mifiOrderId: r.data.orderId,
      paymentId: 'card-sandbox',
      stripeToken: card,
    });
    expect(dep.code, JSON.stringify(dep)).toBe(0);
    expect(dep.data).toMatchObject({ deviceOrderStatus: 5 });
    // Again with the same card (a retry): nothing more is charged or held.
    expect(
      (
        await post(token, 'cabinetDisposit', {
          mifiOrderId: r.data.orderId,
          paymentId: 'card-sandbox',
          stripeToken: card,
        })
      ).code,
    ).not.toBe(0);
    const guard = (
      await b.db.query<{ done_at: Date | null }>(
        `select done_at from jobs where kind = 'payment.charge-guard' and payload->>'key' like $1`,
        [`mifidep_${r.data.orderId}_%`],
      )
    ).rows;
    expect(guard).toHaveLength(1);
    expect(guard[0]!.done_at).not.toBeNull();
    const pays = (
      await b.db.query<{ purpose: string; status: string; amount: number; provider_ref: string }>(
        `select purpose, status, amount, provider_ref from payments where order_id = $1 order by created_at`,
        [r.data.out_trade_no],
      )
    ).rows;
    // The package charged, then the box deposit (€50) held: the sandbox card can hold.
    expect(pays.map((p) => [p.purpose, p.status, Number(p.amount)])).toEqual([
      ['mifi', 'captured', 500],
      ['mifi_deposit_hold', 'authorized', 5000],
    ]);
    expect(await b.app.powerly.sandbox.status(pays[1]!.provider_ref)).toBe('authorized');
    await ledgerBalanced();
  });

  it('the guard does nothing once the order took the charge', async () => {
    const token = await touristToken(b.app);
    const r = await buy(token, { skuId: 'fr-3d', type: 2 });
    expect(r.code, JSON.stringify(r)).toBe(0);
    const guards = (
      await b.db.query<{ done_at: Date | null; payload: { key: string | null } }>(
        `select done_at, payload from jobs where kind = 'payment.charge-guard' and payload->>'flow' = 'mifi_payment'`,
      )
    ).rows.filter((j) => (j.payload.key ?? '').startsWith(`mifi_${r.data.out_trade_no}_`));
    expect(guards).toHaveLength(1);
    expect(guards[0]!.done_at).not.toBeNull(); // cancelled when the payment finished
    b.clock.advance(5 * 60_000);
    await b.app.powerly.jobs.runDue();
    const pay = (
      await b.db.query<{ refunded_amount: number }>(
        `select refunded_amount from payments where order_id = $1 and purpose = 'mifi'`,
        [r.data.out_trade_no],
      )
    ).rows[0]!;
    expect(Number(pay.refunded_amount)).toBe(0);
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
