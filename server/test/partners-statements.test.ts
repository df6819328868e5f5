// Statements from real rentals: two rentals at a venue with a share rule, one bought out and returned in the next
// month (its refund lowers the share). The month's statement matches its rentals to the cent (each line names its
// rental, its amount is the rule's percentage of that rental's net), the monthly fee is posted on the ledger with
// it, an issued statement never changes, and the later refund is an adjustment line of the next month.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build, cabinetsOnline, cardToken, ledgerBalanced, touristToken, waitFor, type Built } from './helper.ts';
import { shareOf } from '../src/modules/partners/share.ts';
import { partnersFixture, RATES, signedIn } from './partners/fixtures.ts';

const API = '/cdb-app-api/v1/app';
const VNO = { taxBps: RATES.ltTaxBps, feeBps: RATES.sandboxFeeBps, venueBps: RATES.vnoBps, agentBps: RATES.agentBps };
let b: Built;
let signIns = 0;
/** The platform's owner, signed in now (sessions end after 30 idle minutes, and the test moves time by weeks). */
const owner = () => signedIn(b, `owner${signIns++}@example.com`, { agentId: '*', role: 'owner', venueIds: [] });
let token: string;
beforeAll(async () => {
  b = await build();
  await cabinetsOnline(b, ['PWL-VNO-001', 'PWL-LIS-001']);
  await partnersFixture(b);
  token = await touristToken(b.app);
});
afterAll(async () => b?.close());

const get = (url: string) => b.app.inject({ method: 'GET', url: `${API}/${url}`, headers: { token } });
const until = (ms: string) => b.clock.advance(Date.parse(ms) - b.clock.now().getTime());

/** A rental at the Vilnius cabinet paid by card; answers its order and power bank once it popped. */
async function rentAtVilnius(key: string) {
  const methods = (await get('cdb/payment/method/list?qrcode=PWL-VNO-001')).json().data;
  const res = await b.app.inject({
    method: 'POST',
    url: `${API}/cdb/cabinet/useDepositToRent`,
    headers: { token, 'content-type': 'application/x-www-form-urlencoded', 'idempotency-key': key },
    payload: new URLSearchParams({
      qrcode: 'PWL-VNO-001',
      stripeToken: await cardToken(b.app),
      paymentId: methods[0].pId,
    }).toString(),
  });
  const orderId: string = res.json().data.outTradeNo;
  const out = await waitFor(async () => {
    const r = await b.app.inject({
      method: 'POST',
      url: `${API}/cdb/mine/order/check/${orderId}/YJ`,
      headers: { token },
    });
    return r.json().code === 0 ? r.json().data : null;
  }, `order ${orderId} popped`);
  return { orderId, powerbankId: out.shebei as string };
}

async function returnAt(cabinet: string, r: { orderId: string; powerbankId: string }, state: number) {
  await b.app.inject({
    method: 'POST',
    url: `/demo-api/cabinets/${cabinet}/return`,
    payload: { powerbankId: r.powerbankId },
  });
  await waitFor(
    async () => ((await get(`cdb/mine/order/detail?orderId=${r.orderId}`)).json().data.pZujie === state ? true : null),
    `order ${r.orderId} in ${state}`,
  );
}

const issue = async (period: string) =>
  (await owner()).call('POST', '/partners/statements', {
    partnerType: 'venue',
    partnerId: 'v-vno-gedimino',
    currency: 'EUR',
    period,
    reason: 'month end',
  });
const partnerBalance = async () =>
  Number(
    (
      await b.db.query<{ bal: string }>(
        `select (credits_posted - debits_posted)::bigint as bal from ledger_accounts where owner_type = 'partner' and owner_id = 'venue:v-vno-gedimino' and currency = 'EUR'`,
      )
    ).rows[0]?.bal ?? 0,
  );

