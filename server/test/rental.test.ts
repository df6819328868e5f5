// A rental through the API over the simulated cabinets: paid by a card pre-authorisation or from the wallet, its
// eject failing, the cabinet link and its protocol. One user's overlapping requests are in rental-concurrent.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rentalFee } from '#core/pricing.ts';
import { toMajor } from '#core/money.ts';
import { cardToken, markHeardFrom, touristToken, waitFor, type Built, ledgerBalanced } from './helper.ts';
import { API, rentalCalls, startRental } from './rental-helpers.ts';

let b: Built;
beforeAll(async () => {
  b = await startRental();
});
afterAll(async () => b?.close());

const { get, rent, check, untilOut, pendingHolds } = rentalCalls(() => b);

describe('a rental paid by card pre-authorisation (Vilnius, yajintype 0)', () => {
  it('pops over MQTT, returns at another cabinet, charges rentalFee for the elapsed time and releases the rest', async () => {
    const token = await touristToken(b.app);
    const me = (await get('userInfo', token)).json().data;
    const methods = (await get('cdb/payment/method/list?qrcode=PWL-VNO-001', token)).json().data;
    const res = await rent(
      token,
      { qrcode: 'PWL-VNO-001', stripeToken: await cardToken(b.app), paymentId: methods[0].pId },
      'k-vno-1',
    );
    expect(res.json()).toMatchObject({ code: 0, data: { outTradeNo: expect.stringMatching(/^PO/) } });
    const tradeNo: string = res.json().data.outTradeNo;

    const out = (await untilOut(token, tradeNo)).json();
    expect(out.code).toBe(0);
    expect(out.data).toMatchObject({
      orderId: tradeNo,
      orderStatus: 1,
      shebei: expect.stringMatching(/^PB-VNO-/),
      number: expect.any(Number),
    });
    const powerbankId: string = out.data.shebei;
    expect((await get('userInfo', token)).json().data).toMatchObject({ p_currency: 'EUR', pyajin: 25, pbalance: 0 });

    // 2 h 37 min 20 s later it goes into the Lisbon cabinet.
    const elapsed = (2 * 60 + 37) * 60_000 + 20_000;
    b.clock.advance(elapsed);
    const open = (await get(`cdb/mine/order/detail?orderId=${tradeNo}`, token)).json().data;
    const order = await b.app.powerly.rentals.check({ ...me, id: me.pId }, tradeNo);
    const expectedFee = rentalFee(order.plan, elapsed);
    expect(expectedFee).toBe(300); // 10 free minutes do not matter past them: 3 started hours × €1, under the €5 cap
    expect(open).toMatchObject({
      pZujie: 1,
      pJiesuanid: 0,
      estimatedAmount: toMajor(expectedFee, 'EUR'),
      pPowerbankId: powerbankId,
    });

    const ret = await b.app.inject({
      method: 'POST',
      url: `/demo-api/cabinets/PWL-LIS-001/return`,
      payload: { powerbankId },
    });
    expect(ret.json()).toMatchObject({ code: 0, data: { cabinetId: 'PWL-LIS-001', powerbankId } });
    const done = await waitFor(async () => {
      const d = (await get(`cdb/mine/order/detail?orderId=${tradeNo}`, token)).json().data;
      return d.pZujie === 3 ? d : null;
    }, 'order settled');
    expect(done).toMatchObject({
      pZujie: 3,
      pJiesuanid: 1,
      pJiesuan: 3,
      pCurrency: 'EUR',
      pShopName: 'GO9 Gedimino 9',
      pGhShopName: 'Time Out Market Lisboa',
      pUseMins: 158,
      pYajin: 25,
      estimatedAmount: 3,
    });
    expect(Date.parse(done.pGhtime) - Date.parse(done.pBorrowtime)).toBe(elapsed);
    expect((await get('userInfo', token)).json().data).toMatchObject({ pyajin: 0, pbalance: 0 });

    // The provider captured the fee and released the rest of the authorisation.
    await b.app.powerly.jobs.runDue();
    const pay = await waitFor(async () => {
      const { rows } = await b.db.query<{ status: string; captured_amount: number; provider_ref: string }>(
        'select status, captured_amount, provider_ref from payments where order_id = $1',
        [tradeNo],
      );
      return rows[0]?.status === 'partially_captured' ? rows[0] : null;
    }, 'capture');
    expect(Number(pay.captured_amount)).toBe(expectedFee);
    expect(await b.app.powerly.sandbox.status(pay.provider_ref)).toBe('partially_captured');
    expect(await pendingHolds(me.pId)).toBe(0);

    const { rows: rev } = await b.db.query<{ credits_posted: number }>(
      `select credits_posted from ledger_accounts where owner_type = 'platform' and kind = 'revenue' and currency = 'EUR'`,
    );
    expect(Number(rev[0]!.credits_posted)).toBe(expectedFee);
    await ledgerBalanced(b.app);

    // The power bank is now in Lisbon, in the server's view and the cabinet's.
    const demo = (await b.app.inject({ method: 'GET', url: '/demo-api/cabinets' })).json().data;
    expect(demo.outOnRent).toEqual([]);
    expect(
      demo.cabinets
        .find((c: { cabinetId: string }) => c.cabinetId === 'PWL-LIS-001')
        .slots.map((s: { powerbankId: string }) => s.powerbankId),
    ).toContain(powerbankId);
    const list = (await get('cdb/mine/order/list?page=1&pageSize=10', token)).json().data.page;
    expect(list).toMatchObject({ total: 1, current: 1, size: 10 });
    expect(list.records[0].pOrderid).toBe(tradeNo);
  });

  it('a declined card leaves no order, no hold, and a 422 with the reason in the user language', async () => {
    const token = await touristToken(b.app);
    const me = (await get('userInfo', token)).json().data;
    for (const [number, msg] of [
      ['4000000000000002', 'Jūsų kortelė atmesta.'],
      ['4000000000009995', 'Jūsų kortelėje nepakanka lėšų.'],
    ] as const) {
      const res = await b.app.inject({
        method: 'POST',
        url: `${API}/cdb/cabinet/useDepositToRent`,
        headers: { token, lang: 'lt-LT' },
        payload: { qrcode: 'PWL-VNO-001', stripeToken: await cardToken(b.app, number), paymentId: 'card-sandbox' },
      });
      expect(res.statusCode).toBe(422);
      expect(res.json()).toEqual({ code: 422, msg, data: null });
    }
    const { rows: orders } = await b.db.query('select id from orders where user_id = $1', [me.pId]);
    expect(orders).toEqual([]);
    expect(await pendingHolds(me.pId)).toBe(0);
    const { rows: pays } = await b.db.query<{ status: string }>('select status from payments where user_id = $1', [
      me.pId,
    ]);
    expect(pays.map((p) => p.status)).toEqual(['declined', 'declined']);
    // A used token cannot be used again.
    const tok = await cardToken(b.app);
    await b.app.inject({
      method: 'POST',
      url: `${API}/cdb/cabinet/useDepositToRent`,
      headers: { token: await touristToken(b.app) },
      payload: { qrcode: 'PWL-NYC-001', stripeToken: tok, paymentId: 'card-sandbox' },
    });
    const again = await rent(token, { qrcode: 'PWL-VNO-001', stripeToken: tok, paymentId: 'card-sandbox' });
    expect(again.statusCode).toBe(422);
    await ledgerBalanced(b.app);
  });

  it('an eject failure cancels the order and voids the hold and the authorisation', async () => {
    const token = await touristToken(b.app);
    const me = (await get('userInfo', token)).json().data;
    await b.app.inject({ method: 'POST', url: '/demo-api/cabinets/PWL-VNO-001/fail-next-eject' });
    const res = await rent(token, {
      qrcode: 'PWL-VNO-001',
      stripeToken: await cardToken(b.app),
      paymentId: 'card-sandbox',
    });
    const tradeNo = res.json().data.outTradeNo;
    const failed = await untilOut(token, tradeNo);
    expect(failed.statusCode).toBe(422);
    expect(failed.json()).toEqual({ code: 422, msg: 'Rental failed, please try again.', data: null });
    expect((await get(`cdb/mine/order/detail?orderId=${tradeNo}`, token)).json().data).toMatchObject({ pZujie: 2 });
    expect(await pendingHolds(me.pId)).toBe(0);
    await b.app.powerly.jobs.runDue();
    const { rows } = await b.db.query<{ status: string; provider_ref: string }>(
      'select status, provider_ref from payments where order_id = $1',
      [tradeNo],
    );
    expect(rows[0]!.status).toBe('voided');
    expect(await b.app.powerly.sandbox.status(rows[0]!.provider_ref)).toBe('voided');
    expect((await get('userInfo', token)).json().data.pyajin).toBe(0);
    await ledgerBalanced(b.app);
  });
});

