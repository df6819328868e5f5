// Coupons on payType FK (couponNo): the amount charged is lowered, the ledger records the discount and still sums
// to zero, the use is redeemed once with the charge (released when the charge is not taken); an unknown, paused,
// expired, not-yet-valid, other-currency, other-scope or used-up coupon is a 422 in the user's language and nothing
// is charged; the last use of a limited coupon goes to one of two riders paying at once. The back office's coupon
// desk: list, detail with uses, create and pause, each by role and agent, audited with its reason.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CouponCreate } from '#contract/ops/coupons.ts';
import { build, cardToken, ledgerBalanced, touristToken, type Built } from './helper.ts';
import { accessTable, callerConsoles, type Caller } from './ops/callers.ts';
import type { OpsConsole } from './ops/console.ts';

const API = '/cdb-app-api/v1/app';
let b: Built;
let n = 0;
beforeAll(async () => {
  b = await build({ simulator: false });
  await b.app.powerly.embed.saveAgent({ id: 'agent-c', name: 'agent-c', origins: [] });
});
afterAll(async () => b?.close());

const DAY = 24 * 3600_000;
const at = (ms: number) => new Date(b.clock.now().getTime() + ms).toISOString();
async function coupon(c: Partial<CouponCreate> & Pick<CouponCreate, 'kind'>) {
  const code = c.code ?? `C${Date.now()}${n++}`;
  await b.app.powerly.coupons.create({ kind: 'all' }, null, {
    validFrom: at(-DAY),
    validTo: at(DAY),
    reason: 'test',
    ...c,
    code,
  });
  return code;
}
/** An order of the user whose deduction failed, leaving `debt` (minor units of CNY) to pay with payType FK. */
async function orderWithDebt(token: string, debt: number) {
  const user = await b.app.powerly.auth.authenticate(token);
  const orderId = `PC${Date.now()}${n++}`;
  await b.db.query(
    `insert into orders (id, user_id, cabinet_id, venue_id, zujie, settled, deposit_type, currency, plan, wire_strategy, deposit, created_at, debt)
     select $1, $2, c.id, c.venue_id, 2, true, 1, 'CNY', '{}', '{}', 0, now(), $3 from cabinets c where c.id = 'PWL-SH-001'`,
    [orderId, user.id, debt],
  );
  return orderId;
}
const payOrder = async (token: string, body: Record<string, string>, lang = 'en-US') => {
  const r = await b.app.inject({
    method: 'POST',
    url: `${API}/cdb/payment/stripe/multicurrency/payOrder`,
    headers: { token, lang, 'idempotency-key': `k-${n++}` },
    payload: { paymentId: 'card-sandbox', ...body },
  });
  return { status: r.statusCode, body: r.json() as { code: number; msg: string } };
};
const payments = async (orderId: string) =>
  (
    await b.db.query<{ amount: string; status: string }>(`select amount, status from payments where order_id = $1`, [
      orderId,
    ])
  ).rows;
const debtPaid = async (orderId: string) =>
  (await b.db.query<{ paid: boolean }>('select debt_paid_at is not null as paid from orders where id = $1', [orderId]))
    .rows[0]!.paid;
const discounts = async (currency: string) =>
  Number(
    (
      await b.db.query<{ d: string }>(
        `select coalesce(sum(debits_posted - credits_posted), 0) as d from ledger_accounts where owner_type = 'platform' and kind = 'discount' and currency = $1`,
        [currency],
      )
    ).rows[0]!.d,
  );

