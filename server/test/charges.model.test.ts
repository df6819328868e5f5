// Model-based test of the charge lifecycle (fast-check fc.commands, modelRun) against the Stripe adapter and the
// test tree's Stripe server, on PGlite in a data folder (a killed server's successor opens the same database):
// random sequences of Wi-Fi purchases (charged at once, 3-D Secure to approve and resume, declined; the wallet paying
// part), box deposits held on the card (authorise), their capture before the hold lapses, cancellations (a charge
// refunded, a hold released), the provider's webhooks delivered twice and out of order (an older snapshot after a
// newer one), the guards' timeouts, and the process killed with a payment in flight and started again. After every
// step: the ledger sums to zero per currency (posted and pending), no provider payment is taken twice or serves two
// purposes, and no wallet holds more than the provider captured for that rider (no money from nothing). After the
// guards have run, every charge at the provider is terminal (canceled, or succeeded and recorded, its refunds done) or
// resumable (a hold recorded as authorised, or a customer's step still inside its timeout): nothing stranded.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { packagePrice } from '#core/mifi.ts';
import { ACTION_TIMEOUT_MS } from '../src/modules/payments/provider.ts';
import { invariants, intents, refunded, SK, type Obj, type Real } from './charges-model-invariants.ts';
import { build, touristToken, type Built } from './helper.ts';
import { FakeStripe } from './stripe/fake-stripe.ts';

const API = '/cdb-app-api/v1/app';
const WH = 'whsec_platform';
const CARD = 'stripe:STRIPE_CARD';
const pg = process.env.DATABASE_URL;

/** What the client side knows: packages bought (paid or not) and payments waiting for the customer. */
interface Model {
  packages: { rider: number; id: string; paid: boolean; deposit: boolean; cancelled: boolean }[];
  pending: { rider: number; ref: string }[];
}

let fake: FakeStripe;
let dataDir = '';
let schema = '';
let n = 0;
let total = 0; // fr-3d's price (EUR minor units)
let days = 0;

const stripeOpts = () => ({
  account: { secretKey: SK, publishableKey: 'pk_test_platform', webhookSecret: WH },
  agents: {},
  transport: fake.transport(),
});
async function start(elapsed: number): Promise<Built> {
  const b = await build({
    simulator: false,
    stripe: stripeOpts(),
    keepSchema: true,
    ...(pg ? { schema: schema || undefined } : { dataDir }),
  });
  schema = b.schema;
  b.clock.advance(elapsed);
  fake.now = () => Math.floor(b.clock.now().getTime() / 1000);
  return b;
}

async function post(r: Real, rider: number, url: string, payload: object) {
  const res = await r.b.app.inject({
    method: 'POST',
    url: `${API}/${url}`,
    headers: { token: r.riders[rider]!.token, 'idempotency-key': `m${n++}` },
    payload,
  });
  expect(res.statusCode, `${url}: ${res.body}`).toBeLessThan(500);
  return res.json() as {
    code: number;
    msg: string;
    data: Record<string, unknown> & { action?: { paymentIntent: string } };
  };
}
const orderSubmit = () => ({
  orderType: 2,
  currency: 'EUR',
  totalAmount: total / 100,
  submitDtlDtoList: [{ skuId: 'fr-3d', selectDays: days }],
});
function remember(r: Real, ref: string) {
  const pi = fake.get(`${SK}|`, ref) as unknown as Obj | undefined;
  if (pi && r.snapshots.length < 50) r.snapshots.push(structuredClone(pi));
}
const settle = async (r: Real) => {
  await r.b.app.powerly.jobs.runDue();
};

type Cmd = fc.AsyncCommand<Model, Real>;
const card = fc.constantFrom(
  'pm_card_visa',
  'pm_card_visa',
  'pm_card_authenticationRequired',
  'pm_card_chargeDeclined',
);

class Buy implements Cmd {
  constructor(
    readonly rider: number,
    readonly card: string,
    readonly useWallet: boolean,
  ) {}
  check = () => true;
  async run(m: Model, r: Real) {
    const a = await post(r, this.rider, 'chargenow/mifi/rent', {
      paymentId: CARD,
      stripeToken: this.card,
      orderSubmit: orderSubmit(),
      ...(this.useWallet ? { useWallet: 1 } : {}),
    });
    const id = String(a.data?.orderId ?? '');
    if (a.data?.action) {
      m.pending.push({ rider: this.rider, ref: a.data.action.paymentIntent });
      remember(r, a.data.action.paymentIntent);
    }
    if (id)
      m.packages.push({
        rider: this.rider,
        id,
        paid: a.code === 0 && !a.data.action,
        deposit: false,
        cancelled: false,
      });
    await invariants(fake, r, false);
  }
  toString = () => `buy(${this.rider}, ${this.card}${this.useWallet ? ', wallet' : ''})`;
}

