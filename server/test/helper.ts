// build(): the whole app over a fresh database (PGlite in memory, or a private schema of DATABASE_URL),
// a private MQTT topic prefix (embedded Aedes, or MQTT_URL), the cabinet simulator, and a clock the test moves.
import { IdempotencyStore } from '../src/idempotency/repository.ts';
import type { StripeSettings } from '../src/config/stripe.ts';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect, inject } from 'vitest';
import type {} from './global-setup.ts'; // the type of what it provides (inject('pgliteImage'))
import type { MqttClient } from 'mqtt';
import pg from 'pg';
import { TOURIST_CODE_MIN_LENGTH } from '#contract/auth.ts';
import { buildApp, type AppDeps, type PowerlyApp } from '../src/app.ts';
import { openPglite, openPostgres, pgliteImage, type Db } from '../src/db/db.ts';
import { migrate } from '../src/db/migrate.ts';
import { seed } from '../src/db/seed.ts';
import type { Clock } from '../src/lib/clock.ts';
import { externalBroker, startEmbeddedBroker, type EmbeddedBroker, type MqttConnector } from '../src/mqtt/broker.ts';
import { MqttCabinetLink } from '../src/modules/cabinets/link.ts';
import type { VendorGateway } from '../src/modules/cabinets/vendors/gateway.ts';
import { SimulatorFleet } from '../src/demo/simulator/fleet.ts';
import { SandboxCardProvider } from '../src/modules/payments/sandbox.ts';
import { serveFrontEnd } from '../src/static.ts';
import type { AuthorizeInput } from '../src/modules/payments/provider.ts';
import type { Mailer } from '../src/modules/notify/mailer.ts';
import type { MethodsConfig } from '../src/modules/payments/methods/registry.ts';
import type { SignInSettings } from '../src/modules/auth/signin-config.ts';
import { waitFor } from './wait.ts';
export { waitFor };

export class TestClock implements Clock {
  constructor(private t = Date.parse('2026-11-21T10:00:00.000Z')) {}
  now() {
    return new Date(this.t);
  }
  advance(ms: number) {
    this.t += ms;
  }
}

const quiet = {
  info() {},
  warn() {},
  error(...a: unknown[]) {
    console.error(...a);
  },
};

export interface Built {
  app: PowerlyApp;
  /** The PostgreSQL schema (DATABASE_URL) this build runs in. */
  schema: string;
  db: Db;
  sandbox: GatedSandbox;
  clock: TestClock;
  fleet?: SimulatorFleet;
  prefix: string;
  connector: MqttConnector;
  /** This server's cabinet link. */
  link: MqttCabinetLink;
  /** Every MQTT client this build made (the link's first): a test can cut them as if the process died. */
  clients: MqttClient[];
  close(): Promise<void>;
}

/** The sandbox provider with a gate before authorisations: lets a test hold one request mid-flight. */
export class GatedSandbox extends SandboxCardProvider {
  gate: Promise<void> | null = null;
  override async authorize(input: AuthorizeInput) {
    if (this.gate) await this.gate;
    return super.authorize(input);
  }
}

