// A day of a rental on the test clock: each reminder at its time, once, on the rider's channels (Web Push through a
// local push service that checks VAPID and decrypts, e-mail, the live stream), in the rider's language and time zone,
// also with the server killed and started again in between; the receipt at the return; a kind turned off is not
// sent; quiet hours move a reminder before them.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatMoney } from '#core/money.ts';
import { formatDuration } from '#core/duration.ts';
import { noticeSteps, beforeQuiet, DEFAULT_STEP_SETTINGS } from '../src/modules/notify/notice-steps.ts';
import { DEFAULT_PLAN } from '#core/pricing.ts';
import { build, cabinetsOnline, cardToken, touristToken, waitFor, type Built } from './helper.ts';
import { PushEndpoint } from './providers/push-endpoint.ts';
import type { MailMessage, Mailer } from '../src/modules/notify/mailer.ts';

const API = '/cdb-app-api/v1/app';
const MIN = 60_000;
const pg = Boolean(process.env.DATABASE_URL);
let push: PushEndpoint;
let b: Built;
const mail: MailMessage[] = [];
const mailer: Mailer = { kind: 'outbox', send: async (m) => (mail.push(m), { messageId: `<m${mail.length}@test>` }) };
const dataDir = pg ? undefined : mkdtempSync(join(tmpdir(), 'powerly-notices-'));
const schema = `test_notices_${Date.now().toString(36)}`;
const server = () =>
  build({ pushAgent: push.agent, mailer, dataDir, schema: pg ? schema : undefined, keepSchema: true });

beforeAll(async () => {
  push = await new PushEndpoint().start();
  b = await server();
  await cabinetsOnline(b, ['PWL-VNO-001', 'PWL-LIS-001']);
});
afterAll(async () => {
  await b?.close();
  await push?.stop();
});

const call = (method: 'GET' | 'POST', url: string, token: string, payload?: unknown) =>
  b.app.inject({ method, url: `${API}/${url}`, headers: { token }, payload: payload as Record<string, unknown> });

const VILNIUS = 'Europe/Vilnius';
const when = (d: Date) =>
  new Intl.DateTimeFormat('lt-LT', { dateStyle: 'medium', timeStyle: 'short', timeZone: VILNIUS }).format(d);
const eur = (minor: number) => formatMoney(minor, 'EUR', 'lt-LT');

/** A card rental at Vilnius (€1 per started hour after 10 free minutes, €5 a day) whose power bank has popped. */
async function rentedInVilnius(token: string): Promise<string> {
  const rent = await call('POST', 'cdb/cabinet/useDepositToRent', token, {
    qrcode: 'PWL-VNO-001',
    stripeToken: await cardToken(b.app),
    paymentId: 'card-sandbox',
  });
  const orderId: string = rent.json().data.outTradeNo;
  await waitFor(
    async () => (await call('POST', `cdb/mine/order/check/${orderId}/YJ`, token)).json().code === 0,
    'popped',
  );
  return orderId;
}

async function notices(orderId: string) {
  const { rows } = await b.db.query<{ step: string; state: string; due_at: Date; event_at: Date; amount: number }>(
    'select step, state, due_at, event_at, amount from rental_notices where order_id = $1 order by due_at, id',
    [orderId],
  );
  return rows;
}

/** Moves the clock to `at` and runs what is due; returns the push messages of the subscription received since. */
async function until(at: Date, endpoint: string) {
  const before = push.of(endpoint).length;
  b.clock.advance(at.getTime() - b.clock.now().getTime());
  await b.app.powerly.jobs.runDue();
  return push
    .of(endpoint)
    .slice(before)
    .map((m) => ({ ...m, data: JSON.parse(m.payload) as { title: string; body: string; tag: string; path: string } }));
}

