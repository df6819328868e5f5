// Revenue share on the ledger: random rentals (venue, rent, paid by card or from the wallet) and random refunds
// of them. After every step, per currency, what the rentals took (gross) is exactly what platform revenue kept plus
// the partners' accounts, the refunds, the provider fees and the taxes; and each partner's account holds its
// percentage of every rental's net, recomputed here from the rules.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build, ledgerBalanced, type Built } from './helper.ts';
import { shareOf } from '../src/modules/partners/share.ts';
import { PLATFORM, providerOwner } from '../src/modules/ledger/service.ts';
import { partnersFixture, RATES } from './partners/fixtures.ts';

const VENUES = [
  {
    id: 'v-vno-gedimino',
    cabinet: 'PWL-VNO-001',
    currency: 'EUR',
    taxBps: RATES.ltTaxBps,
    venueBps: RATES.vnoBps,
    agentBps: RATES.agentBps,
  },
  {
    id: 'v-lis-timeout',
    cabinet: 'PWL-LIS-001',
    currency: 'EUR',
    taxBps: RATES.ltTaxBps,
    venueBps: RATES.lisBps,
    agentBps: RATES.agentBps,
  },
  { id: 'v-nyc-gct', cabinet: 'PWL-NYC-001', currency: 'USD', taxBps: 0, venueBps: RATES.nycBps, agentBps: 0 },
  { id: 'v-sh-jingan', cabinet: 'PWL-SH-001', currency: 'CNY', taxBps: 0, venueBps: 0, agentBps: 0 },
] as const;

type Cmd = { kind: 'rent'; venue: number; amount: number; card: boolean } | { kind: 'refund'; i: number; part: number };
const cmdArb: fc.Arbitrary<Cmd> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('rent' as const),
      venue: fc.nat({ max: VENUES.length - 1 }),
      amount: fc.integer({ min: 1, max: 250_000 }),
      card: fc.boolean(),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('refund' as const),
      i: fc.nat(),
      part: fc.double({ min: 0, max: 1, noNaN: true }),
    }),
  },
);

let b: Built;
let userId: number;
let n = 0;
beforeAll(async () => {
  b = await build({ simulator: false });
  await partnersFixture(b);
  const { rows } = await b.db.query<{ id: number }>(
    `insert into users (kind, name) values ('tourist', 'P') returning id`,
  );
  userId = Number(rows[0]!.id);
});
afterAll(async () => b?.close());

interface Rental {
  id: string;
  venue: (typeof VENUES)[number];
  gross: number;
  refunded: number;
  card: boolean;
}

/** A settled rental whose rent is on the ledger as the rentals service puts it there (provider clearing → revenue). */
async function rent(venue: (typeof VENUES)[number], amount: number, card: boolean): Promise<Rental> {
  const id = `PO-share-${n++}`;
  const w = b.app.powerly.ledger;
  await b.db.tx(async () => {
    let paymentId: string | null = null;
    if (card) {
      paymentId = `pay-share-${id}`;
      await b.db.query(
        `insert into payments (id, user_id, provider, purpose, amount, currency, status, captured_amount, created_at, updated_at)
         values ($1, $2, 'sandbox', 'deposit_preauth', $3, $4, 'captured', $3, now(), now())`,
        [paymentId, userId, amount, venue.currency],
      );
    }
    await b.db.query(
      `insert into orders (id, user_id, cabinet_id, venue_id, zujie, settled, deposit_type, currency, plan, wire_strategy, deposit, created_at, payment_id, fee)
       values ($1, $2, $3, $4, 3, true, 0, $5, '{}', '{}', 0, now(), $6, $7)`,
      [id, userId, venue.cabinet, venue.id, venue.currency, paymentId, amount],
    );
    const from = card
      ? await w.account(providerOwner('sandbox'), 'clearing', venue.currency)
      : await w.account({ type: 'user', id: String(userId) }, 'wallet', venue.currency);
    await w.transfer({
      debit: from,
      credit: await w.account(PLATFORM, 'revenue', venue.currency),
      amount,
      code: 'rent',
      orderId: id,
      at: b.clock.now(),
    });
    await b.app.powerly.partners.rentLedgerChanged(id);
  });
  return { id, venue, gross: amount, refunded: 0, card };
}

