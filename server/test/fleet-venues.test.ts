// The fleet's operations for agents, venues and price plans (server/src/fleet.ts): every refused field named,
// a stale version refused with 409, plans per venue or per agent from an effective time, a running rental
// keeping the price it started with, and the fee preview computed by the one fee rule.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MINUTE_MS, rentalFee } from '#core/pricing.ts';
import type { Fleet } from '../src/fleet.ts';
import { AppError } from '../src/lib/errors.ts';
import { FieldErrors } from '../src/lib/validate.ts';
import { uuid } from '../src/lib/ids.ts';
import {
  build,
  cabinetsOnline,
  cardToken,
  planFixture,
  touristToken,
  venueFixture,
  waitFor,
  type Built,
} from './helper.ts';

const API = '/cdb-app-api/v1/app';
let b: Built;
let fleet: Fleet;
beforeAll(async () => {
  b = await build();
  fleet = b.app.powerly.fleet;
}, 60_000);
afterAll(async () => b?.close());

/** The fields a call refused, as [field, code] pairs. */
async function refused(p: Promise<unknown>): Promise<[string, string][]> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(FieldErrors);
  return (err as FieldErrors).problems.map((x) => [x.field, x.code]);
}
async function status(p: Promise<unknown>) {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AppError);
  return (err as AppError).code;
}

describe('agents', () => {
  it('are validated field by field (exact origins), unique, and updated against the version read', async () => {
    expect(
      await refused(fleet.agents.create({ id: 'bad id', name: '', currencies: ['eur'], origins: [], extra: 1 })),
    ).toEqual(
      expect.arrayContaining([
        ['id', 'invalid'],
        ['name', 'range'],
        ['currencies.0', 'invalid'],
        ['extra', 'unknown'],
      ]),
    );
    expect(
      await refused(
        fleet.agents.create({
          id: 'ag-o',
          name: 'A',
          currencies: [],
          origins: ['https://ok.example', 'https://x.example/path', '*'],
        }),
      ),
    ).toEqual([
      ['origins.1', 'origin'],
      ['origins.2', 'origin'],
    ]);
    const a = await fleet.agents.create({
      id: 'ag-1',
      name: 'Agent',
      country: 'LT',
      currencies: ['EUR'],
      origins: ['https://venue.example'],
    });
    expect(a).toMatchObject({ id: 'ag-1', country: 'LT', currencies: ['EUR'], version: 1 });
    expect(await refused(fleet.agents.create({ id: 'ag-1', name: 'Again', currencies: [], origins: [] }))).toEqual([
      ['id', 'duplicate'],
    ]);
    expect(await fleet.agents.update('ag-1', { version: 1, name: 'Agent 1' })).toMatchObject({
      name: 'Agent 1',
      version: 2,
    });
    expect(await status(fleet.agents.update('ag-1', { version: 1, name: 'Lost update' }))).toBe(409);
    // The embed reads the same row: its origins frame the widget.
    expect((await b.app.powerly.embed.agent('ag-1'))?.origins).toEqual(['https://venue.example']);
  });
});