describe('receipts and reminders of a rental', () => {
  it('a day: each reminder at its time, once, in Lithuanian and Vilnius time, through a restart; then the receipt', async () => {
    const token = await touristToken(b.app);
    const prefs = {
      channels: ['push', 'email', 'host'],
      kindsOff: [],
      email: 'rider@example.lt',
      phone: null,
      locale: 'lt-LT',
      timeZone: VILNIUS,
      quietFrom: null,
      quietTo: null,
    };
    expect((await call('POST', 'cdb/notify/prefs', token, prefs)).json()).toMatchObject({ code: 0, data: prefs });
    const key = (await call('GET', 'cdb/notify/push/key', token)).json().data.publicKey as string;
    expect(Buffer.from(key, 'base64url')).toHaveLength(65);
    const sub = push.subscribe();
    expect((await call('POST', 'cdb/notify/push/subscribe', token, sub)).json().code).toBe(0);

    // Vilnius: €1 per started hour after 10 free minutes, capped at €5 a day, bought out after 3 days.
    const orderId = await rentedInVilnius(token);
    const t0 = new Date((await call('GET', `cdb/mine/order/detail?orderId=${orderId}`, token)).json().data.pBorrowtime);
    const at = (m: number) => new Date(t0.getTime() + m * MIN);

    // The steps, scheduled when the power bank came out: 5 minutes before each charge step, 24 h and 1 h before the buy-out.
    expect(
      (await notices(orderId)).map((n) => [n.step, new Date(n.due_at).getTime() - t0.getTime(), Number(n.amount)]),
    ).toEqual(
      [
        ['free_end', 5 * MIN, 100],
        ['cap:1', 235 * MIN, 500],
        ['day:2', 1435 * MIN, 100],
        ['cap:2', 1675 * MIN, 500],
        ['buyout:1440', 2880 * MIN, 2500],
        ['day:3', 2875 * MIN, 100],
        ['cap:3', 3115 * MIN, 500],
        ['buyout:60', 4260 * MIN, 2500],
      ].sort((x, y) => (x[1] as number) - (y[1] as number)),
    );

    // Not before its time.
    expect(await until(at(4), sub.endpoint)).toEqual([]);
    const free = await until(at(5), sub.endpoint);
    expect(free.map((m) => m.data)).toEqual([
      {
        title: 'Nemokamos minutės netrukus baigsis',
        body: `Nemokamos minutės baigiasi ${when(at(10))}. Nuo tada kiekvienas pradėtas laikotarpis kainuoja ${eur(100)}.`,
        tag: `${orderId}:free_end`,
        path: `/orderDetail?orderId=${orderId}`,
        kind: 'free_end',
      },
    ]);
    expect(free[0]).toMatchObject({
      topic: expect.stringMatching(/^n\d+$/),
      urgency: 'high',
      claims: { aud: push.origin, sub: 'mailto:receipts@powerly.local' },
    });
    expect(free[0]!.vapidKey).toBe(key);
    expect(mail.filter((m) => m.to === 'rider@example.lt').map((m) => m.subject)).toEqual([
      'Nemokamos minutės netrukus baigsis',
    ]);
    // Run again: nothing twice.
    expect(await until(at(6), sub.endpoint)).toEqual([]);

    // The server is killed and started again; the next reminders still come, each once.
    await b.close();
    const resumeAt = at(60);
    b = await server();
    b.clock.advance(resumeAt.getTime() - b.clock.now().getTime());
    await cabinetsOnline(b, ['PWL-VNO-001', 'PWL-LIS-001']);
    expect(await until(at(234), sub.endpoint)).toEqual([]);
    const cap = await until(at(235), sub.endpoint);
    expect(cap.map((m) => m.data.body)).toEqual([
      `${when(at(240))} šios dienos nuoma pasieks dienos ribą – ${eur(500)}; likusi dienos dalis daugiau nekainuos.`,
    ]);
    const day2 = await until(at(1435), sub.endpoint);
    expect(day2.map((m) => m.data.tag)).toEqual([`${orderId}:day:2`]);
    expect(await until(at(1436), sub.endpoint)).toEqual([]);
    expect((await notices(orderId)).filter((n) => n.state === 'sent').map((n) => n.step)).toEqual([
      'free_end',
      'cap:1',
      'day:2',
    ]);

    // Returned in Lisbon a day and a half in: the receipt is due at once (the job poller's next pass sends it) and
    // the reminders left are cancelled.
    b.clock.advance(at(1500).getTime() - b.clock.now().getTime());
    const powerbankId = (
      await b.db.query<{ powerbank_id: string }>('select powerbank_id from orders where id = $1', [orderId])
    ).rows[0]!.powerbank_id;
    await b.app.inject({ method: 'POST', url: '/demo-api/cabinets/PWL-LIS-001/return', payload: { powerbankId } });
    const receiptRow = await waitFor(
      async () => (await notices(orderId)).find((n) => n.step === 'receipt'),
      'receipt scheduled',
    );
    expect(new Date(receiptRow.due_at).getTime()).toBe(b.clock.now().getTime());
    const receipt = await until(b.clock.now(), sub.endpoint);
    const {
      rows: [o],
    } = await b.db.query<{ fee: number; returned_at: Date }>('select fee, returned_at from orders where id = $1', [
      orderId,
    ]);
    expect(Number(o!.fee)).toBe(600); // the first day capped at €5, then one started hour of the second
    expect(receipt.map((m) => m.data)).toEqual([
      expect.objectContaining({
        title: 'Išorinė baterija grąžinta',
        kind: 'receipt',
        tag: `${orderId}:receipt`,
        body: `${eur(600)} už ${formatDuration(1500 * MIN, 'lt-LT')}. Grąžinta į Time Out Market Lisboa ${when(new Date(o!.returned_at))}.`,
      }),
    ]);
    expect((await notices(orderId)).filter((n) => n.state === 'scheduled')).toEqual([]);
    expect(await until(at(4400), sub.endpoint)).toEqual([]);
  });

  it('a kind turned off is not sent; a gone subscription is dropped; bad settings are a 400', async () => {
    const token = await touristToken(b.app);
    const prefs = {
      channels: ['push'],
      kindsOff: ['free_end'],
      email: null,
      phone: null,
      locale: 'en-US',
      timeZone: 'America/New_York',
      quietFrom: null,
      quietTo: null,
    };
    expect((await call('POST', 'cdb/notify/prefs', token, prefs)).statusCode).toBe(200);
    for (const bad of [
      { ...prefs, timeZone: 'Mars/Olympus' },
      { ...prefs, channels: ['email'] },
      { ...prefs, quietFrom: 60 },
      { ...prefs, channels: ['fax'] },
    ]) {
      expect((await call('POST', 'cdb/notify/prefs', token, bad)).statusCode).toBe(400);
    }
    expect(
      (
        await call('POST', 'cdb/notify/push/subscribe', token, {
          endpoint: 'http://insecure.example/push',
          keys: { p256dh: 'x'.repeat(30), auth: 'y'.repeat(10) },
        })
      ).statusCode,
    ).toBe(400);
    const sub = push.subscribe();
    await call('POST', 'cdb/notify/push/subscribe', token, sub);
    const orderId = await rentedInVilnius(token);
    const start = b.clock.now();
    expect(await until(new Date(start.getTime() + 6 * MIN), sub.endpoint)).toEqual([]);
    expect((await notices(orderId)).find((n) => n.step === 'free_end')?.state).toBe('skipped');
    push.expire(sub.endpoint);
    await until(new Date(start.getTime() + 236 * MIN), sub.endpoint);
    const { rows } = await b.db.query('select gone_at from push_subscriptions where endpoint = $1', [sub.endpoint]);
    expect((rows[0] as { gone_at: Date | null }).gone_at).not.toBeNull();
    await b.app.inject({ method: 'POST', url: `${API}/cdb/order/buyOrder`, headers: { token }, payload: { orderId } });
  });

  it("a reminder's job names it by order and step and sends it only as its own; one queued by notice id still sends", async () => {
    const token = await touristToken(b.app);
    const orderId = await rentedInVilnius(token);
    const stored = async () =>
      (
        await b.db.query<{ id: string; step: string; state: string; job_id: string }>(
          'select id, step, state, job_id from rental_notices where order_id = $1 order by due_at, id',
          [orderId],
        )
      ).rows;
    const [first, second] = await stored();
    const { rows: jobs } = await b.db.query<{ payload: unknown }>('select payload from jobs where id = $1', [
      first!.job_id,
    ]);
    expect(jobs).toEqual([{ payload: { orderId, step: first!.step } }]);
    // A job for a step whose notice has another job (a step scheduled twice) does nothing; a job queued by notice id
    // (as jobs were before) sends its notice.
    const now = b.clock.now();
    await b.app.powerly.jobs.enqueue('notify.rental-notice', { orderId, step: first!.step }, now);
    await b.app.powerly.jobs.enqueue('notify.rental-notice', { noticeId: Number(second!.id) }, now);
    await b.app.powerly.jobs.runDue();
    const after = new Map((await stored()).map((n) => [n.step, n.state]));
    expect(after.get(first!.step)).toBe('scheduled');
    expect(after.get(second!.step)).toBe('sent');
  });
});