describe('wallet deposits (yajintype 1) and useBalanceToRent', () => {
  it('tops the wallet up by deposit − balance, then borrows with the balance next time', async () => {
    const token = await touristToken(b.app);
    const scan = async () =>
      (
        await b.app.inject({ method: 'POST', url: `${API}/cdb/cabinet/checkisok?url=PWL-SH-001`, headers: { token } })
      ).json().data;
    expect(await scan()).toMatchObject({ chongzhi: 'Y', myyue: 0, yajin: 99 });
    const noMoney = await get('cdb/cabinet/useBalanceToRent?qrcode=PWL-SH-001', token);
    expect(noMoney.statusCode).toBe(422);

    const res = await rent(token, {
      qrcode: 'PWL-SH-001',
      stripeToken: await cardToken(b.app),
      paymentId: 'card-sandbox',
    });
    const tradeNo = res.json().data.outTradeNo;
    const pb = (await untilOut(token, tradeNo)).json().data.shebei;
    expect((await get('userInfo', token)).json().data).toMatchObject({ p_currency: 'CNY', pbalance: 0, pyajin: 99 });
    b.clock.advance(4 * 60_000); // inside the 5 free minutes
    await b.app.inject({ method: 'POST', url: '/demo-api/cabinets/PWL-SH-001/return', payload: { powerbankId: pb } });
    await waitFor(
      async () => (await get(`cdb/mine/order/detail?orderId=${tradeNo}`, token)).json().data.pZujie === 3,
      'returned',
    );
    expect((await get('userInfo', token)).json().data).toMatchObject({ pbalance: 99, pyajin: 0 });

    expect(await scan()).toMatchObject({ chongzhi: 'N', myyue: 99 });
    const borrowOnce = () =>
      b.app.inject({
        method: 'GET',
        url: `${API}/cdb/cabinet/useBalanceToRent?qrcode=PWL-SH-001`,
        headers: { token, 'idempotency-key': 'borrow-1' },
      });
    const borrow = await borrowOnce();
    expect(borrow.json()).toMatchObject({ code: 0, data: { outTradNo: expect.stringMatching(/^PO/) } });
    expect((await borrowOnce()).json()).toEqual(borrow.json()); // a retried Borrow gets the same order, not 'rent count'
    const second = borrow.json().data.outTradNo;
    const pb2 = (await untilOut(token, second)).json().data.shebei;
    expect((await get('userInfo', token)).json().data).toMatchObject({ pbalance: 0, pyajin: 99 });
    expect((await scan()).zujieNum).toBe(1);
    const blocked = await get('cdb/cabinet/useBalanceToRent?qrcode=PWL-SH-001', token);
    expect(blocked.statusCode).toBe(422);

    b.clock.advance(61 * 60_000); // 61 min: 3 started half hours × ¥2
    await b.app.inject({ method: 'POST', url: '/demo-api/cabinets/PWL-NYC-001/return', payload: { powerbankId: pb2 } });
    const d = await waitFor(async () => {
      const o = (await get(`cdb/mine/order/detail?orderId=${second}`, token)).json().data;
      return o.pZujie === 3 ? o : null;
    }, 'second return');
    expect(d).toMatchObject({ pJiesuan: 6, pCurrency: 'CNY', pGhShopName: 'Grand Central Terminal' });
    expect((await get('userInfo', token)).json().data).toMatchObject({ pbalance: 93, pyajin: 0 });
    expect((await get('cdb/user/wallet/new', token)).json().data).toEqual([
      { pBalance: 93, pCurrencySymbol: '¥', pCurrencyType: 'CNY', pDepositAmount: 0, pDailiId: 'powerly' },
    ]);
    await ledgerBalanced(b.app);
  });
});