describe('venues', () => {
  it('name every refused field: position, overlapping hours, an impossible exception date, an unknown agent', async () => {
    const hours = venueFixture('x', 0, 0).openingHours;
    const bad = {
      ...hours,
      weekly: {
        ...hours.weekly,
        mon: [
          { open: '09:00', close: '13:00' },
          { open: '12:00', close: '18:00' },
        ],
      },
      exceptions: [{ date: '2026-02-30', ranges: [] }],
    };
    expect(await refused(fleet.venues.create(venueFixture('v-bad', 91, 0, { openingHours: bad })))).toEqual([
      ['lat', 'range'],
    ]);
    expect(await refused(fleet.venues.create(venueFixture('v-bad', 10, 0, { openingHours: bad })))).toEqual([
      ['openingHours.weekly.mon.1', 'order'],
      ['openingHours.exceptions.0.date', 'invalid'],
    ]);
    expect(await refused(fleet.venues.create(venueFixture('v-bad', 10, 0, { agentId: 'nobody' })))).toEqual([
      ['agentId', 'notFound'],
    ]);
  });

  it('a draft is not on the map until it goes live; an update names the version it read (stale: 409)', async () => {
    const week = {
      mon: [{ open: '08:00', close: '20:00' }],
      tue: [{ open: '08:00', close: '20:00' }],
      wed: [{ open: '08:00', close: '20:00' }],
      thu: [{ open: '08:00', close: '20:00' }],
      fri: [{ open: '08:00', close: '20:00' }],
      sat: [{ open: '10:00', close: '02:00' }],
      sun: [],
    };
    const v = await fleet.venues.create(
      venueFixture('v-fleet-1', 54.7, 25.3, {
        name: 'Fleet Draft Hall',
        names: { 'lt-LT': 'Juodraščio salė' },
        state: 'draft',
        contacts: { phone: '+370 600 00000' },
        openingHours: { weekly: week, exceptions: [{ date: '2026-12-25', ranges: [] }] },
      }),
    );
    expect(v).toMatchObject({ state: 'draft', version: 1, hours: 'Mon-Fri 08:00-20:00, Sat 10:00-02:00, Sun closed' });
    const search = async () =>
      (await b.app.inject({ method: 'GET', url: `${API}/cdb/shop/search?q=Fleet%20Draft` })).json().data as unknown[];
    expect(await search()).toEqual([]);
    const live = await fleet.venues.update('v-fleet-1', { version: 1, state: 'live' });
    expect(live).toMatchObject({ state: 'live', version: 2, names: { 'lt-LT': 'Juodraščio salė' } });
    expect(await search()).toHaveLength(1);
    expect(await status(fleet.venues.update('v-fleet-1', { version: 1, state: 'closed' }))).toBe(409);
    expect((await fleet.venues.get('v-fleet-1')).state).toBe('live');
  });
});