describe('the steps and quiet hours (pure)', () => {
  it('a reminder due in quiet hours moves to just before them, never before the start', () => {
    const q = { from: 22 * 60, to: 7 * 60, timeZone: 'UTC' };
    const start = new Date('2026-11-21T20:00:00Z');
    expect(beforeQuiet(new Date('2026-11-21T23:30:00Z'), q, start).toISOString()).toBe('2026-11-21T21:59:00.000Z');
    expect(beforeQuiet(new Date('2026-11-22T06:30:00Z'), q, start).toISOString()).toBe('2026-11-21T21:59:00.000Z');
    expect(beforeQuiet(new Date('2026-11-21T21:00:00Z'), q, start).toISOString()).toBe('2026-11-21T21:00:00.000Z');
    expect(beforeQuiet(new Date('2026-11-21T23:30:00Z'), q, new Date('2026-11-21T22:30:00Z')).toISOString()).toBe(
      '2026-11-21T23:30:00.000Z',
    );
  });

  it('the default plan: each day capped, the buy-out 24 h and 1 h before', () => {
    const steps = noticeSteps(DEFAULT_PLAN, new Date('2026-11-21T10:00:00Z'), DEFAULT_STEP_SETTINGS);
    expect(steps.map((s) => s.step)).toEqual(['cap:1', 'day:2', 'buyout:1440', 'cap:2', 'buyout:60']);
    expect(steps.find((s) => s.step === 'cap:1')!.eventAt.toISOString()).toBe('2026-11-21T12:30:00.000Z'); // 6th half hour reaches €6
  });
});