export interface BuildOptions {
  simulator?: boolean;
  ejectTtlMs?: number;
  /**
   * Missed-heartbeat threshold. Default: a year, because tests move the TestClock by hours without the heartbeats
   * a real cabinet would send meanwhile; tests of the liveness rule pass OFFLINE_AFTER_MS.
   */
  offlineAfterMs?: number;
  /** Serve this built front end (dist/) at / and /demo/, as main.ts does (browser tests). */
  frontEnd?: string;
  /** E-mail adapter (default: an outbox folder). */
  mailer?: Mailer;
  /** Share another build's database (a second server process on the same PostgreSQL schema / PGlite). */
  shareDb?: Built;
  /** With shareDb on PostgreSQL: open this build's own connections to that schema (another API process). */
  ownConnection?: boolean;
  /** Real sign-in provider settings (tests point them at local peers). */
  signIn?: SignInSettings;
  /** PostgreSQL only: use this schema (made by an earlier build) instead of a fresh one — a restarted server. */
  schema?: string;
  /** PostgreSQL only: close() leaves the schema in place (for a restart on it). */
  keepSchema?: boolean;
  /** Rate limits on (off by default: every injected request comes from one address). */
  rateLimits?: boolean;
  /** Fastify's trustProxy (TRUST_PROXY). */
  trustProxy?: boolean | number | string[];
  /** Stripe settings (tests point the SDK at server/test/stripe/fake-stripe.ts). */
  stripe?: StripeSettings;
  /** A broker of the test's own (e.g. a Mosquitto it kills and restarts) instead of MQTT_URL / embedded Aedes. */
  connector?: MqttConnector;
  /** The simulated cabinets re-send unacknowledged events after this long (default 5 s). */
  resendMs?: number;
  /** Topic prefix (a second server process on the same cabinets uses the first one's). */
  prefix?: string;
  /** PGlite only: keep the database in this folder (a restarted server opens the same one). */
  dataDir?: string;
  /** The link's MQTT_SHARED_GROUP and MQTT_CLIENT_ID (scale-out as docs/operations.md describes it). */
  sharedGroup?: string;
  clientId?: string;
  /** PAYMENT_METHODS (methods beyond the card: real adapters, pointed at local test servers). */
  paymentMethods?: MethodsConfig;
  methodFetch?: typeof fetch;
  publicUrl?: string;
  /** APP_ORIGINS: the app's own origins (return URLs). */
  appOrigins?: string[];
  /** Fastify's logger (tests of what the log may show). */
  logger?: AppDeps['logger'];
  /** Vendor gateways the link runs (cabinets of other families, modules/cabinets/vendors/). */
  gateways?: (d: { connector: MqttConnector; clock: TestClock; db: Db }) => VendorGateway[];
  a8Registration?: AppDeps['a8Registration'];
  /** Production posture: SANDBOX=off with these real providers (pointed at local peers or closed ports). */
  production?: Pick<AppDeps, 'signIn' | 'wechat' | 'stripe' | 'embedSigningKey'>;
  /** Where uploaded images go (default: the local folder data/media). */
  media?: AppDeps['media'];
  /** Real bank payout adapters (e.g. Wise against a local fake); the sandbox rail comes after them. */
  payoutRails?: AppDeps['payoutRails'];
  /** The support desk's settings (its support refund limit). */
  desk?: AppDeps['desk'];
  /** Web Push: the TLS agent trusting a local push service (server/test/providers/push-endpoint.ts). */
  pushAgent?: AppDeps['pushAgent'];
}

let image: Promise<Blob> | undefined;
/**
 * The migrated, seeded database every in-memory build starts from: the run's image (global-setup.ts), or one
 * made here on first use where no global setup provided it.
 */
function seededImage(): Promise<Blob> {
  let file: string | undefined;
  try {
    file = inject('pgliteImage');
  } catch {
    // Outside vitest (npm run lighthouse builds the product with this helper): no run-wide image.
  }
  image ??= file
    ? readFile(file).then((b) => new Blob([b]))
    : pgliteImage(async (db) => {
        await migrate(db);
        await seed(db);
      });
  return image;
}

