// Live updates: a change committed in one API process reaches the user's event stream held by another (PostgreSQL
// LISTEN/NOTIFY; with DATABASE_URL the two builds have their own connections, as two processes do), only after the
// unit of work commits, and only to that user.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LiveEvent } from '#contract/live.ts';
import { readEventStream } from '../bench/lib.ts';
import { build, cabinetsOnline, cardToken, touristToken, waitFor, type Built } from './helper.ts';

const API = '/cdb-app-api/v1/app';
let a: Built;
let b: Built;
let base = '';

beforeAll(async () => {
  a = await build();
  b = await build({ shareDb: a, simulator: false, ownConnection: true });
  await cabinetsOnline(a, ['PWL-VNO-001', 'PWL-LIS-001']);
  base = await b.app.listen({ port: 0, host: '127.0.0.1' });
});
afterAll(async () => {
  await b?.close();
  await a?.close();
});

async function ticket(app: Built['app'], token: string): Promise<string> {
  const r = await app.inject({ method: 'POST', url: `${API}/live/ticket`, headers: { token } });
  expect(r.json()).toMatchObject({ code: 0, data: { ticket: expect.any(String), expiresIn: 60 } });
  return r.json().data.ticket;
}

/** Opens the stream over real HTTP and collects its events. */
async function stream(t: string) {
  const ctrl = new AbortController();
  const res = await fetch(`${base}${API}/live/events?ticket=${encodeURIComponent(t)}`, {
    headers: { accept: 'text/event-stream', 'accept-encoding': 'gzip, br' },
    signal: ctrl.signal,
  });
  const events: LiveEvent[] = [];
  readEventStream<LiveEvent>(res, (e) => events.push(e));
  return { res, events, close: () => ctrl.abort() };
}

describe('live updates', () => {
  it('refuses a stream without a valid ticket, and a ticket twice', async () => {
    const bad = await fetch(`${base}${API}/live/events?ticket=${'x'.repeat(32)}`, {
      headers: { accept: 'text/event-stream' },
    });
    expect(bad.status).toBe(401);
    const token = await touristToken(b.app);
    const t = await ticket(b.app, token);
    const s = await stream(t);
    expect(s.res.status).toBe(200);
    expect(s.res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(s.res.headers.get('content-encoding')).toBeNull();
    await waitFor(async () => s.events.length > 0, 'first event');
    expect(s.events[0]).toEqual({ kind: 'resync' });
    s.close();
    const again = await fetch(`${base}${API}/live/events?ticket=${encodeURIComponent(t)}`, {
      headers: { accept: 'text/event-stream' },
    });
    expect(again.status).toBe(401);
    expect(((await again.json()) as { code: number }).code).toBe(401);
  });

  it('a rental and its return on process A reach the stream on process B; another user hears nothing', async () => {
    const token = await touristToken(a.app);
    const other = await touristToken(a.app);
    const mine = await stream(await ticket(b.app, token));
    const theirs = await stream(await ticket(b.app, other));
    await waitFor(async () => mine.events.length && theirs.events.length, 'streams open');

    const methods = (
      await a.app.inject({
        method: 'GET',
        url: `${API}/cdb/payment/method/list?qrcode=PWL-VNO-001`,
        headers: { token },
      })
    ).json().data;
    const res = await a.app.inject({
      method: 'POST',
      url: `${API}/cdb/cabinet/useDepositToRent`,
      headers: { token, 'content-type': 'application/x-www-form-urlencoded', 'idempotency-key': 'live-1' },
      payload: new URLSearchParams({
        qrcode: 'PWL-VNO-001',
        stripeToken: await cardToken(a.app),
        paymentId: methods[0].pId,
      }).toString(),
    });
    const orderId: string = res.json().data.outTradeNo;
    await waitFor(
      async () => mine.events.some((e) => e.kind === 'order' && e.orderId === orderId && e.state === 1),
      'popped pushed',
    );
    expect(mine.events.find((e) => e.kind === 'order')).toEqual({ kind: 'order', orderId, state: 0 });

    const detail = (
      await a.app.inject({ method: 'GET', url: `${API}/cdb/mine/order/detail?orderId=${orderId}`, headers: { token } })
    ).json().data;
    a.clock.advance(65 * 60_000);
    const ret = await a.app.inject({
      method: 'POST',
      url: '/demo-api/cabinets/PWL-LIS-001/return',
      payload: { powerbankId: detail.pPowerbankId },
    });
    expect(ret.json()).toMatchObject({ code: 0 });
    await waitFor(
      async () =>
        (
          await a.app.inject({
            method: 'GET',
            url: `${API}/cdb/mine/order/detail?orderId=${orderId}`,
            headers: { token },
          })
        ).json().data.pZujie === 3,
      'returned',
    );
    await waitFor(
      async () => mine.events.some((e) => e.kind === 'order' && e.state === 3),
      `returned pushed (${JSON.stringify(mine.events)})`,
    );
    // The card authorisation is then captured for the fee and the rest released (a job): the screens hear that too.
    await a.app.powerly.jobs.runDue();
    await waitFor(
      async () => mine.events.some((e) => e.kind === 'order' && e.orderId === orderId && e.state === undefined),
      'settlement pushed',
    );
    expect(theirs.events).toEqual([{ kind: 'resync' }]);
    mine.close();
    theirs.close();
    await waitFor(async () => b.app.powerly.live.streams === 0, 'streams closed');
  });

  it('a change rolled back is never announced', async () => {
    const token = await touristToken(b.app);
    const me = (await b.app.inject({ method: 'GET', url: `${API}/userInfo`, headers: { token } })).json().data;
    const s = await stream(await ticket(b.app, token));
    await waitFor(async () => s.events.length, 'stream open');
    await expect(
      a.db.tx(async () => {
        await a.app.powerly.live.publish(me.pId, { kind: 'wallet' });
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    await a.db.tx(async () => a.app.powerly.live.publish(me.pId, { kind: 'order', orderId: 'marker', state: 1 }));
    await waitFor(async () => s.events.some((e) => e.orderId === 'marker'), 'committed event');
    expect(s.events.map((e) => e.kind)).toEqual(['resync', 'order']);
    s.close();
  });

  it.runIf(process.env.DATABASE_URL)(
    'PostgreSQL: a killed LISTEN connection comes back, tells the streams to resync, and delivers again',
    async () => {
      const token = await touristToken(b.app);
      const me = (await b.app.inject({ method: 'GET', url: `${API}/userInfo`, headers: { token } })).json().data;
      const s = await stream(await ticket(b.app, token));
      await waitFor(async () => s.events.length, 'stream open');
      // Terminate the listening connections of this schema's channels (process B's and A's; the last LISTEN each
      // made may be the live updates' or the scan cache's).
      const killed = await a.db.query<{ n: number }>(
        `select count(pg_terminate_backend(pid))::int as n from pg_stat_activity
        where pid <> pg_backend_pid() and query ilike $1`,
        [`listen powerly_%_${a.schema}%`],
      );
      expect(Number(killed.rows[0]!.n)).toBeGreaterThan(0);
      await waitFor(async () => s.events.filter((e) => e.kind === 'resync').length >= 2, 'resync after the reconnect');
      await waitFor(async () => {
        await a.db.tx(async () => a.app.powerly.live.publish(me.pId, { kind: 'wallet' }));
        return s.events.some((e) => e.kind === 'wallet');
      }, 'delivered after the reconnect');
      s.close();
    },
  );
});