describe('cabinet link', () => {
  it('cancels an order whose eject is never answered within the TTL (a job in the database)', async () => {
    const token = await touristToken(b.app);
    const me = (await get('userInfo', token)).json().data;
    // The NYC cabinet stops answering commands (its connection drops; the server still thinks it is online).
    const sim = b.fleet!.get('PWL-NYC-001')!;
    await sim.stop({ crash: true });
    await waitFor(async () => {
      const { rows } = await b.db.query<{ online: boolean }>(`select online from cabinets where id = 'PWL-NYC-001'`);
      return rows[0]?.online === false;
    }, 'last will marks the cabinet offline');
    const offline = await rent(token, {
      qrcode: 'PWL-NYC-001',
      stripeToken: await cardToken(b.app),
      paymentId: 'card-sandbox',
    });
    expect(offline.statusCode).toBe(409);
    await markHeardFrom(b, ['PWL-NYC-001']);
    const res = await rent(token, {
      qrcode: 'PWL-NYC-001',
      stripeToken: await cardToken(b.app),
      paymentId: 'card-sandbox',
    });
    const tradeNo = res.json().data.outTradeNo;
    expect((await check(token, tradeNo)).json()).toMatchObject({ code: 1, msg: 'Processing' });
    expect(await pendingHolds(me.pId)).toBe(1);
    b.clock.advance(20_000);
    await b.app.powerly.jobs.runDue();
    expect((await check(token, tradeNo)).json().code).toBe(1);
    b.clock.advance(20_000); // past TTL 30 s + grace 5 s
    await b.app.powerly.jobs.runDue();
    expect((await check(token, tradeNo)).statusCode).toBe(422);
    expect(await pendingHolds(me.pId)).toBe(0);
    // The top-up stays in the wallet (USD, yajintype 1): the user can borrow with it or withdraw it.
    expect((await get('userInfo', token)).json().data).toMatchObject({ pbalance: 30, pyajin: 0 });
    await ledgerBalanced(b.app);
  });

  it('handles a repeated event (QoS 1 redelivery) once', async () => {
    const { rows } = await b.db.query<{ id: string; payload: unknown }>(
      `select id, payload from cabinet_events where type = 'returned' limit 1`,
    );
    const ev = typeof rows[0]!.payload === 'string' ? JSON.parse(rows[0]!.payload as string) : rows[0]!.payload;
    const before = await b.db.query('select count(*)::int as n from ledger_transfers');
    await b.app.powerly.cabinets.event(rows[0]!.id.split(':')[0]!, ev);
    const after = await b.db.query('select count(*)::int as n from ledger_transfers');
    expect(after.rows).toEqual(before.rows);
  });
});

