// The support desk's searches beyond rentals: riders, payments and Wi-Fi packages by the rider's phone, e-mail and
// card last 4 (and each one's own fields), cursor pages, the streamed CSV exports, the role × scope table (another
// agent's objects are not listed, and a package outside the scope is a 404), and a package's timeline.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build, cabinetsOnline, touristToken, type Built } from './helper.ts';
import { accessTable, callerConsoles, type Caller } from './ops/callers.ts';
import type { OpsConsole } from './ops/console.ts';
import { boughtPackage, settledRental } from './ops/orders.ts';

type Page<T> = { items: T[]; next?: string };

describe("the support desk's searches", () => {
  let b: Built;
  let consoles = new Map<Caller, OpsConsole>();
  let rental: Awaited<ReturnType<typeof settledRental>>;
  let pkg: Awaited<ReturnType<typeof boughtPackage>>;
  let other: string;
  const as = (c: Caller) => consoles.get(c)!;
  const items = async <T>(c: Caller, url: string) => {
    const res = await as(c).call('GET', url);
    expect(res.statusCode, res.body).toBe(200);
    return res.json<Page<T>>().items;
  };

  beforeAll(async () => {
    b = await build();
    consoles = await callerConsoles(b);
    await b.db.query(`update venues set agent_id = 'agent-a' where id = 'v-vno-gedimino'`);
    await cabinetsOnline(b, ['PWL-LIS-001']);
    rental = await settledRental(b, 'search-rider-00001');
    await b.db.query(`update users set mobile = '+370 612 34567', email = 'Rider@Example.com' where id = $1`, [
      rental.userId,
    ]);
    // The same rider buys a Wi-Fi package (no cabinet: in agent A's scope as its customer) with another card.
    pkg = await boughtPackage(b, 'search-rider-00001', '5555 5555 5555 4444', 'agent-a');
    expect(pkg.userId).toBe(rental.userId);
    other = await touristToken(b.app, 'search-rider-00002');
  });
  afterAll(() => b.close());

  type Op = 'riders' | 'riders.csv' | 'payments' | 'payments.csv' | 'packages' | 'packages.csv' | 'package of A';
  //             none platformOwner adminA adminB supportA financeA technicianA readOnlyA partnerA
  const TABLE: Record<Op, number[]> = {
    riders: [401, 200, 200, 200, 200, 200, 403, 200, 403],
    'riders.csv': [401, 200, 200, 200, 200, 200, 403, 200, 403],
    payments: [401, 200, 200, 200, 200, 200, 403, 200, 403],
    'payments.csv': [401, 200, 200, 200, 200, 200, 403, 200, 403],
    packages: [401, 200, 200, 200, 200, 200, 403, 200, 403],
    'packages.csv': [401, 200, 200, 200, 200, 200, 403, 200, 403],
    'package of A': [401, 200, 200, 404, 200, 200, 403, 200, 403],
  };
  accessTable(TABLE, () => consoles, {
    riders: (c) => c.call('GET', '/riders'),
    'riders.csv': (c) => c.call('GET', '/riders.csv'),
    payments: (c) => c.call('GET', '/payments'),
    'payments.csv': (c) => c.call('GET', '/payments.csv'),
    packages: (c) => c.call('GET', '/mifi/packages'),
    'packages.csv': (c) => c.call('GET', '/mifi/packages.csv'),
    'package of A': (c) => c.call('GET', `/mifi/packages/${pkg.packageId}`),
  });

  it("finds riders by phone (any formatting), e-mail (any case), card last 4 and state, inside the caller's agents", async () => {
    type R = { id: string; mobile?: string; blocked: boolean; agents: string[] };
    const ids = async (c: Caller, q: string) => (await items<R>(c, `/riders?${q}`)).map((r) => r.id);
    const rider = [String(rental.userId)];
    expect(await ids('supportA', 'phone=370-612-34567')).toEqual(rider);
    expect(await ids('supportA', 'email=RIDER%40example.COM')).toEqual(rider);
    expect(await ids('supportA', 'q=%2B37061234567')).toEqual(rider);
    expect(await ids('supportA', 'cardLast4=4444')).toEqual(rider);
    expect(await ids('supportA', 'cardLast4=4444&phone=370-612-34567&state=active')).toEqual(rider);
    expect(await ids('supportA', 'cardLast4=1111')).toEqual([]);
    expect(await ids('supportA', 'state=blocked')).toEqual([]);
    expect((await items<R>('supportA', `/riders?riderId=${rental.userId}`))[0]).toMatchObject({
      mobile: '+370 612 34567',
      blocked: false,
      agents: expect.arrayContaining(['agent-a']) as unknown,
    });
    // A rider who never was agent A's customer is not listed to A; the platform sees every rider.
    const otherId = (
      await b.db.query<{ id: string }>(`select id::text from users where device_code = 'search-rider-00002'`)
    ).rows[0]!.id;
    expect(other).toBeTruthy();
    expect(await ids('supportA', `riderId=${otherId}`)).toEqual([]);
    expect(await ids('platformOwner', `riderId=${otherId}`)).toEqual([otherId]);
    expect(await ids('adminB', 'phone=370-612-34567')).toEqual([]);
    expect((await as('adminB').call('GET', `/riders/${rental.userId}`)).statusCode).toBe(404);
    expect((await as('supportA').call('GET', `/riders/${rental.userId}`)).statusCode).toBe(200);
    expect((await as('supportA').call('GET', '/riders?cardLast4=12')).statusCode).toBe(400);
    expect((await as('supportA').call('GET', '/riders?cursor=bm90LWEtY3Vyc29y')).statusCode).toBe(400);
  });

  it("finds payments by the rider, the card, purpose, state and the rental's cabinet; pages by cursor", async () => {
    type P = {
      id: string;
      purpose: string;
      cardLast4?: string;
      orderId?: string;
      riderPhone?: string;
      agentId?: string;
    };
    const found = (q: string, c: Caller = 'supportA') => items<P>(c, `/payments?${q}`);
    const ofRental = await found(`q=${rental.orderId}`);
    expect(ofRental.length).toBeGreaterThan(0);
    expect(
      ofRental.every(
        (p) =>
          p.orderId === rental.orderId &&
          p.cardLast4 === '4242' &&
          p.riderPhone === '+370 612 34567' &&
          p.agentId === 'agent-a',
      ),
    ).toBe(true);
    const ofPackage = await found('cardLast4=4444');
    expect(ofPackage.map((p) => [p.orderId, p.purpose])).toEqual([[pkg.orderId, 'mifi']]);
    expect((await found('email=rider%40example.com&purpose=mifi')).map((p) => p.orderId)).toEqual([pkg.orderId]);
    expect((await found(`q=${pkg.orderId}`)).map((p) => p.id)).toEqual(ofPackage.map((p) => p.id));
    expect((await found('cabinetId=PWL-VNO-001')).map((p) => p.orderId)).toContain(rental.orderId);
    expect(await found('cabinetId=PWL-VNO-001&cardLast4=4444')).toEqual([]);
    expect(await found('state=no_such_state')).toEqual([]);
    // Another agent sees neither; the platform both.
    expect(await found('', 'adminB')).toEqual([]);
    expect((await found('', 'platformOwner')).length).toBeGreaterThanOrEqual(ofRental.length + 1);
    const seen: string[] = [];
    let url = '/payments?limit=1';
    for (;;) {
      const page = (await as('supportA').call('GET', url)).json<Page<P>>();
      seen.push(...page.items.map((p) => p.id));
      if (!page.next) break;
      url = `/payments?limit=1&cursor=${page.next}`;
    }
    expect(seen.length).toBe(ofRental.length + ofPackage.length);
    expect(new Set(seen).size).toBe(seen.length);
  });

  it("finds Wi-Fi packages by the rider's phone, e-mail, card, the order and the state; another agent does not", async () => {
    type K = { id: string; orderId: string; cardLast4?: string; riderEmail?: string; state: number };
    const ids = async (q: string, c: Caller = 'supportA') =>
      (await items<K>(c, `/mifi/packages?${q}`)).map((k) => k.id);
    expect(await ids('phone=37061234567')).toEqual([pkg.packageId]);
    expect(await ids('email=RIDER%40example.com')).toEqual([pkg.packageId]);
    expect(await ids('cardLast4=4444')).toEqual([pkg.packageId]);
    expect(await ids('cardLast4=4242')).toEqual([]);
    expect(await ids(`q=${pkg.orderId}`)).toEqual([pkg.packageId]);
    expect(await ids('state=88')).toEqual([]);
    expect(await ids('', 'adminB')).toEqual([]);
    expect((await items<K>('supportA', '/mifi/packages'))[0]).toMatchObject({
      id: pkg.packageId,
      cardLast4: '4444',
      riderEmail: 'Rider@Example.com',
    });
  });

  it("exports each search as CSV, with the caller's objects only", async () => {
    const csv = async (c: Caller, url: string) => {
      const res = await as(c).call('GET', url);
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
      return res.body.trim().split('\r\n');
    };
    const riders = await csv('supportA', '/riders.csv?phone=37061234567');
    expect(riders[0]).toBe('id,created_at,kind,name,email,mobile,blocked,agents');
    expect(riders.slice(1)).toEqual([
      expect.stringMatching(
        new RegExp(`^${rental.userId},.*,Rider@Example.com,'\\+370 612 34567,false,agent-a`),
      ) as unknown,
    ]);
    const payments = await csv('supportA', '/payments.csv?cardLast4=4444');
    expect(payments[0]).toBe(
      'id,created_at,updated_at,provider,provider_ref,purpose,state,amount,captured,refunded,currency,card_brand,card_last4,order_id,rider_id,rider_phone,rider_email,agent_id,cabinet_id',
    );
    expect(payments).toHaveLength(2);
    expect(payments[1]).toContain(`,mifi,`);
    expect(payments[1]).toContain(`,4444,${pkg.orderId},${pkg.userId},`);
    const packages = await csv('supportA', '/mifi/packages.csv');
    expect(packages[0]!.split(',').slice(0, 4)).toEqual(['id', 'created_at', 'order_id', 'state']);
    expect(packages.slice(1).map((l) => l.split(',')[0])).toEqual([pkg.packageId]);
    for (const url of ['/riders.csv', '/payments.csv', '/mifi/packages.csv'])
      expect(await csv('adminB', url)).toHaveLength(1);
  });

  it("shows a package's timeline: its steps, payments and ledger entries in order", async () => {
    const res = await as('supportA').call('GET', `/mifi/packages/${pkg.packageId}`);
    expect(res.statusCode, res.body).toBe(200);
    const t = res.json<{ package: { id: string }; entries: Array<{ at: string; what: string; source: string }> }>();
    expect(t.package.id).toBe(pkg.packageId);
    const whats = t.entries.map((e) => e.what);
    for (const w of ['package.created', 'package.paid', 'payment.captured']) expect(whats, w).toContain(w);
    expect(t.entries.some((e) => e.source === 'ledger')).toBe(true);
    expect(t.entries.map((e) => e.at)).toEqual([...t.entries.map((e) => e.at)].sort());
    expect((await as('supportA').call('GET', '/mifi/packages/no-such-package')).statusCode).toBe(404);
  });
});
