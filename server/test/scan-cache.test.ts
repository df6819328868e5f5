// The scan's cache (modules/cabinets/scan-cache.ts): a repeated scan is answered without the database, and every
// change that alters the answer reaches it, whoever made it: this API process, another one on the same database
// (with DATABASE_URL the two builds hold their own connections, as two processes do), or SQL by hand. A NOTIFY is
// delivered after its commit, so each check after a change waits for the answer to change (it does within
// milliseconds); a stale answer would time the wait out.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../src/db/db.ts';
import { ScanCache, type ScanRead } from '../src/modules/cabinets/scan-cache.ts';
import { build, cabinetsOnline, cardToken, markHeardFrom, touristToken, waitFor, type Built } from './helper.ts';

const API = '/cdb-app-api/v1/app';
const OFFLINE_AFTER_MS = 60_000;
let a: Built;
let b: Built;

beforeAll(async () => {
  a = await build({ offlineAfterMs: OFFLINE_AFTER_MS });
  // Another API process on the same database: its changes must reach a's cache.
  b = await build({ shareDb: a, simulator: false, ownConnection: true, offlineAfterMs: OFFLINE_AFTER_MS });
  await cabinetsOnline(a, ['PWL-VNO-001', 'PWL-LIS-001']);
});
afterAll(async () => {
  await b?.close();
  await a?.close();
});

type Scan = {
  code: number;
  data: {
    haveBatteryCount: number;
    myyue: number;
    zujieNum: number;
    online: boolean;
    jifei: number;
    freeSlots: number;
  };
};
const scan = async (on: Built, token: string, cabinet = 'PWL-VNO-001') =>
  (
    await on.app.inject({ method: 'POST', url: `${API}/cdb/cabinet/checkisok?url=${cabinet}`, headers: { token } })
  ).json() as Scan;
const counts = () => ({ hits: a.app.powerly.scanCache.hits, misses: a.app.powerly.scanCache.misses });
/** Scans on a until `ok` holds for the answer (a change is announced after its commit). */
const until = (token: string, ok: (s: Scan) => boolean, what: string, cabinet?: string) =>
  waitFor(
    async () => {
      const s = await scan(a, token, cabinet);
      return ok(s) ? s : null;
    },
    what,
    5_000,
  );

