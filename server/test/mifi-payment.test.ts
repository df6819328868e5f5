// Paying for Wi-Fi packages: the refund of a cancelled unused package, continuing the payment of an unpaid one,
// a declined card, an order paid twice at once (charged once), and the crash guard that refunds a card charge no
// order took; the box deposit of a package-only order held on the card.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cardToken, touristToken, waitFor, type Built } from './helper.ts';
import { mifiCalls, startMifi } from './mifi-helpers.ts';

let b: Built;
beforeAll(async () => {
  b = await startMifi();
});
afterAll(async () => b?.close());
const { post, query, pkg, ledgerBalanced, buy } = mifiCalls(() => b);

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
