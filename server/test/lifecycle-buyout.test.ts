// The rental lifecycle on the server, past the overtime: the buy-out across a restart, a return after it (the
// difference back within the agent's window), and buying the power bank. The rest of the lifecycle is in
// lifecycle.test.ts.
import { describe, expect, it } from 'vitest';
import { MINUTE_MS } from '#core/pricing.ts';
import { buildApp } from '../src/app.ts';
import { MqttCabinetLink } from '../src/modules/cabinets/link.ts';
import { failNextKeyCompletionOutsideTx, cabinetsOnline, touristToken, ledgerBalanced } from './helper.ts';
import { API, DAY, HOUR, cabinetReports, detail, freshBuilds, get, payment, rentedOut } from './lifecycle-helpers.ts';

const quiet = { info() {}, warn() {}, error() {}, debug() {} };
const fresh = freshBuilds();

describe('overtime buy-out', () => {
  it('the job is in the database: after a restart it closes the order as bought out; a later return gets the difference back', async () => {
    const b = await fresh();
    await cabinetsOnline(b, ['PWL-VNO-001']);
    const token = await touristToken(b.app);
    const { tradeNo, powerbankId, borrowedAt } = await rentedOut(b, token, 'PWL-VNO-001');
    const me = (await get(b.app, 'userInfo', token)).json().data;

    // The server stops; a new process (same database) takes over.
    await b.app.close();
    const app2 = await buildApp({
      db: b.db,
      clock: b.clock,
      link: new MqttCabinetLink(b.connector, { prefix: `${b.prefix}-2`, log: quiet }),
      sandbox: b.sandbox,
    });
    await app2.ready();
    try {
      b.clock.advance(3 * DAY - MINUTE_MS);
      await app2.powerly.jobs.runDue();
      expect(await detail(app2, token, tradeNo)).toMatchObject({ pZujie: 1, pJiesuanid: 0, boughtOut: false });
      b.clock.advance(2 * MINUTE_MS);
      await app2.powerly.jobs.runDue();
      const bought = await detail(app2, token, tradeNo);
      // VNO overtime 3 days, overtime amount €25 = deposit €25
      expect(bought).toMatchObject({ pZujie: 1, pJiesuanid: 1, boughtOut: true, pJiesuan: 25, buyOutAmount: 25 });
      await app2.powerly.jobs.runDue();
      expect(Number((await payment(b, tradeNo)).captured_amount)).toBe(2500);
      // Not counted as an open rental any more: the user may rent again.
      expect(await app2.powerly.rentals.openCount(me.pId)).toBe(0);

      // Ten hours later the power bank comes back anyway.
      b.clock.advance(10 * HOUR - MINUTE_MS);
      await cabinetReports(app2, 'PWL-VNO-001', powerbankId, b.clock.now().getTime());
      const back = await detail(app2, token, tradeNo);
      // Rent for 3 d 10 h: 3 × €5 + min(€5, 10 × €1) = €20; charged €25 from the card hold → €5 back to that card
      // (a provider refund, docs/payments.md), not into the wallet.
      expect(back).toMatchObject({ pZujie: 5, pJiesuanid: 1, pJiesuan: 20, boughtOut: true });
      expect(Date.parse(back.pGhtime) - borrowedAt).toBe(3 * DAY + 10 * HOUR);
      await app2.powerly.jobs.runDue();
      expect(Number((await payment(b, tradeNo)).refunded_amount)).toBe(500);
      expect((await get(app2, 'userInfo', token)).json().data.pbalance).toBe(0);
      await ledgerBalanced(app2);
    } finally {
      await app2.close();
    }
  });

  it('a return reported late with a time before the buy-out becomes state 3 with the difference back', async () => {
    const b = await fresh();
    await cabinetsOnline(b, ['PWL-VNO-001']);
    const token = await touristToken(b.app);
    const { tradeNo, powerbankId, borrowedAt } = await rentedOut(b, token, 'PWL-VNO-001');
    b.clock.advance(3 * DAY + HOUR);
    await b.app.powerly.jobs.runDue();
    expect((await detail(b.app, token, tradeNo)).boughtOut).toBe(true);
    await cabinetReports(b.app, 'PWL-VNO-001', powerbankId, borrowedAt + 2 * DAY + 2 * HOUR);
    // 2 d 2 h: 2 × €5 + min(5, 2 × €1) = €12; €25 − €12 = €13 back to the card the hold was on
    expect(await detail(b.app, token, tradeNo)).toMatchObject({ pZujie: 3, pJiesuan: 12 });
    await b.app.powerly.jobs.runDue();
    expect(Number((await payment(b, tradeNo)).refunded_amount)).toBe(1300);
    expect((await get(b.app, 'userInfo', token)).json().data.pbalance).toBe(0);
    await ledgerBalanced(b.app);
  });

  it("the buy-out comes back, less the rent, only within the agent's window after it (default 30 days)", async () => {
    const b = await fresh();
    await cabinetsOnline(b, ['PWL-VNO-001']);
    const token = await touristToken(b.app);
    // Bought out at 3 days; back at 4 d 2 h: the rent, 4 × €5 + €2 = €22, is less than the €25 taken.
    const boughtAndBack = async () => {
      const r = await rentedOut(b, token, 'PWL-VNO-001');
      b.clock.advance(3 * DAY + MINUTE_MS);
      await b.app.powerly.jobs.runDue();
      expect((await detail(b.app, token, r.tradeNo)).boughtOut).toBe(true);
      b.clock.advance(r.borrowedAt + 4 * DAY + 2 * HOUR - b.clock.now().getTime());
      await cabinetReports(b.app, 'PWL-VNO-001', r.powerbankId, b.clock.now().getTime());
      await b.app.powerly.jobs.runDue();
      return {
        order: await detail(b.app, token, r.tradeNo),
        refunded: Number((await payment(b, r.tradeNo)).refunded_amount),
      };
    };
    // Within the default 30 days: €3 back to the card.
    expect(await boughtAndBack()).toMatchObject({ order: { pZujie: 5, pJiesuan: 22 }, refunded: 300 });
    // The venue's agent allows one day after the buy-out: 1 d 2 h is past it, the €25 stays charged.
    await b.db.query(`insert into agents (id, name) values ('agent-returns', 'Returns') on conflict do nothing`);
    await b.db.query(
      `update venues set agent_id = 'agent-returns' where id = (select venue_id from cabinets where id = 'PWL-VNO-001')`,
    );
    await b.db.query(
      `insert into agent_return_settings (agent_id, buy_out_reversal_days, updated_at) values ('agent-returns', 1, now())`,
    );
    expect(await boughtAndBack()).toMatchObject({ order: { pZujie: 5, pJiesuan: 25 }, refunded: 0 });
    await ledgerBalanced(b.app);
  });

  it('buy the power bank (cdb/order/buyOrder): settled at once for the buy-out fee; twice is refused', async () => {
    const b = await fresh();
    await cabinetsOnline(b, ['PWL-LIS-001']);
    const token = await touristToken(b.app);
    const { tradeNo } = await rentedOut(b, token, 'PWL-LIS-001');
    const buy = () =>
      b.app.inject({
        method: 'POST',
        url: `${API}/cdb/order/buyOrder`,
        headers: { token },
        payload: { orderId: tradeNo },
      });
    const r = await buy();
    expect(r.json()).toMatchObject({ code: 0, data: { pZujie: 1, pJiesuanid: 1, boughtOut: true, pJiesuan: 30 } });
    const again = await buy();
    expect(again.statusCode).toBe(409);
    expect(again.json().msg).toBe('This rental is no longer open.');
    const other = await b.app.inject({
      method: 'POST',
      url: `${API}/cdb/order/buyOrder`,
      headers: { token: await touristToken(b.app) },
      payload: { orderId: tradeNo },
    });
    expect(other.statusCode).toBe(404);
    // The overtime job later finds nothing to do.
    b.clock.advance(4 * DAY);
    await b.app.powerly.jobs.runDue();
    expect((await detail(b.app, token, tradeNo)).pJiesuan).toBe(30);
    await ledgerBalanced(b.app);
  });

  it('buy the power bank: a process stopping after the buy-out committed leaves a key the retry replays', async () => {
    const b = await fresh();
    await cabinetsOnline(b, ['PWL-LIS-001']);
    const token = await touristToken(b.app);
    const { tradeNo } = await rentedOut(b, token, 'PWL-LIS-001');
    const buy = () =>
      b.app.inject({
        method: 'POST',
        url: `${API}/cdb/order/buyOrder`,
        headers: { token, 'idempotency-key': `buy-${tradeNo}` },
        payload: { orderId: tradeNo },
      });
    failNextKeyCompletionOutsideTx(b);
    expect((await buy()).statusCode).toBe(500);
    const again = await buy();
    expect(again.json()).toMatchObject({ code: 0, data: { boughtOut: true, pJiesuan: 30 } });
    expect(again.headers['idempotent-replayed']).toBe('true');
    await ledgerBalanced(b.app);
  });
});