describe('the scan cache', () => {
  it('answers a repeated scan without the database, the same answer as the read', async () => {
    await markHeardFrom(a, ['PWL-VNO-001']);
    const token = await touristToken(a.app, 'cache-repeat');
    const first = await scan(a, token);
    expect(first.code).toBe(0);
    const before = counts();
    const again = await scan(a, token);
    expect(again).toEqual(first);
    expect(counts()).toEqual({ hits: before.hits + 1, misses: before.misses });
  });

  it('sees a top-up made by another API process and a rental (wallet, open rentals, stock)', async () => {
    await markHeardFrom(a, ['PWL-VNO-001']);
    const token = await touristToken(a.app, 'cache-wallet');
    const first = await scan(a, token);
    expect(first.data).toMatchObject({ myyue: 0, zujieNum: 0 });
    await scan(a, token); // cached now
    const topUp = await b.app.inject({
      method: 'POST',
      url: `${API}/cdb/payment/multicurrency/recharge`,
      headers: { token, 'content-type': 'application/x-www-form-urlencoded', 'idempotency-key': 'cache-topup-1' },
      payload: new URLSearchParams({
        amount: '30',
        currency: 'EUR',
        paymentId: 'card-sandbox',
        stripeToken: await cardToken(b.app),
      }).toString(),
    });
    expect(topUp.json().code).toBe(0);
    await until(token, (s) => s.data.myyue === 30, 'the top-up in the scan');

    const stock = first.data.haveBatteryCount;
    const rent = await a.app.inject({
      method: 'GET',
      url: `${API}/cdb/cabinet/useBalanceToRent?qrcode=PWL-VNO-001`,
      headers: { token },
    });
    expect(rent.json().code).toBe(0);
    // Open rental at once; the power bank leaves the cabinet when it pops (the simulator answers the eject).
    await until(token, (s) => s.data.zujieNum === 1, 'the open rental in the scan');
    await until(
      token,
      (s) => s.data.haveBatteryCount === stock - 1 && s.data.myyue === 5,
      'the popped power bank and the held deposit in the scan',
    );
  });

  it('sees SQL by hand: a price plan changed, a cabinet taken offline', async () => {
    await markHeardFrom(a, ['PWL-LIS-001']);
    const token = await touristToken(a.app, 'cache-sql');
    const first = await scan(a, token, 'PWL-LIS-001');
    await scan(a, token, 'PWL-LIS-001');
    const venue = (await a.db.query<{ venue_id: string }>(`select venue_id from cabinets where id = 'PWL-LIS-001'`))
      .rows[0]!.venue_id;
    await a.db.query(
      `update price_plans set unit_price = unit_price + 100 where venue_id = $1 and device_kind = 'cdb'`,
      [venue],
    );
    try {
      await until(token, (s) => s.data.jifei === first.data.jifei + 1, 'the new price in the scan', 'PWL-LIS-001');
    } finally {
      await a.db.query(
        `update price_plans set unit_price = unit_price - 100 where venue_id = $1 and device_kind = 'cdb'`,
        [venue],
      );
    }
    await a.db.query(`update cabinets set online = false where id = 'PWL-LIS-001'`);
    await until(
      token,
      (s) => !s.data.online && s.data.haveBatteryCount === 0,
      'the offline cabinet in the scan',
      'PWL-LIS-001',
    );
    await markHeardFrom(a, ['PWL-LIS-001']);
    await until(token, (s) => s.data.online, 'the cabinet online again', 'PWL-LIS-001');
  });

  it('applies the rules that announce nothing: missed heartbeats, session expiry; a revoked session is refused', async () => {
    await markHeardFrom(a, ['PWL-VNO-001']);
    const token = await touristToken(a.app, 'cache-rules');
    expect((await scan(a, token)).data.online).toBe(true);
    expect((await scan(a, token)).data.online).toBe(true);
    // No heartbeat for longer than the liveness window: offline, though nothing was written.
    a.clock.advance(OFFLINE_AFTER_MS + 1_000);
    expect((await scan(a, token)).data).toMatchObject({ online: false, haveBatteryCount: 0 });
    await markHeardFrom(a, ['PWL-VNO-001']);
    await until(token, (s) => s.data.online, 'online again after a heartbeat');

    // Logout in the other process: the token is refused here.
    expect((await b.app.inject({ method: 'POST', url: `${API}/logout`, headers: { token } })).json().code).toBe(0);
    await until(token, (s) => s.code === 401, 'the revoked session refused');

    // A session past its expiry (30 days) is refused without any announcement.
    const other = await touristToken(a.app, 'cache-expiry');
    expect((await scan(a, other)).code).toBe(0);
    expect((await scan(a, other)).code).toBe(0);
    a.clock.advance(30 * 24 * 3600_000 + 1);
    expect((await scan(a, other)).code).toBe(401);
    await markHeardFrom(a, ['PWL-VNO-001', 'PWL-LIS-001']);
  });
});

describe.runIf(process.env.DATABASE_URL)('the scan cache on PostgreSQL', () => {
  it('a killed LISTEN connection: a change made meanwhile is seen, and the cache answers again once it is back', async () => {
    await markHeardFrom(a, ['PWL-LIS-001']);
    const token = await touristToken(a.app, 'cache-deaf');
    const first = await scan(a, token, 'PWL-LIS-001');
    await scan(a, token, 'PWL-LIS-001');
    const killed = await a.db.query<{ n: number }>(
      `select count(pg_terminate_backend(pid))::int as n from pg_stat_activity where pid <> pg_backend_pid() and query ilike $1`,
      [`listen powerly_%_${a.schema}%`],
    );
    expect(Number(killed.rows[0]!.n)).toBeGreaterThan(0);
    const venue = (await a.db.query<{ venue_id: string }>(`select venue_id from cabinets where id = 'PWL-LIS-001'`))
      .rows[0]!.venue_id;
    await a.db.query(
      `update price_plans set unit_price = unit_price + 100 where venue_id = $1 and device_kind = 'cdb'`,
      [venue],
    );
    try {
      await until(
        token,
        (s) => s.data.jifei === first.data.jifei + 1,
        'the new price after the listener was killed',
        'PWL-LIS-001',
      );
      // Back: answered from the cache again.
      await waitFor(async () => {
        const before = a.app.powerly.scanCache.hits;
        await scan(a, token, 'PWL-LIS-001');
        return a.app.powerly.scanCache.hits > before;
      }, 'answers from the cache again');
    } finally {
      await a.db.query(
        `update price_plans set unit_price = unit_price - 100 where venue_id = $1 and device_kind = 'cdb'`,
        [venue],
      );
    }
  });
});

