// The support desk over rentals: role × scope table, search (phone, card, power bank; cursor pages; CSV), the
// timeline (cabinet events with their own timestamps, payments, ledger, staff actions, the fee step by step), and
// the refund: to the card, once per key, never more than charged minus refunded, one refund when two people act at
// once, exactly one refund when the process dies mid-way, the ledger balanced after each, the rider told live.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MINUTE_MS } from '#core/pricing.ts';
import { uuid } from '../src/lib/ids.ts';
import { build, ledgerBalanced, waitFor, type Built } from './helper.ts';
import { keepSignedIn, settledRental } from './ops/orders.ts';
import { accessTable, callerConsoles, person, type Caller } from './ops/callers.ts';
import { OpsConsole } from './ops/console.ts';
import { csrfOfSession } from '../src/plugins/ops-api.ts';
import { sha256 } from '../src/lib/ids.ts';

const API = '/cdb-app-api/v1/app';

const refund = (c: OpsConsole, orderId: string, amount: number, o: { key?: string; version?: number } = {}) =>
  c.call(
    'POST',
    `/rentals/${orderId}/refund`,
    { amount, reason: 'rider complaint' },
    {
      'idempotency-key': o.key ?? uuid(),
      'if-match': `"v${o.version ?? 0}"`,
    },
  );

const refundsAtProvider = async (b: Built, orderId: string) => {
  const { rows } = await b.db.query<{ refunded_amount: string; keys: number }>(
    `select p.refunded_amount::text, (select count(*)::int from payment_refund_keys k where k.payment_id = p.id) as keys
       from payments p where p.order_id = $1 and p.status <> 'declined'`,
    [orderId],
  );
  return { refunded: Number(rows[0]!.refunded_amount), keys: rows[0]!.keys };
};