describe('price plans', () => {
  it("are validated: one owner, tiers in order, the venue's currency, an agent's currencies", async () => {
    expect(await refused(fleet.plans.create(planFixture({ type: 'tiered', tiers: [] })))).toEqual([
      ['venueId', 'required'],
      ['tiers', 'required'],
    ]);
    expect(
      await refused(
        fleet.plans.create(
          planFixture({
            venueId: 'v-lis-timeout',
            type: 'tiered',
            tiers: [
              { startMinute: 0, endMinute: 60, totalFee: 100 },
              { startMinute: 30, endMinute: 90, totalFee: 200 },
            ],
          }),
        ),
      ),
    ).toEqual([['tiers.1', 'order']]);
    expect(await refused(fleet.plans.create(planFixture({ venueId: 'v-lis-timeout', currency: 'USD' })))).toEqual([
      ['currency', 'currency'],
    ]);
    expect(await refused(fleet.plans.create(planFixture({ venueId: 'v-nowhere' })))).toEqual([['venueId', 'notFound']]);
    expect(await refused(fleet.plans.create(planFixture({ agentId: 'ag-1', currency: 'USD' })))).toEqual([
      ['currency', 'currency'],
    ]);
  });

  it("an agent's plan prices its venues in that currency until the venue has its own", async () => {
    await fleet.agents.create({ id: 'ag-plan', name: 'Plan agent', currencies: ['EUR'], origins: [] });
    await fleet.venues.create(venueFixture('v-agent', 40, -8, { agentId: 'ag-plan' }));
    await fleet.cabinets.register({ id: 'PWL-AG-001', slots: 4, venueId: 'v-agent' });
    const price = async () => (await b.app.powerly.rentals.resolveCabinet('PWL-AG-001')).priced.plan.unitPrice;
    await expect(price()).rejects.toThrow(); // no plan yet: no price, no rent
    await fleet.plans.create(planFixture({ agentId: 'ag-plan', currency: 'EUR', unitPrice: 120 }));
    expect(await price()).toBe(120);
    await fleet.plans.create(planFixture({ venueId: 'v-agent', unitPrice: 90 }));
    expect(await price()).toBe(90);
  });

  it('a new plan charges from its effective time; a running rental keeps the plan it started with', async () => {
    const token = await touristToken(b.app, 'fleet-plan-device-01');
    await cabinetsOnline(b, ['PWL-LIS-001']);
    const rent = await b.app.inject({
      method: 'POST',
      url: `${API}/cdb/cabinet/useDepositToRent`,
      headers: { token },
      payload: { qrcode: 'PWL-LIS-001', stripeToken: await cardToken(b.app), paymentId: 'card-sandbox' },
    });
    expect(rent.json().code, rent.body).toBe(0);
    const orderId: string = rent.json().data.outTradeNo;
    const detail = async () =>
      (
        await b.app.inject({
          method: 'GET',
          url: `${API}/cdb/mine/order/detail?orderId=${orderId}`,
          headers: { token },
        })
      ).json().data;
    const d = await waitFor(async () => ((await detail()).pZujie === 1 ? detail() : null), 'popped');
    const borrowedAt = Date.parse(d.pBorrowtime);

    // EUR 10 per 30 minutes from ten minutes on (Lisbon's plan is EUR 1.50 per 30 minutes, 5 free).
    const from = new Date(b.clock.now().getTime() + 10 * MINUTE_MS).toISOString();
    const plan = await fleet.plans.create(
      planFixture({ venueId: 'v-lis-timeout', unitPrice: 1000, dailyCap: 5000, deposit: 3000, effectiveFrom: from }),
    );
    const price = async () => (await b.app.powerly.rentals.resolveCabinet('PWL-LIS-001')).priced.plan.unitPrice;
    expect(await price()).toBe(150);
    b.clock.advance(15 * MINUTE_MS);
    expect(await price()).toBe(1000);
    // A plan in effect is never rewritten.
    expect(await status(fleet.plans.update(plan.id, { unitPrice: 1 }))).toBe(409);

    b.clock.advance(25 * MINUTE_MS);
    await b.app.powerly.cabinets.event('PWL-VNO-001', {
      v: 1,
      id: uuid(),
      ts: new Date(borrowedAt + 40 * MINUTE_MS).toISOString(),
      type: 'returned',
      slot: 6,
      powerbankId: d.pPowerbankId,
    } as never);
    const { rows } = await b.db.query<{ fee: string }>('select fee from orders where id = $1', [orderId]);
    expect(Number(rows[0]!.fee)).toBe(300); // ceil(40 / 30) × EUR 1.50, the plan it started with

    // The preview is the fee rule over the saved plan.
    const preview = await fleet.plans.preview(plan.id, { minutes: [0, 40, 24 * 60] });
    expect(preview.fees).toEqual([
      { minutes: 0, fee: 0 },
      { minutes: 40, fee: 2000 },
      { minutes: 1440, fee: 3000 },
    ]);
    expect(preview.fees[1]!.fee).toBe(
      rentalFee(
        {
          kind: 'unit',
          currency: 'EUR',
          unitPrice: 1000,
          unitMinutes: 30,
          freeMinutes: 0,
          dailyCap: 5000,
          deposit: 3000,
          overtimeAmount: 2500,
          overtimeDays: 2,
          tiers: [],
        },
        40 * MINUTE_MS,
      ),
    );
    expect(preview).toMatchObject({ currency: 'EUR', buyOutAfterMinutes: 2 * 24 * 60, buyOutFee: 2500 });
    expect(await refused(fleet.plans.preview(plan.id, { minutes: [] }))).toEqual([['minutes', 'range']]);
  });

  it('a plan not yet in effect can be changed; tiered plans and several-day units preview by the same rule', async () => {
    const later = new Date(b.clock.now().getTime() + 24 * 60 * MINUTE_MS).toISOString();
    const p = await fleet.plans.create(planFixture({ venueId: 'v-sh-jingan', currency: 'CNY', effectiveFrom: later }));
    const changed = await fleet.plans.update(p.id, {
      type: 'tiered',
      tiers: [
        { startMinute: 0, endMinute: 60, totalFee: 100 },
        { startMinute: 60, endMinute: 180, totalFee: 250 },
      ],
    });
    expect(changed).toMatchObject({ type: 'tiered', currency: 'CNY', effectiveFrom: later });
    expect((await fleet.plans.preview(p.id, { minutes: [30, 61, 200] })).fees.map((f) => f.fee)).toEqual([
      100, 250, 2500,
    ]);
    const days = fleet.plans.previewDraft(
      planFixture({ unitPrice: 500, unitLength: 3, priceUnit: 'day', dailyCap: 0, deposit: 0 }),
      'EUR',
      { minutes: [60, 3 * 1440 + 1] },
    );
    expect(days.fees.map((f) => f.fee)).toEqual([500, 1000]);
    expect((await fleet.plans.list({ venueId: 'v-sh-jingan' }, 'cdb')).map((x) => x.effectiveFrom)[0]).toBe(later);
  });
});