class Approve implements Cmd {
  constructor(
    readonly i: number,
    readonly approve: boolean,
  ) {}
  check = (m: Readonly<Model>) => m.pending.length > 0;
  async run(m: Model, r: Real) {
    const p = m.pending[this.i % m.pending.length]!;
    if (this.approve && (fake.get(`${SK}|`, p.ref) as unknown as Obj).status === 'requires_action')
      fake.complete3ds(SK, p.ref);
    const a = await post(r, p.rider, 'chargenow/mifi/rent', { paymentId: CARD, paymentIntent: p.ref });
    remember(r, p.ref);
    if (a.code === 0 && !a.data.action) {
      const pkg = m.packages.find((x) => x.id === a.data.orderId);
      if (pkg) pkg.paid = true;
    }
    await invariants(fake, r, false);
  }
  toString = () => `${this.approve ? 'approve' : 'resume'}(${this.i})`;
}

class Deposit implements Cmd {
  constructor(readonly i: number) {}
  check = (m: Readonly<Model>) => m.packages.some((p) => p.paid && !p.deposit && !p.cancelled);
  async run(m: Model, r: Real) {
    const open = m.packages.filter((p) => p.paid && !p.deposit && !p.cancelled);
    const p = open[this.i % open.length]!;
    const a = await post(r, p.rider, 'chargenow/mifi/cabinetDisposit', {
      mifiOrderId: p.id,
      paymentId: CARD,
      stripeToken: 'pm_card_visa',
    });
    if (a.code === 0) p.deposit = true;
    const ref = (
      await r.b.db.query<{ provider_ref: string }>(
        `select provider_ref from payments where purpose = 'mifi_deposit_hold' order by created_at desc limit 1`,
      )
    ).rows[0]?.provider_ref;
    if (ref) remember(r, ref);
    await invariants(fake, r, false);
  }
  toString = () => `deposit(${this.i})`;
}

class Cancel implements Cmd {
  constructor(readonly i: number) {}
  check = (m: Readonly<Model>) => m.packages.some((p) => !p.cancelled);
  async run(m: Model, r: Real) {
    const open = m.packages.filter((p) => !p.cancelled);
    const p = open[this.i % open.length]!;
    const a = await post(r, p.rider, 'chargenow/mifi/cancel', { mifiOrderId: p.id });
    if (a.code === 0) p.cancelled = true;
    await settle(r);
    await invariants(fake, r, false);
  }
  toString = () => `cancel(${this.i})`;
}

/** Time passes: holds near their lapse are captured (the hold-expiry guard), the guards of unfinished steps run. */
class Later implements Cmd {
  constructor(readonly ms: number) {}
  check = () => true;
  async run(_m: Model, r: Real) {
    r.b.clock.advance(this.ms);
    r.elapsed += this.ms;
    await settle(r);
    await invariants(fake, r, this.ms > ACTION_TIMEOUT_MS);
  }
  toString = () => `later(${Math.round(this.ms / 60_000)} min)`;
}

/** The provider's notification of a payment as it is now, delivered twice, or an older snapshot delivered late. */
class Webhook implements Cmd {
  constructor(
    readonly i: number,
    readonly stale: boolean,
  ) {}
  check = () => true;
  async run(_m: Model, r: Real) {
    const all = this.stale ? r.snapshots : intents(fake);
    if (!all.length) return;
    const pi = all[this.i % all.length]!;
    const type =
      pi.status === 'succeeded'
        ? 'payment_intent.succeeded'
        : pi.status === 'canceled'
          ? 'payment_intent.canceled'
          : pi.status === 'requires_capture'
            ? 'payment_intent.amount_capturable_updated'
            : 'payment_intent.requires_action';
    const e = fake.event(type, pi, WH);
    for (let k = 0; k < 2; k++) {
      const res = await r.b.app.inject({
        method: 'POST',
        url: '/webhooks/payments/stripe',
        headers: { 'content-type': 'application/json', 'stripe-signature': e.header },
        payload: e.payload,
      });
      expect(res.statusCode, res.body).toBe(200);
      if (k === 1) expect(res.json()).toMatchObject({ result: 'duplicate' });
    }
    if (refunded(fake, pi) > 0) {
      const ch = fake.get(`${SK}|`, String(pi.latest_charge));
      const e2 = fake.event('charge.refunded', ch, WH);
      const res = await r.b.app.inject({
        method: 'POST',
        url: '/webhooks/payments/stripe',
        headers: { 'content-type': 'application/json', 'stripe-signature': e2.header },
        payload: e2.payload,
      });
      expect(res.statusCode, res.body).toBe(200);
    }
    await invariants(fake, r, false);
  }
  toString = () => `webhook(${this.i}${this.stale ? ', stale' : ''})`;
}