describe('the support desk', () => {
  let b: Built;
  let consoles = new Map<Caller, OpsConsole>();
  let rental: Awaited<ReturnType<typeof settledRental>>;
  /** A support person of agent A (refunds up to the desk's support limit, here €2.50). */
  let desk: OpsConsole;

  beforeAll(async () => {
    b = await build({ desk: { supportRefundLimit: { EUR: 250 } } });
    consoles = await callerConsoles(b);
    await b.db.query(`update venues set agent_id = 'agent-a' where id = 'v-vno-gedimino'`);
    rental = await settledRental(b, 'desk-rider-000001');
    await b.db.query(`update users set mobile = '+370 612 34567', email = 'Rider@Example.com' where id = $1`, [
      rental.userId,
    ]);
    const id = await person(b, 'desk@a.example', { agentId: 'agent-a', role: 'support', venueIds: [] });
    desk = new OpsConsole(b.app);
    const token = 'session-of-desk-0123456789abcdef';
    await b.app.powerly.staff.repo.insertSession({
      tokenHash: sha256(token),
      staffId: id,
      method: 'passkey',
      ip: '127.0.0.1',
      userAgent: 't',
      at: b.clock.now(),
      expiresAt: new Date(b.clock.now().getTime() + 3_600_000),
    });
    desk.jar.set('ops_session', token);
    desk.csrf = csrfOfSession(token);
  });
  afterAll(() => b.close());

  type Op = 'search rentals' | 'read rental of A' | 'export rentals' | 'refund rental of A';
  //                        none platformOwner adminA adminB supportA financeA technicianA readOnlyA partnerA
  const TABLE: Record<Op, number[]> = {
    'search rentals': [401, 200, 200, 200, 200, 200, 403, 200, 403],
    'export rentals': [401, 200, 200, 200, 200, 200, 403, 200, 403],
    'read rental of A': [401, 200, 200, 404, 200, 200, 403, 200, 403],
    // Too large for anyone allowed: refused without changing anything (the table reads statuses only).
    'refund rental of A': [401, 422, 422, 404, 403, 422, 403, 403, 403],
  };
  accessTable(TABLE, () => consoles, {
    'search rentals': (c) => c.call('GET', '/rentals'),
    'export rentals': (c) => c.call('GET', '/rentals.csv'),
    'read rental of A': (c) => c.call('GET', `/rentals/${rental.orderId}`),
    'refund rental of A': (c) => refund(c, rental.orderId, 99_999),
  });

  it("lists only the rentals of the caller's agents and venues", async () => {
    const ids = async (caller: Caller) =>
      (await consoles.get(caller)!.call('GET', '/rentals'))
        .json<{ items: Array<{ id: string }> }>()
        .items.map((r) => r.id);
    expect(await ids('adminA')).toContain(rental.orderId);
    expect(await ids('adminB')).not.toContain(rental.orderId);
    expect(await ids('platformOwner')).toContain(rental.orderId);
  });

  it('finds the rental by phone (any formatting), e-mail (any case), card, power bank, cabinet and state; pages by cursor', async () => {
    const find = async (query: string) =>
      (await desk.call('GET', `/rentals?${query}`)).json<{ items: Array<{ id: string; riderPhone?: string }> }>().items;
    expect((await find('phone=%2B37061234567'))[0]).toMatchObject({ id: rental.orderId, riderPhone: '+370 612 34567' });
    expect((await find('q=370-612-34567')).map((r) => r.id)).toEqual([rental.orderId]);
    expect((await find('q=rider%40example.com')).map((r) => r.id)).toEqual([rental.orderId]);
    expect((await find(`q=${rental.orderId}`)).map((r) => r.id)).toEqual([rental.orderId]);
    expect((await find('cardLast4=4242')).map((r) => r.id)).toContain(rental.orderId);
    expect((await find(`powerbankId=${rental.powerbankId}`)).map((r) => r.id)).toContain(rental.orderId);
    expect((await find('cabinetId=PWL-VNO-001&state=3')).map((r) => r.id)).toContain(rental.orderId);
    expect(await find('phone=%2B37000000000')).toEqual([]);
    expect(await find('cardLast4=0000')).toEqual([]);
    // A second rental of another rider: two pages of one, each once.
    await settledRental(b, 'desk-rider-000002');
    const seen: string[] = [];
    let url = '/rentals?limit=1';
    for (;;) {
      const page = (await desk.call('GET', url)).json<{ items: Array<{ id: string }>; next?: string }>();
      seen.push(...page.items.map((r) => r.id));
      if (!page.next) break;
      url = `/rentals?limit=1&cursor=${page.next}`;
    }
    expect(seen.length).toBe(2);
    expect(new Set(seen).size).toBe(2);
    expect((await desk.call('GET', '/rentals?cursor=bm90LWEtY3Vyc29y')).statusCode).toBe(400);
    expect((await desk.call('GET', '/rentals?cardLast4=12')).statusCode).toBe(400);
  });

  it("exports the search as CSV, with the agent's rentals only", async () => {
    const res = await desk.call('GET', '/rentals.csv?cabinetId=PWL-VNO-001');
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    const lines = res.body.trim().split('\r\n');
    expect(lines[0]).toBe(
      'id,created_at,state,settled,rider_id,rider_phone,rider_email,agent_id,venue_id,venue_name,cabinet_id,powerbank_id,borrowed_at,returned_at,fee,deposit,currency',
    );
    expect(lines.length).toBe(3);
    expect(lines.slice(1).every((l) => l.includes(',agent-a,v-vno-gedimino,'))).toBe(true);
    const other = await consoles.get('adminB')!.call('GET', '/rentals.csv');
    expect(other.body.trim().split('\r\n')).toHaveLength(1);
  });

  it("shows one timeline: cabinet commands and events with the cabinet's time, payments, ledger, the fee step by step", async () => {
    const res = await desk.call('GET', `/rentals/${rental.orderId}`);
    expect(res.statusCode).toBe(200);
    expect(res.headers.etag).toBe('"v0"');
    const t = res.json<{
      fee: { steps: Array<{ kind: string }>; total: number };
      money: { charged: number; refundable: number };
      entries: Array<{ at: string; what: string; source: string; receivedAt?: string }>;
    }>();
    // 3 h at €1 per started hour past 10 free minutes: 3 units.
    expect(t.fee.total).toBe(300);
    expect(t.fee.steps).toEqual([
      { kind: 'elapsed', minutes: 180 },
      { kind: 'units', minutes: 180, units: 3, unitMinutes: 60, unitPrice: 100, amount: 300 },
    ]);
    expect(t.money).toMatchObject({ charged: 300, refunded: 0, refundable: 300 });
    const whats = t.entries.map((e) => e.what);
    for (const w of [
      'order.created',
      'cabinet.command.eject',
      'cabinet.popped',
      'order.borrowed',
      'cabinet.returned',
      'order.returned',
      'payment.authorized',
      'payment.partially_captured',
      'ledger.rent',
    ]) {
      expect(whats, w).toContain(w);
    }
    expect(t.entries.map((e) => e.at)).toEqual([...t.entries.map((e) => e.at)].sort());
    const returned = t.entries.find((e) => e.what === 'cabinet.returned')!;
    expect(returned.receivedAt).toBeDefined();
  });

  it('refunds part of the fee to the card, once per key; the rider sees the new fee; the ledger stays balanced', async () => {
    const key = uuid();
    const res = await refund(desk, rental.orderId, 120, { key });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ amount: 120, currency: 'EUR', toCard: 120, toWallet: 0, refundable: 180 });
    // The replay (the console's retry after a lost answer) is the same refund, not a second one.
    const again = await refund(desk, rental.orderId, 120, { key });
    expect(again.json()).toMatchObject({ id: res.json<{ id: string }>().id });
    expect((await refund(desk, rental.orderId, 130, { key, version: 1 })).statusCode).toBe(422);
    expect(await refundsAtProvider(b, rental.orderId)).toEqual({ refunded: 120, keys: 1 });
    expect((await rental.detail()).pJiesuan).toBe(1.8);
    await ledgerBalanced(b.app);
    const t = (await desk.call('GET', `/rentals/${rental.orderId}`)).json<{
      money: { refunded: number; refundable: number };
      entries: Array<{ what: string; detail?: { reason?: string } }>;
    }>();
    expect(t.money).toMatchObject({ refunded: 120, refundable: 180 });
    expect(t.entries.find((e) => e.what === 'staff.rental.refund')?.detail?.reason).toBe('rider complaint');
    expect(t.entries.map((e) => e.what)).toContain('ledger.desk_refund');
  });

  it('refuses a refund larger than what was charged minus what was refunded, and one made on a stale read', async () => {
    const tooMuch = await refund(desk, rental.orderId, 181, { version: 1 });
    expect(tooMuch.statusCode).toBe(422);
    expect(tooMuch.json<{ message: string }>().message).toContain('1.8');
    expect((await refund(desk, rental.orderId, 10, { version: 0 })).statusCode).toBe(409);
    expect(
      (
        await desk.call(
          'POST',
          `/rentals/${rental.orderId}/refund`,
          { amount: 10, reason: 'no key' },
          { 'if-match': '"v1"' },
        )
      ).statusCode,
    ).toBe(400);
    expect(
      (
        await desk.call(
          'POST',
          `/rentals/${rental.orderId}/refund`,
          { amount: 10, reason: 'no version' },
          { 'idempotency-key': uuid() },
        )
      ).statusCode,
    ).toBe(428);
    expect(await refundsAtProvider(b, rental.orderId)).toEqual({ refunded: 120, keys: 1 });
  });

  it("support refunds up to the desk's limit; finance any amount up to what was charged", async () => {
    const r = await settledRental(b, 'desk-rider-000006');
    const over = await refund(desk, r.orderId, 260);
    expect(over.statusCode).toBe(403);
    expect(over.json<{ message: string }>().message).toContain('2.5');
    const res = await refund(consoles.get('financeA')!, r.orderId, 260);
    expect(res.statusCode, res.body).toBe(200);
    expect(await refundsAtProvider(b, r.orderId)).toEqual({ refunded: 260, keys: 1 });
    await ledgerBalanced(b.app);
  });

  it('two people refunding the same rental at once: one refund', async () => {
    const r = await settledRental(b, 'desk-rider-000003');
    const other = consoles.get('financeA')!;
    const [x, y] = await Promise.all([refund(consoles.get('adminA')!, r.orderId, 300), refund(other, r.orderId, 300)]);
    expect([x.statusCode, y.statusCode].sort()).toEqual([200, 409]);
    // The loser reads again: nothing is left to refund.
    expect((await refund(other, r.orderId, 300, { version: 1 })).statusCode).toBe(422);
    expect(await refundsAtProvider(b, r.orderId)).toEqual({ refunded: 300, keys: 1 });
    const { rows } = await b.db.query<{ n: number }>(
      `select count(*)::int as n from ledger_transfers where order_id = $1 and code = 'desk_refund'`,
      [r.orderId],
    );
    expect(rows[0]!.n).toBe(1);
    await ledgerBalanced(b.app);
  });

  it('the process dies after the provider refunded, before recording it: exactly one refund after the restart', async () => {
    const r = await settledRental(b, 'desk-rider-000004');
    const sandbox = b.app.powerly.sandbox;
    const real = sandbox.refund.bind(sandbox);
    let calls = 0;
    sandbox.refund = async (ref, amount, opts) => {
      calls++;
      await real(ref, amount, opts);
      if (calls === 1) throw new Error('process died');
    };
    try {
      const res = await refund(desk, r.orderId, 200);
      // The refund is committed (ledger, correction, job); the provider call's outcome is not recorded yet.
      expect(res.statusCode, res.body).toBe(200);
      expect(await refundsAtProvider(b, r.orderId)).toEqual({ refunded: 0, keys: 0 });
      // Another process takes the job over after the backoff: the provider's replay answers, recorded once.
      const second = await build({ shareDb: b, simulator: false });
      try {
        b.clock.advance(10 * MINUTE_MS);
        second.clock.advance(b.clock.now().getTime() - second.clock.now().getTime());
        await keepSignedIn(b);
        await waitFor(
          async () => (await second.app.powerly.jobs.runDue(), (await refundsAtProvider(b, r.orderId)).keys === 1),
          'refund recorded',
        );
        await second.app.powerly.jobs.runDue();
      } finally {
        await second.close();
      }
    } finally {
      sandbox.refund = real;
    }
    // This process called the provider once (then died); the other process's call was the provider's idempotent replay.
    expect(calls).toBe(1);
    expect(await refundsAtProvider(b, r.orderId)).toEqual({ refunded: 200, keys: 1 });
    const { rows } = await b.db.query<{ amount_refunded: string }>(
      `select i.amount_refunded::text from sandbox_intents i join payments p on p.provider_ref = i.id where p.order_id = $1 and p.status <> 'declined'`,
      [r.orderId],
    );
    expect(Number(rows[0]!.amount_refunded)).toBe(200);
    await ledgerBalanced(b.app);
  });

  it('a rental paid from the wallet is refunded to the wallet', async () => {
    // Shanghai's plan takes the deposit into the wallet (no card to refund to).
    await b.db.query(`update venues set agent_id = 'agent-a' where id = 'v-sh-jingan'`);
    const { orderId, token } = await settledRental(b, 'desk-rider-000005', 'PWL-SH-001', 1);
    const charged = (await desk.call('GET', `/rentals/${orderId}`)).json<{ money: { refundable: number } }>().money
      .refundable;
    expect(charged).toBeGreaterThan(0);
    const wallet = async () =>
      (await b.app.inject({ method: 'GET', url: `${API}/userInfo`, headers: { token } })).json().data;
    const before = (await wallet()).pbalance;
    const r = await refund(desk, orderId, charged);
    expect(r.json()).toMatchObject({ toCard: 0, toWallet: charged, refundable: 0 });
    expect((await wallet()).pbalance).toBeCloseTo(before + charged / 100, 5);
    await ledgerBalanced(b.app);
  });
});