/** Part of a rental's rent goes back to the rider (as a bought-out power bank's difference does). */
async function refund(r: Rental, amount: number) {
  const w = b.app.powerly.ledger;
  await b.db.tx(async () => {
    const to = r.card
      ? await w.account(providerOwner('sandbox'), 'clearing', r.venue.currency)
      : await w.account({ type: 'user', id: String(userId) }, 'wallet', r.venue.currency);
    await w.transfer({
      debit: await w.account(PLATFORM, 'revenue', r.venue.currency),
      credit: to,
      amount,
      code: 'buy_out_refund',
      orderId: r.id,
      at: b.clock.now(),
    });
    await b.app.powerly.partners.rentLedgerChanged(r.id);
  });
  r.refunded += amount;
}

/** Posted balance (credits − debits) per currency of the accounts matching the filter. */
async function balances(where: string) {
  const { rows } = await b.db.query<{ currency: string; owner_id: string; bal: string }>(
    `select currency, owner_id, sum(credits_posted - debits_posted)::bigint as bal from ledger_accounts where ${where} group by currency, owner_id`,
  );
  return rows.map((r) => ({ currency: r.currency, owner: r.owner_id, bal: Number(r.bal) }));
}
const sum = (rows: { currency: string; bal: number }[], c: string) =>
  rows.filter((r) => r.currency === c).reduce((s, r) => s + r.bal, 0);

async function rentTaken() {
  const { rows } = await b.db.query<{ currency: string; gross: string; refunded: string }>(
    `select currency, coalesce(sum(amount) filter (where code = 'rent'), 0)::bigint as gross,
            coalesce(sum(amount) filter (where code = 'buy_out_refund'), 0)::bigint as refunded
       from ledger_transfers where order_id like 'PO-share-%' group by currency`,
  );
  return new Map(rows.map((r) => [r.currency, { gross: Number(r.gross), refunded: Number(r.refunded) }]));
}

describe('revenue share on the ledger', () => {
  it('platform + partners + refunds + provider fees + taxes = gross, per currency, after any rentals and refunds', async () => {
    const all: Rental[] = [];
    await fc.assert(
      fc.asyncProperty(fc.array(cmdArb, { minLength: 1, maxLength: 8 }), async (cmds) => {
        for (const c of cmds) {
          if (c.kind === 'rent') all.push(await rent(VENUES[c.venue]!, c.amount, c.card));
          else if (all.length) {
            const r = all[c.i % all.length]!;
            const amount = Math.floor((r.gross - r.refunded) * c.part);
            if (amount > 0) await refund(r, amount);
          }
        }
        const taken = await rentTaken();
        const platform = await balances(`owner_type = 'platform' and kind = 'revenue'`);
        const partners = await balances(`owner_type = 'partner' and kind = 'revenue_share'`);
        const fees = await balances(`owner_type = 'provider' and kind = 'fees'`);
        const taxes = await balances(`owner_type = 'platform' and kind = 'tax_payable'`);
        for (const [currency, t] of taken) {
          expect(
            sum(platform, currency) + sum(partners, currency) + t.refunded + sum(fees, currency) + sum(taxes, currency),
            currency,
          ).toBe(t.gross);
        }
        // Each partner holds its percentage of each of its rentals' net, as the rules say.
        const expected = new Map<string, number>();
        for (const r of all) {
          const s = shareOf(r.gross, r.refunded, {
            taxBps: r.venue.taxBps,
            feeBps: r.card ? RATES.sandboxFeeBps : 0,
            venueBps: r.venue.venueBps,
            agentBps: r.venue.agentBps,
          });
          expect(s.venueShare + s.agentShare).toBeLessThanOrEqual(s.net);
          expected.set(`venue:${r.venue.id}`, (expected.get(`venue:${r.venue.id}`) ?? 0) + s.venueShare);
          if (r.venue.agentBps)
            expected.set('agent:agt-baltic', (expected.get('agent:agt-baltic') ?? 0) + s.agentShare);
        }
        for (const [owner, amount] of expected)
          expect(partners.find((p) => p.owner === owner)?.bal ?? 0, owner).toBe(amount);
        await ledgerBalanced(b.app);
      }),
      { numRuns: 20 },
    );
  });

  it('a repeated notice of the same ledger state posts nothing', async () => {
    const r = await rent(VENUES[0], 12_345, true);
    const before = await b.db.query('select count(*)::int as n from ledger_transfers');
    await b.app.powerly.partners.rentLedgerChanged(r.id);
    await b.app.powerly.partners.rentLedgerChanged(r.id);
    expect((await b.db.query('select count(*)::int as n from ledger_transfers')).rows).toEqual(before.rows);
  });
});