/** The process is killed with a purchase in flight; a new one starts on the same database; the client retries. */
class Kill implements Cmd {
  constructor(readonly rider: number) {}
  check = () => true;
  async run(m: Model, r: Real) {
    const inflight = post(r, this.rider, 'chargenow/mifi/rent', {
      paymentId: CARD,
      stripeToken: 'pm_card_visa',
      orderSubmit: orderSubmit(),
    }).catch(() => null);
    await new Promise((ok) => setImmediate(ok));
    await r.b.close();
    const answered = await inflight.catch(() => null);
    r.b = await start(r.elapsed);
    const id = String(answered?.data?.orderId ?? '');
    if (id) m.packages.push({ rider: this.rider, id, paid: answered?.code === 0, deposit: false, cancelled: false });
    // The guard of the payment in flight finishes or releases it.
    r.b.clock.advance(5 * 60_000);
    r.elapsed += 5 * 60_000;
    await settle(r);
    await invariants(fake, r, false);
  }
  toString = () => `kill(${this.rider})`;
}

const rider = fc.integer({ min: 0, max: 1 });
const commands = [
  fc.tuple(rider, card, fc.boolean()).map(([u, c, w]) => new Buy(u, c, w)),
  fc.tuple(fc.nat(), fc.boolean()).map(([i, a]) => new Approve(i, a)),
  fc.nat().map((i) => new Deposit(i)),
  fc.nat().map((i) => new Cancel(i)),
  fc.constantFrom(60_000, ACTION_TIMEOUT_MS + 60_000, 6 * 24 * 3600_000 + 60_000).map((ms) => new Later(ms)),
  fc.tuple(fc.nat(), fc.boolean()).map(([i, s]) => new Webhook(i, s)),
  rider.map((u) => new Kill(u)),
];

describe(`the charge lifecycle as a model (${pg ? 'PostgreSQL' : 'embedded PGlite'}, with process kills)`, () => {
  it('keeps the ledger at zero, takes nothing twice, makes no money, strands no charge', async () => {
    await fc.assert(
      fc.asyncProperty(fc.commands(commands, { maxCommands: 10 }), async (cmds) => {
        // A provider of this run's own: every payment it holds is this run's.
        fake = await new FakeStripe([SK]).start();
        dataDir = mkdtempSync(join(tmpdir(), 'powerly-charges-'));
        schema = '';
        const r: Real = { b: await start(0), elapsed: 0, riders: [], snapshots: [] };
        try {
          for (let k = 0; k < 2; k++) {
            const token = await touristToken(r.b.app);
            r.riders.push({ token, id: (await r.b.app.powerly.auth.authenticate(token)).id });
          }
          if (!total) {
            const q = await post(r, 0, 'chargenow/mifi/query', {
              requestMethod: 'POST',
              url: 'packageDtlListBySkuId',
              data: JSON.stringify({ skuId: 'fr-3d', currency: 'EUR' }),
            });
            const v = (
              JSON.parse(q.data as unknown as string) as {
                skuId: string;
                price: number;
                isPackage: boolean;
                Day: number;
              }[]
            ).find((x) => x.skuId === 'fr-3d')!;
            total = packagePrice({ isPackage: v.isPackage, price: Math.round(v.price * 100), selectDays: v.Day });
            days = v.Day;
          }
          await fc.asyncModelRun(() => ({ model: { packages: [], pending: [] }, real: r }), cmds);
          // In the end: every guard has run; nothing is stranded.
          r.b.clock.advance(ACTION_TIMEOUT_MS + 5 * 60_000);
          await settle(r);
          await invariants(fake, r, true);
        } finally {
          await r.b.close().catch(() => undefined);
          await fake.stop();
          rmSync(dataDir, { recursive: true, force: true });
          if (pg) {
            const { default: pgm } = await import('pg');
            const c = new pgm.Client({ connectionString: pg });
            await c.connect();
            await c.query(`drop schema if exists ${schema} cascade`);
            await c.end();
          }
        }
      }),
      { numRuns: Number(process.env.FC_RUNS ?? 3), seed: Number(process.env.FC_SEED ?? 20261226) },
    );
  }, 600_000);
});
