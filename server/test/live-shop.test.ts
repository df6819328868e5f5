// A venue's live stream (GET live/shop): the rider's venue page hears each change of what the venue's cabinets hold
// or can take back — a power bank rented out, a return slot another rider keeps (announced by its own trigger) — and
// reads the venue again; a stream needs a live ticket and a venue that exists.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LiveEvent } from '#contract/live.ts';
import { readEventStream } from '../bench/lib.ts';
import { build, cabinetsOnline, cardToken, touristToken, waitFor, type Built } from './helper.ts';

const API = '/cdb-app-api/v1/app';
const VNO = { shopId: 'v-vno-gedimino', cabinet: 'PWL-VNO-001' };
let b: Built;
let base = '';

beforeAll(async () => {
  b = await build();
  await cabinetsOnline(b, [VNO.cabinet]);
  base = await b.app.listen({ port: 0, host: '127.0.0.1' });
});
afterAll(async () => b?.close());

async function ticket(token: string): Promise<string> {
  return (await b.app.inject({ method: 'POST', url: `${API}/live/ticket`, headers: { token } })).json().data.ticket;
}
const cabinet = async (token: string) => {
  const d = (
    await b.app.inject({ method: 'GET', url: `${API}/cdb/shop/listnear/dtl?shopId=${VNO.shopId}`, headers: { token } })
  ).json().data;
  return d.cabinets.find((c: { cabinetID: string }) => c.cabinetID === VNO.cabinet) as {
    freeNum: number;
    returnNum: number;
  };
};

async function stream(t: string, shopId = VNO.shopId) {
  const ctrl = new AbortController();
  const res = await fetch(
    `${base}${API}/live/shop?ticket=${encodeURIComponent(t)}&shopId=${encodeURIComponent(shopId)}`,
    {
      headers: { accept: 'text/event-stream' },
      signal: ctrl.signal,
    },
  );
  const events: LiveEvent[] = [];
  if (res.ok) readEventStream<LiveEvent>(res, (e) => events.push(e));
  return { res, events, close: () => ctrl.abort() };
}

describe("a venue's live stream", () => {
  it('refuses without a valid ticket (401) and for an unknown venue (404)', async () => {
    expect((await stream('x'.repeat(32))).res.status).toBe(401);
    const token = await touristToken(b.app);
    const unknown = await stream(await ticket(token), 'v-nowhere');
    expect(unknown.res.status).toBe(404);
  });

  it('says "shop" when a power bank is rented out and when another rider keeps a return slot', async () => {
    const watcher = await touristToken(b.app);
    const s = await stream(await ticket(watcher));
    expect(s.res.status).toBe(200);
    await waitFor(async () => s.events.length > 0, 'first event');
    expect(s.events[0]).toEqual({ kind: 'resync' });
    const before = await cabinet(watcher);

    const rider = await touristToken(b.app);
    const rent = await b.app.inject({
      method: 'POST',
      url: `${API}/cdb/cabinet/useDepositToRent`,
      headers: { token: rider },
      payload: { qrcode: VNO.cabinet, stripeToken: await cardToken(b.app), paymentId: 'card-sandbox' },
    });
    expect(rent.json().code, rent.body).toBe(0);
    await waitFor(async () => (await cabinet(watcher)).freeNum === before.freeNum - 1, 'the power bank out');
    await waitFor(
      async () => s.events.some((e) => e.kind === 'shop' && e.shopId === VNO.shopId),
      'shop event after the rental',
    );
    const seen = s.events.length;

    // The rider keeps a return slot there: one slot fewer for everyone else, the watcher's page hears it.
    const kept = await b.app.inject({
      method: 'POST',
      url: `${API}/cdb/return/reserve`,
      headers: { token: rider },
      payload: { cabinetId: VNO.cabinet },
    });
    expect(kept.json().code, kept.body).toBe(0);
    expect((await cabinet(watcher)).returnNum).toBe(before.returnNum);
    await waitFor(async () => s.events.slice(seen).some((e) => e.kind === 'shop'), 'shop event after the reservation');
    s.close();
  });
});