export async function build(opts: BuildOptions = {}): Promise<Built> {
  const clock = new TestClock();
  const id = randomBytes(5).toString('hex');
  const schema = opts.shareDb?.schema ?? opts.schema ?? `test_${id}`;
  const url = process.env.DATABASE_URL;
  const shared = opts.shareDb;
  const own = Boolean(shared && opts.ownConnection && url);
  // A fresh PGlite (in memory, or a data folder with no database in it yet) starts from the run's migrated, seeded
  // image (initdb, migrations and seed once per run instead of once per build); a PostgreSQL schema is migrated
  // and seeded here, and a folder holding a database (a restarted server) is opened as it is and migrated.
  const fromImage = !shared && !url && !(opts.dataDir && existsSync(join(opts.dataDir, 'PG_VERSION')));
  const db =
    shared && !own
      ? shared.db
      : url
        ? await openPostgres(url, { schema, max: 5 })
        : await openPglite(opts.dataDir, fromImage ? await seededImage() : undefined);
  if (!shared && !fromImage) {
    await migrate(db);
    await seed(db);
  }
  const prefix = opts.prefix ?? `powerly-test-${id}`;
  let broker: EmbeddedBroker | undefined;
  const base =
    opts.connector ??
    (process.env.MQTT_URL
      ? externalBroker(process.env.MQTT_URL)
      : (broker = await startEmbeddedBroker({ port: null })));
  const clients: MqttClient[] = [];
  const connector: MqttConnector = {
    connect: (o) => {
      const c = base.connect(o);
      clients.push(c);
      return c;
    },
    describe: () => base.describe(),
  };
  const link = new MqttCabinetLink(connector, {
    prefix,
    log: quiet,
    sharedGroup: opts.sharedGroup,
    clientId: opts.clientId,
    gateways: opts.gateways?.({ connector, clock, db }),
  });
  const fleet =
    opts.simulator === false
      ? undefined
      : await SimulatorFleet.fromDb(db, { connector, prefix, clock, heartbeatMs: 60_000, resendMs: opts.resendMs });
  const sandbox = new GatedSandbox(db, clock);
  const app = await buildApp({
    db,
    clock,
    link,
    fleet,
    sandbox,
    ejectTtlMs: opts.ejectTtlMs ?? 30_000,
    ejectGraceMs: 5_000,
    offlineAfterMs: opts.offlineAfterMs ?? 365 * 24 * 3600_000,
    mailer: opts.mailer,
    signIn: opts.signIn,
    rateLimits: opts.rateLimits ?? false,
    trustProxy: opts.trustProxy,
    stripe: opts.stripe,
    paymentMethods: opts.paymentMethods,
    methodFetch: opts.methodFetch,
    publicUrl: opts.publicUrl,
    appOrigins: opts.appOrigins,
    logger: opts.logger,
    a8Registration: opts.a8Registration,
    media: opts.media,
    payoutRails: opts.payoutRails,
    desk: opts.desk,
    pushAgent: opts.pushAgent,
    ...(opts.production ? { ...opts.production, sandboxMode: 'off' as const } : {}),
  });
  if (opts.frontEnd && !(await serveFrontEnd(app, opts.frontEnd)))
    throw new Error(`no front end built in ${opts.frontEnd}: npm run build`);
  await app.ready();
  if (fleet) await fleet.start();
  return {
    app,
    db,
    clock,
    fleet,
    prefix,
    connector,
    sandbox,
    schema,
    link,
    clients,
    async close() {
      await fleet?.stop();
      await app.close();
      await broker?.close();
      if (own) await db.close();
      if (shared) return;
      await db.close();
      if (url && !opts.keepSchema) {
        const c = new pg.Client({ connectionString: url });
        await c.connect();
        await c.query(`drop schema if exists ${schema} cascade`);
        await c.end();
      }
    },
  };
}

/** A form body (application/x-www-form-urlencoded), as the flows send; fields left undefined are omitted. */
export const formBody = (body: Record<string, string | number | undefined>) =>
  new URLSearchParams(
    Object.entries(body)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => [k, String(v)] as [string, string]),
  ).toString();

/** The ledger balances: every account in step with its entries, each currency's posted and pending sums zero. */
export async function ledgerBalanced(app: PowerlyApp) {
  const audit = await app.powerly.ledger.audit();
  expect(audit.accountsOutOfStep).toEqual([]);
  for (const c of audit.byCurrency) {
    expect(Number(c.net), `posted sum in ${c.currency}`).toBe(0);
    expect(Number(c.pending_net), `pending sum in ${c.currency}`).toBe(0);
  }
}

/**
 * A tourist session. `code` is the device code; a short test name is padded to the minimum length the API
 * requires (TOURIST_CODE_MIN_LENGTH), so each name stays one device.
 */