describe('a coupon on a debt payment', () => {
  it('lowers what is charged; the ledger records the discount and sums to zero; the use is redeemed once', async () => {
    const code = await coupon({ kind: 'percent', percent: 20 });
    const token = await touristToken(b.app);
    const order = await orderWithDebt(token, 600);
    const before = await discounts('CNY');
    const r = await payOrder(token, { outTradeNo: order, stripeToken: await cardToken(b.app), couponNo: code });
    expect(r.body.code, r.body.msg).toBe(0);
    expect(await debtPaid(order)).toBe(true);
    expect((await payments(order)).map((p) => Number(p.amount))).toEqual([480]);
    expect(await discounts('CNY')).toBe(before + 120);
    await ledgerBalanced(b.app);
    const c = await b.app.powerly.coupons.repo.byCode(code);
    const stats = (await b.app.powerly.coupons.repo.stats([c!.id])).get(c!.id)!;
    expect(stats).toEqual({ redeemed: 1, reserved: 0, given: { CNY: 120 } });
  });

  it('pays a debt it covers whole without any charge', async () => {
    const code = await coupon({ kind: 'fixed', amount: 10_000, currency: 'CNY' });
    const token = await touristToken(b.app);
    const order = await orderWithDebt(token, 300);
    const r = await payOrder(token, { outTradeNo: order, stripeToken: await cardToken(b.app), couponNo: code });
    expect(r.body.code, r.body.msg).toBe(0);
    expect(await debtPaid(order)).toBe(true);
    expect(await payments(order)).toEqual([]);
    await ledgerBalanced(b.app);
  });

  it("refuses an unknown, paused, expired, not yet valid, other-currency, other-agent or used coupon with a 422 in the user's language; nothing is charged", async () => {
    const paused = await coupon({ kind: 'percent', percent: 10 });
    await b.app.powerly.coupons.repo.setPaused((await b.app.powerly.coupons.repo.byCode(paused))!.id, true);
    const refusals: [string, RegExp][] = [
      ['NO-SUCH-COUPON', /negalioja/],
      [paused, /sustabdytas/],
      [
        await coupon({ kind: 'percent', percent: 10, validFrom: at(-2 * DAY), validTo: at(-DAY) }),
        /galiojimas baigėsi/,
      ],
      [await coupon({ kind: 'percent', percent: 10, validFrom: at(DAY), validTo: at(2 * DAY) }), /dar negalioja/],
      [await coupon({ kind: 'fixed', amount: 100, currency: 'EUR' }), /EUR/],
      [await coupon({ kind: 'percent', percent: 10, agentId: 'agent-c' }), /čia naudoti negalima/],
    ];
    const token = await touristToken(b.app);
    const order = await orderWithDebt(token, 600);
    for (const [code, message] of refusals) {
      const r = await payOrder(
        token,
        { outTradeNo: order, stripeToken: await cardToken(b.app), couponNo: code },
        'lt-LT',
      );
      expect(r.status, `${code}: ${r.body.msg}`).toBe(422);
      expect(r.body.msg).toMatch(message);
    }
    // Used once by this rider (one use per user): the second order is refused.
    const once = await coupon({ kind: 'percent', percent: 10 });
    expect(
      (await payOrder(token, { outTradeNo: order, stripeToken: await cardToken(b.app), couponNo: once })).body.code,
    ).toBe(0);
    const second = await orderWithDebt(token, 600);
    const again = await payOrder(
      token,
      { outTradeNo: second, stripeToken: await cardToken(b.app), couponNo: once },
      'es-ES',
    );
    expect(again.status).toBe(422);
    expect(again.body.msg).toBe('Ya has usado este cupón.');
    expect(await debtPaid(second)).toBe(false);
    expect(await payments(second)).toEqual([]);
  });

  it("a declined payment releases the coupon's use: the rider uses it with the next card", async () => {
    const code = await coupon({ kind: 'percent', percent: 50, limitTotal: 1 });
    const token = await touristToken(b.app);
    const order = await orderWithDebt(token, 600);
    const declined = await payOrder(token, {
      outTradeNo: order,
      stripeToken: await cardToken(b.app, '4000 0000 0000 0002'),
      couponNo: code,
    });
    expect(declined.status).toBe(422);
    const ok = await payOrder(token, { outTradeNo: order, stripeToken: await cardToken(b.app), couponNo: code });
    expect(ok.body.code, ok.body.msg).toBe(0);
    expect((await payments(order)).filter((p) => p.status === 'captured').map((p) => Number(p.amount))).toEqual([300]);
    await ledgerBalanced(b.app);
  });

  it('the last use of a limited coupon goes to one of two riders paying at once; the other is refused and charged nothing', async () => {
    const code = await coupon({ kind: 'fixed', amount: 100, currency: 'CNY', limitTotal: 1 });
    const riders = await Promise.all([touristToken(b.app), touristToken(b.app)]);
    const orders = await Promise.all(riders.map((t) => orderWithDebt(t, 500)));
    const cards = await Promise.all(riders.map(() => cardToken(b.app)));
    const answers = await Promise.all(
      riders.map((t, i) => payOrder(t, { outTradeNo: orders[i]!, stripeToken: cards[i]!, couponNo: code })),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([200, 422]);
    const loser = answers.findIndex((a) => a.status === 422);
    expect(await debtPaid(orders[loser]!)).toBe(false);
    expect(await payments(orders[loser]!)).toEqual([]);
    expect((await payments(orders[1 - loser]!)).map((p) => Number(p.amount))).toEqual([400]);
    await ledgerBalanced(b.app);
  });
});

describe('the coupon desk (ops API)', () => {
  let consoles: Map<Caller, OpsConsole>;
  let ofA: string;
  beforeAll(async () => {
    consoles = await callerConsoles(b);
    ofA = (
      await b.app.powerly.coupons.create({ kind: 'all' }, null, {
        code: `A${Date.now()}`,
        kind: 'percent',
        percent: 5,
        validFrom: at(-DAY),
        validTo: at(DAY),
        agentId: 'agent-a',
        reason: 'test',
      })
    ).id;
  });
  const create = (c: OpsConsole) =>
    c.call('POST', '/coupons', {
      code: `NEW${n++}`,
      kind: 'fixed',
      amount: 150,
      currency: 'EUR',
      validFrom: at(0),
      validTo: at(30 * DAY),
      agentId: 'agent-a',
      reason: 'spring campaign',
    });

  type Op = 'list coupons' | 'read a coupon of A' | 'create a coupon of A' | 'pause a coupon of A';
  //                 none platformOwner adminA adminB supportA financeA technicianA readOnlyA partnerA
  const TABLE: Record<Op, number[]> = {
    'list coupons': [401, 200, 200, 200, 200, 200, 403, 200, 403],
    'read a coupon of A': [401, 200, 200, 404, 200, 200, 403, 200, 403],
    'create a coupon of A': [401, 200, 200, 404, 403, 200, 403, 403, 403],
    'pause a coupon of A': [401, 200, 200, 404, 403, 200, 403, 403, 403],
  };
  accessTable(TABLE, () => consoles, {
    'list coupons': (c) => c.call('GET', '/coupons'),
    'read a coupon of A': (c) => c.call('GET', `/coupons/${ofA}`),
    'create a coupon of A': create,
    'pause a coupon of A': (c) => c.call('POST', `/coupons/${ofA}/paused`, { paused: true, reason: 'paused by test' }),
  });

  it("lists only the coupons of the caller's agents, with their uses; writes are audited with their reason", async () => {
    const b1 = (await consoles.get('adminB')!.call('GET', '/coupons')).json<{ items: { agentId: string | null }[] }>();
    expect(b1.items.every((c) => c.agentId === 'agent-b')).toBe(true);
    const made = await create(consoles.get('financeA')!);
    expect(made.statusCode, made.body).toBe(200);
    const id = made.json<{ id: string }>().id;
    const listed = (await consoles.get('adminA')!.call('GET', '/coupons')).json<{
      items: { id: string; redeemed: number }[];
    }>();
    expect(listed.items.find((c) => c.id === id)).toMatchObject({ redeemed: 0 });
    const entries = await b.db.query<{ action: string; reason: string }>(
      `select action, reason from audit_log where entity = 'coupon' and entity_id = $1`,
      [id],
    );
    expect(entries.rows).toEqual([{ action: 'coupon.create', reason: 'spring campaign' }]);
    // A fixed coupon without its currency, or a period that ends before it starts: 400, nothing made.
    const bad = await consoles.get('adminA')!.call('POST', '/coupons', {
      code: `BAD${n++}`,
      kind: 'fixed',
      amount: 1,
      validFrom: at(0),
      validTo: at(DAY),
      agentId: 'agent-a',
      reason: 'typo check',
    });
    expect(bad.statusCode).toBe(400);
    const late = await consoles.get('adminA')!.call('POST', '/coupons', {
      code: `BAD${n++}`,
      kind: 'percent',
      percent: 5,
      validFrom: at(DAY),
      validTo: at(0),
      agentId: 'agent-a',
      reason: 'typo check',
    });
    expect(late.statusCode).toBe(400);
  });
});