describe("a venue partner's monthly statements", () => {
  let a: { orderId: string; powerbankId: string };
  let c: { orderId: string; powerbankId: string };
  let november: {
    statement: { id: string; total: number };
    lines: {
      kind: string;
      orderId?: string;
      gross: number;
      refunded: number;
      net: number;
      amount: number;
      percentBps: number;
    }[];
  };

  it("the month's statement matches its rentals to the cent, with the monthly fee posted on the ledger", async () => {
    a = await rentAtVilnius('st-a');
    b.clock.advance((2 * 60 + 37) * 60_000 + 20_000);
    await returnAt('PWL-LIS-001', a, 3); // €3.00 of rent
    until('2026-11-30T23:00:00Z');
    c = await rentAtVilnius('st-c');
    expect(await b.app.powerly.rentals.buyOut(c.orderId, 'user')).toBe(true); // €25.00, the buy-out fee
    until('2026-12-01T00:30:00Z');
    await returnAt('PWL-VNO-001', c, 3); // back 1 h 30 min after: all but €2.00 of rent refunded, in December

    const res = await issue('2026-11');
    expect(res.statusCode, res.body).toBe(201);
    const id = res.json().id as string;
    november = (await (await owner()).call('GET', `/partners/statements/${id}`)).json();
    const expectA = shareOf(300, 0, VNO).venueShare;
    const expectC = shareOf(2500, 0, VNO).venueShare;
    expect(november.lines).toEqual([
      expect.objectContaining({
        kind: 'rental',
        orderId: a.orderId,
        gross: 300,
        refunded: 0,
        percentBps: 1500,
        amount: expectA,
        net: shareOf(300, 0, VNO).net,
      }),
      expect.objectContaining({
        kind: 'rental',
        orderId: c.orderId,
        gross: 2500,
        refunded: 0,
        percentBps: 1500,
        amount: expectC,
      }),
      expect.objectContaining({ kind: 'monthly_fee', amount: 5000 }),
    ]);
    // To the cent: €3.00 at 21 % tax included and a 2.9 % card fee leaves a net of 239; 15 % of it is 35.
    expect(expectA).toBe(35);
    expect(november.statement.total).toBe(expectA + expectC + 5000);
    // The rental's rent on the ledger is the line's gross.
    const { rows } = await b.db.query<{ order_id: string; rent: string }>(
      `select order_id, sum(amount)::bigint as rent from ledger_transfers where code = 'rent' and order_id = any($1::text[]) group by order_id`,
      [[a.orderId, c.orderId]],
    );
    expect(Object.fromEntries(rows.map((r) => [r.order_id, Number(r.rent)]))).toEqual({
      [a.orderId]: 300,
      [c.orderId]: 2500,
    });

    const csv = (await (await owner()).call('GET', `/partners/statements/${id}/csv`)).body.trim().split('\r\n');
    expect(csv).toHaveLength(5);
    expect(csv[1]).toContain(a.orderId);
    expect(csv[4]).toBe(`Total,,,,,,,,,,${((expectA + expectC + 5000) / 100).toFixed(2)}`);
    const pdf = await (
      await owner()
    ).call('GET', `/partners/statements/${id}/pdf`, undefined, { 'accept-language': 'lt-LT' });
    expect(pdf.headers['content-type']).toBe('application/pdf');
    expect(pdf.rawPayload.subarray(0, 5).toString()).toBe('%PDF-');
    expect(pdf.rawPayload.toString('latin1')).toMatch(/\/BaseFont \/[A-Z]{6}\+DejaVuSans\b/);
    // A Chinese reader's statement carries its labels in a face with Han glyphs (embedded as a subset).
    const zh = await (
      await owner()
    ).call('GET', `/partners/statements/${id}/pdf`, undefined, { 'accept-language': 'zh-CN' });
    expect(zh.statusCode).toBe(200);
    expect(zh.rawPayload.toString('latin1')).toMatch(/\/BaseFont \/[A-Z]{6}\+NotoSansSC-Regular/);
    expect(zh.rawPayload.length).toBeLessThan(200_000);
    await ledgerBalanced(b.app);
  });

  it('an issued statement never changes; the refund after it is an adjustment of the next month', async () => {
    expect((await issue('2026-11')).statusCode).toBe(409);
    expect((await issue('2026-12')).statusCode).toBe(409); // December has not ended
    await expect(b.db.query('update partner_statements set total = 0')).rejects.toThrow(/does not change/);
    await expect(
      b.db.query('update partner_share_moves set amount = 0 where statement_id is not null'),
    ).rejects.toThrow(/does not change/);

    until('2027-01-01T00:01:00Z');
    const res = await issue('2026-12');
    expect(res.statusCode, res.body).toBe(201);
    const december = (await (await owner()).call('GET', `/partners/statements/${res.json().id}`)).json();
    const adjustment = shareOf(2500, 2300, VNO).venueShare - shareOf(2500, 0, VNO).venueShare;
    expect(adjustment).toBeLessThan(0);
    expect(december.lines).toEqual([
      expect.objectContaining({
        kind: 'adjustment',
        orderId: c.orderId,
        gross: 2500,
        refunded: 2300,
        amount: adjustment,
      }),
      expect.objectContaining({ kind: 'monthly_fee', amount: 5000 }),
    ]);
    // What the partner's account holds is what its statements reported.
    expect(await partnerBalance()).toBe(november.statement.total + december.statement.total);
    await ledgerBalanced(b.app);
  });

  it("a venue partner sees its venue's rentals with their shares, and nothing about the riders", async () => {
    const partner = await signedIn(b, `vno${signIns++}@example.com`, {
      agentId: 'agt-baltic',
      role: 'venue_partner',
      venueIds: ['v-vno-gedimino'],
    });
    const items = (await partner.call('GET', '/partners/rentals')).json<{ items: Record<string, unknown>[] }>().items;
    expect(items.map((r) => r.orderId).sort()).toEqual([a.orderId, c.orderId].sort());
    expect(items.find((r) => r.orderId === c.orderId)).toEqual({
      orderId: c.orderId,
      venueId: 'v-vno-gedimino',
      currency: 'EUR',
      settledAt: expect.any(String),
      gross: 2500,
      refunded: 2300,
      venueShare: shareOf(2500, 2300, VNO).venueShare,
      agentShare: shareOf(2500, 2300, VNO).agentShare,
    });
    const other = await signedIn(b, `lis${signIns++}@example.com`, {
      agentId: 'agt-baltic',
      role: 'venue_partner',
      venueIds: ['v-lis-timeout'],
    });
    expect((await other.call('GET', '/partners/rentals')).json()).toEqual({ items: [] });
  });
});