describe('ScanCache', () => {
  // The class alone, with a database that only delivers announcements (what its listen does).
  let deliver: (payload: string | null) => void = () => undefined;
  let hearing = true;
  const db = {
    listen: async (_: string, fn: (p: string | null) => void) => ((deliver = fn), async () => undefined),
    hearing: () => hearing,
  } as unknown as Db;
  const at = new Date('2026-11-23T12:00:00Z');
  const read = (userId: number, cabinet: string, online = true): ScanRead => ({
    userId,
    sessionExpiresAt: new Date(at.getTime() + 3600_000),
    view: { cabinet: { id: cabinet, venue_id: 'v', slot_count: 6, online, last_seen_at: at } } as ScanRead['view'],
  });
  const live = () => true;

  it('keeps nothing before it listens, nor a read that a change was announced during', async () => {
    const c = new ScanCache(
      db,
      async () => 'public',
      () => at.getTime(),
    );
    c.set('k', read(1, 'C1'), 'h', c.mark);
    expect(c.size).toBe(0);
    await c.start();
    const mark = c.mark;
    deliver('u:99'); // some change, while the read was under way
    c.set('k', read(1, 'C1'), 'h', mark);
    expect(c.get('k', at, live)).toBeUndefined();
    c.set('k', read(1, 'C1'), 'h', c.mark);
    expect(c.get('k', at, live)?.userId).toBe(1);
  });

  it('drops the entries an announcement names, everything on * or a lost connection, the least recently used past its size', async () => {
    const c = new ScanCache(
      db,
      async () => 'public',
      () => at.getTime(),
      3,
    );
    await c.start();
    const put = (k: string, r: ScanRead, token: string) => c.set(k, r, token, c.mark);
    put('a', read(1, 'C1'), 'ha');
    put('b', read(2, 'C1'), 'hb');
    put('c', read(3, 'C2'), 'hc');
    deliver('c:C1');
    expect([c.get('a', at, live), c.get('b', at, live), c.get('c', at, live)?.userId]).toEqual([
      undefined,
      undefined,
      3,
    ]);
    put('a', read(1, 'C1'), 'ha');
    deliver('s:ha');
    expect(c.get('a', at, live)).toBeUndefined();
    put('a', read(1, 'C1'), 'ha');
    deliver('u:1');
    expect(c.get('a', at, live)).toBeUndefined();
    put('a', read(1, 'C1'), 'ha');
    deliver('*');
    expect(c.size).toBe(0);
    put('a', read(1, 'C1'), 'ha');
    deliver(null);
    expect(c.size).toBe(0);
    for (const k of ['a', 'b', 'c']) put(k, read(1, 'C1'), `h${k}`);
    c.get('a', at, live); // a is now the most recently used
    put('d', read(4, 'C3'), 'hd');
    expect([c.get('a', at, live)?.userId, c.get('b', at, live), c.size]).toEqual([1, undefined, 3]);
  });

  it('neither keeps nor answers while its listening connection is down', async () => {
    const c = new ScanCache(
      db,
      async () => 'public',
      () => at.getTime(),
    );
    await c.start();
    c.set('k', read(1, 'C1'), 'h', c.mark);
    hearing = false;
    try {
      expect(c.get('k', at, live)).toBeUndefined();
      c.set('j', read(2, 'C2'), 'h2', c.mark);
      hearing = true;
      expect(c.get('j', at, live)).toBeUndefined();
    } finally {
      hearing = true;
    }
  });

  it('reads again a cabinet that says online but is not live by now, and an expired session', async () => {
    const c = new ScanCache(
      db,
      async () => 'public',
      () => at.getTime(),
    );
    await c.start();
    c.set('on', read(1, 'C1', true), 'h1', c.mark);
    expect(c.get('on', at, () => false)).toBeUndefined();
    c.set('off', read(1, 'C2', false), 'h1', c.mark);
    expect(c.get('off', at, () => false)?.view.cabinet.online).toBe(false); // an offline cabinet is announced when it comes back
    c.set('s', read(1, 'C3'), 'h1', c.mark);
    expect(c.get('s', new Date(at.getTime() + 3600_000), live)).toBeUndefined();
  });
});