/** A tourist's session token; `lang` is the language they sign in with, which sets their currency (pt-PT: EUR). */
export async function touristToken(app: PowerlyApp, code?: string, lang?: string): Promise<string> {
  const device = code?.padEnd(TOURIST_CODE_MIN_LENGTH, '.');
  const res = await app.inject({
    method: 'POST',
    url: `/cdb-app-api/v1/app/saas/tourist/login${device ? `?code=${device}` : ''}`,
    headers: lang ? { lang } : undefined,
  });
  const token = (res.json() as { data?: string }).data;
  if (!token) throw new Error(`tourist login failed: ${res.body}`);
  return token;
}

export async function cardToken(app: PowerlyApp, number = '4242 4242 4242 4242'): Promise<string> {
  const res = await app.inject({
    method: 'POST',
    url: '/sandbox-pay/v1/tokens',
    payload: { publicKey: 'pk_sandbox_powerly', number, expMonth: '12', expYear: '2030', cvc: '123' },
  });
  if (res.statusCode !== 200) throw new Error(`tokenize failed: ${res.body}`);
  return (res.json() as { id: string }).id;
}

/**
 * For tests without the simulator: the cabinets were heard from just now (online, last seen = the test clock),
 * as if each had sent its online status and a heartbeat.
 */
export async function markHeardFrom(b: Built, ids: string[]) {
  await b.db.query('update cabinets set online = true, last_seen_at = $2 where id = any($1)', [ids, b.clock.now()]);
}

export async function cabinetsOnline(b: Built, ids: string[]) {
  await waitFor(
    async () => {
      const { rows } = await b.db.query<{ n: number }>(
        'select count(*)::int as n from cabinets where online and id = any($1)',
        [ids],
      );
      return Number(rows[0]?.n) === ids.length;
    },
    `cabinets ${ids.join(', ')} online`,
  );
}

/**
 * The request's next step after its business transaction fails once, as if the process stopped after the commit:
 * the idempotency-key completion made OUTSIDE a transaction, or, for a key the business transaction completed, the
 * after-commit step that takes its stored response. A key completed inside the business transaction is already
 * 'done' then, so a retry replays; a key left 'started' would be released and run again.
 */
export function failNextKeyCompletionOutsideTx(b: Built) {
  const proto = IdempotencyStore.prototype;
  const [complete, afterCommit] = [proto.completeKey, proto.afterCommit];
  const restore = () => {
    proto.completeKey = complete;
    proto.afterCommit = afterCommit;
  };
  proto.completeKey = function (this: IdempotencyStore, ...args: Parameters<typeof complete>) {
    if (b.db.inTx()) return complete.apply(this, args);
    restore();
    return Promise.reject(new Error('process stopped after the commit'));
  };
  proto.afterCommit = function (this: IdempotencyStore) {
    afterCommit.call(this, () => {
      restore();
      throw new Error('process stopped after the commit');
    });
  };
}

const everyDay = (open: string, close: string) => {
  const d = [{ open, close }];
  return { weekly: { mon: d, tue: d, wed: d, thu: d, fri: d, sat: d, sun: d }, exceptions: [] };
};

/** A live venue at (lat, lng) in EUR, open 09:00-21:00, as fleet.venues.create takes it; `over` changes fields. */
export function venueFixture(id: string, lat: number, lng: number, over: Record<string, unknown> = {}) {
  return {
    id,
    name: id,
    city: 'x',
    address: 'addr',
    lat,
    lng,
    currency: 'EUR',
    state: 'live',
    openingHours: everyDay('09:00', '21:00'),
    ...over,
  };
}

/** A unit price plan as fleet.plans.create takes it (EUR 1 per 30 min, cap 6, deposit 25); `over` changes fields. */
export function planFixture(over: Record<string, unknown> = {}) {
  return {
    deviceKind: 'cdb',
    type: 'unit',
    unitPrice: 100,
    unitLength: 30,
    priceUnit: 'minute',
    freeMinutes: 0,
    dailyCap: 600,
    deposit: 2500,
    depositType: 'preauth',
    overtimeAmount: 2500,
    overtimeDays: 2,
    ...over,
  };
}