describe('cabinet protocol, seen from the wire', () => {
  it('a cabinet refuses an expired command (ack expired, no eject) and answers a redelivered one without ejecting twice', async () => {
    const raw = b.connector.connect({ clientId: `probe-${Date.now()}`, clean: true });
    await new Promise<void>((r) => raw.once('connect', () => r()));
    const seen: { topic: string; body: Record<string, unknown> }[] = [];
    raw.on('message', (topic, payload) =>
      seen.push({ topic, body: JSON.parse(payload.toString()) as Record<string, unknown> }),
    );
    const t = `${b.prefix}/cabinets/PWL-LIS-001`;
    await raw.subscribeAsync([`${t}/acks`, `${t}/events`], { qos: 1 });
    const before = b
      .fleet!.get('PWL-LIS-001')!
      .inventory()
      .filter((s) => s.powerbankId).length;

    const stale = {
      v: 1,
      id: 'cmd-stale',
      type: 'eject',
      ts: new Date(b.clock.now().getTime() - 60_000).toISOString(),
      ttlMs: 30_000,
      slot: null,
    };
    await raw.publishAsync(`${t}/commands`, JSON.stringify(stale), { qos: 1 });
    await waitFor(async () => seen.find((m) => m.body.commandId === 'cmd-stale'), 'expired ack');
    expect(seen.find((m) => m.body.commandId === 'cmd-stale')).toMatchObject({
      topic: `${t}/acks`,
      body: { status: 'expired' },
    });

    const fresh = { v: 1, id: 'cmd-fresh', type: 'eject', ts: b.clock.now().toISOString(), ttlMs: 30_000, slot: null };
    await raw.publishAsync(`${t}/commands`, JSON.stringify(fresh), { qos: 1 });
    const popped = await waitFor(
      async () => seen.find((m) => m.body.type === 'popped' && m.body.commandId === 'cmd-fresh'),
      'popped',
    );
    await raw.publishAsync(`${t}/commands`, JSON.stringify(fresh), { qos: 1 }); // redelivery
    await waitFor(
      async () => seen.filter((m) => m.body.type === 'popped' && m.body.commandId === 'cmd-fresh').length === 2,
      'repeated outcome',
    );
    const repeats = seen.filter((m) => m.body.type === 'popped' && m.body.commandId === 'cmd-fresh');
    expect(repeats[1]!.body.id).toBe(popped.body.id); // same event id: the server deduplicates it
    expect(
      b
        .fleet!.get('PWL-LIS-001')!
        .inventory()
        .filter((s) => s.powerbankId).length,
    ).toBe(before - 1);
    expect(seen.some((m) => m.body.commandId === 'cmd-stale' && m.topic.endsWith('/events'))).toBe(false);
    // Put it back so the cabinet stays as it was.
    await b.fleet!.get('PWL-LIS-001')!.insert(String(popped.body.powerbankId));
    await raw.endAsync();
  });
});
