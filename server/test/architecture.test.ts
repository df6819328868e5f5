// Architecture rules of the server (DESIGN.md "Server"), checked on the source tree:
//   SQL lives only in repositories (files named repository.ts or <something>-repository.ts) and in the db layer
//   (server/src/db: connection, migrations runner). Services, routes, jobs, adapters and scripts reach tables
//   through a repository, so every statement has one owner and runs in the current unit of work.
//   Every table of the migrations has exactly one owning module (OWNERS); only the owner's repository writes
//   it. A repository may read another module's table only in a join listed in READ_MODELS (one-round-trip
//   views on hot paths: the scan, the map, the order lists).
//   Walls between modules (server/src/modules/<m>/): a module imports another only through the files that module
//   makes public (PUBLIC: its service, and the few shared shapes listed), never its repository or internals; no two
//   modules import each other (the lower one takes a port, filled at wiring in server/src/services.ts).
//   No source file is above 400 lines (the ones still above are listed in LONG_FILES and may only shrink).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../src', import.meta.url));

function tsFiles(dir: string, tsx = false): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return tsFiles(p, tsx);
    return p.endsWith('.ts') || (tsx && p.endsWith('.tsx')) ? [p] : [];
  });
}

const allowed = (rel: string) => /(^|\/|-)repository\.ts$/.test(rel) || rel.startsWith('db/');

/** SQL statements in string or template literals, and calls of a query function. */
const SQL = [
  /['"`]\s*(select|insert\s+into|update\s+\w+\s+set|delete\s+from|with\s+\w+\s+as)\b/i,
  /\b(insert\s+into|delete\s+from)\s+\w+/i,
  /\bselect\s+[\w*.,\s()]+\s+from\s+\w+/i,
  /\bupdate\s+\w+\s+set\s+\w+\s*=/i,
  /\.query\s*(<[^>]*>)?\s*\(/,
];

/** Lines of `source` that look like SQL or run a query, ignoring comments. */
export function sqlLines(source: string): string[] {
  return source
    .split('\n')
    .filter((line) => !/^\s*(\/\/|\*|\/\*)/.test(line))
    .filter((line) => SQL.some((re) => re.test(line)));
}

const migrations = fileURLToPath(new URL('../migrations', import.meta.url));

/** The owning folder (under server/src) of every table. */
const OWNERS: Record<string, readonly string[]> = {
  'modules/auth': [
    'users',
    'sessions',
    'user_identities',
    'captchas',
    'otp_sends',
    'otp_codes',
    'sms_outbox',
    'user_more',
  ],
  'modules/venues': ['venues', 'price_plans'],
  'modules/cabinets': [
    'cabinets',
    'powerbanks',
    'cabinet_events',
    'cabinet_commands',
    'cabinet_credentials',
    'cabinet_token_secrets',
    'cabinet_rejects',
    'return_reservations',
    'vendor_ejects',
  ],
  'modules/rentals': ['orders', 'rental_corrections', 'deposit_returns', 'disputes'],
  'modules/ledger': ['ledger_accounts', 'ledger_transfers'],
  'modules/wallet': ['withdrawals', 'saved_cards', 'card_setups', 'wallet_adjustments'],
  'modules/payments': [
    'payments',
    'payment_transitions',
    'payment_refund_keys',
    'payment_starts',
    'provider_events',
    'payment_customers',
    'sandbox_tokens',
    'sandbox_payment_methods',
    'sandbox_setup_intents',
    'sandbox_intents',
    'sandbox_refunds',
    'sandbox_payouts',
    'provider_reconciliations',
    'provider_settlement_lines',
  ],
  'modules/payments/methods': ['external_payments', 'external_method_tokens', 'sandbox_method_payments'],
  'modules/payments/settings': ['payment_method_settings'],
  'modules/content': ['help_items', 'crm_leads'],
  'modules/embed': ['agents', 'web_vitals', 'embed_codes'],
  'modules/notify': [
    'order_receipts',
    'rental_notices',
    'notice_deliveries',
    'notice_prefs',
    'push_subscriptions',
    'agent_return_settings',
  ],
  'modules/live': ['live_tickets'],
  'modules/staff': [
    'staff',
    'staff_memberships',
    'staff_sessions',
    'staff_invitations',
    'staff_passkeys',
    'staff_ceremonies',
  ],
  'modules/audit': ['audit_log'],
  'modules/coupons': ['coupons', 'coupon_redemptions'],
  'modules/alerts': ['alert_rules', 'alerts', 'alert_deliveries'],
  'modules/dashboard': [
    'dashboard_daily',
    'dashboard_fleet_daily',
    'dashboard_dirty',
    'dashboard_state',
    'dashboard_agent_daily',
    'dashboard_venue_monthly',
    'dashboard_venue_running',
    'dashboard_agent_fleet_daily',
  ],
  'modules/rebalancing': ['rebalance_moves'],
  'modules/partners': [
    'revenue_share_rules',
    'country_tax_rates',
    'provider_fee_rates',
    'rental_shares',
    'partner_statements',
    'partner_share_moves',
  ],
  'modules/mifi': [
    'mifi_regions',
    'mifi_countries',
    'mifi_skus',
    'mifi_sku_prices',
    'mifi_orders',
    'mifi_packages',
    'mifi_boxes',
    'mifi_telemetry',
    'mifi_payment_actions',
    'mifi_box_deposits',
  ],
  jobs: ['jobs'],
  idempotency: ['idempotency_keys'],
  secrets: ['installation_secrets'],
  plugins: ['rate_limits'],
};

/** Reads of another module's tables, in joins of one query (never writes): repository folder → tables. */
const READ_MODELS: Record<string, readonly string[]> = {
  // The scan (checkisok) in one round trip: the session (auth's rule), venue, price plan, wallet balance, open rentals,
  // and the venue's agent (its country and deposit setting).
  'modules/cabinets': ['venues', 'price_plans', 'ledger_accounts', 'orders', 'sessions', 'users', 'agents'],
  // Order lists and details carry the venue's name.
  'modules/rentals': ['venues'],
  // A rental's notices follow the settings of its venue's agent.
  'modules/notify': ['venues'],
  // The map's stock counts per venue (free return slots less those a held return reservation keeps); a rental's
  // venue and plan with its agent's deposit setting (deposit_by_payment: the wallet borrow's rule).
  'modules/venues': ['cabinets', 'powerbanks', 'return_reservations', 'agents'],
  // The back office's boxes: the cabinet slot each sits in, and that cabinet's agent (the scope); the support desk's
  // packages: the card their order was paid with.
  'modules/mifi': ['powerbanks', 'cabinets', 'payments'],
  // The support desk's riders: the agents each is a customer of (an account with it, a rental at its venues: the scope).
  'modules/auth': ['ledger_accounts', 'orders', 'venues'],
  // The support desk's payments: the rental or Wi-Fi order each paid (its cabinet, venue and agent: the scope).
  'modules/payments': ['orders', 'venues', 'mifi_orders'],
  // A rental's share: its venue, agent (country), payment provider and its rent on the ledger; partners' balances.
  'modules/partners': ['orders', 'venues', 'agents', 'payments', 'ledger_transfers', 'ledger_accounts'],
  // The conditions alerts watch: cabinets (with their venue's agent), the power banks in them, dead jobs, the payment
  // providers' declines, refused payouts.
  'modules/alerts': ['cabinets', 'venues', 'powerbanks', 'jobs', 'payments', 'withdrawals'],
  // The dashboard's summaries recomputed from the rentals (their venue's agent, the return cabinet's venue) and the
  // fleet's power banks per venue.
  'modules/dashboard': ['orders', 'venues', 'cabinets', 'powerbanks'],
  // The stock of the cabinets (their venue's place and agent, the power banks in them) moves are suggested from.
  'modules/rebalancing': ['cabinets', 'venues', 'powerbanks'],
};

const ownerOf = (table: string) => Object.entries(OWNERS).find(([, tables]) => tables.includes(table))?.[0];
const folderOf = (rel: string) => rel.replace(/\/[^/]*$/, '');

/** Tables a source writes (insert into / update … set / delete from) and reads (from / join). */
export function tablesIn(source: string): { writes: string[]; reads: string[] } {
  const code = source
    .split('\n')
    .filter((line) => !/^\s*(\/\/|\*|\/\*)/.test(line))
    .join('\n');
  const all = (re: RegExp) => [...code.matchAll(re)].map((m) => m[1]!.toLowerCase());
  return {
    writes: all(
      /\b(?:insert\s+into|delete\s+from|update)\s+([a-z_][a-z0-9_]*)\b(?=[\s\S]{0,200}?\b(?:set|values|select|where|\(|returning|on)\b)/gi,
    ),
    reads: all(/\b(?:from|join)\s+([a-z_][a-z0-9_]*)\b/gi),
  };
}

describe('architecture', () => {
  it('every table of the migrations has exactly one owner', () => {
    const tables = readdirSync(migrations)
      .filter((f) => f.endsWith('.sql'))
      .flatMap((f) =>
        [
          ...readFileSync(join(migrations, f), 'utf8').matchAll(
            /create\s+table\s+(?:if\s+not\s+exists\s+)?([a-z_]+)/gi,
          ),
        ].map((m) => m[1]!),
      );
    expect(tables.length).toBeGreaterThan(10);
    const unowned = tables.filter((t) => !ownerOf(t));
    expect(unowned).toEqual([]);
    const listed = Object.values(OWNERS).flat();
    expect(listed.filter((t, i) => listed.indexOf(t) !== i)).toEqual([]);
  });

  it('finds the tables a statement writes and reads (the rule can fail)', () => {
    expect(tablesIn("await this.db.query('update orders set zujie = $2 where id = $1', [id]);").writes).toEqual([
      'orders',
    ]);
    expect(tablesIn('`insert into ledger_transfers (id) values ($1)`').writes).toEqual(['ledger_transfers']);
    expect(tablesIn('`select o.* from orders o join venues v on v.id = o.venue_id`').reads).toEqual([
      'orders',
      'venues',
    ]);
  });

  it("a repository writes only its own module's tables and reads others only through listed read models", () => {
    const offenders: string[] = [];
    for (const file of tsFiles(root)) {
      const rel = relative(root, file).split('\\').join('/');
      if (!/(^|\/|-)repository\.ts$/.test(rel)) continue;
      const folder = folderOf(rel);
      const { writes, reads } = tablesIn(readFileSync(file, 'utf8'));
      for (const t of writes)
        if (ownerOf(t) && ownerOf(t) !== folder) offenders.push(`${rel} writes ${t} (owner ${ownerOf(t)})`);
      for (const t of reads) {
        if (!ownerOf(t) || ownerOf(t) === folder || READ_MODELS[folder]?.includes(t)) continue;
        offenders.push(`${rel} reads ${t} (owner ${ownerOf(t)})`);
      }
    }
    expect(offenders).toEqual([]);
  });

  it('finds SQL in a service (the rule can fail)', () => {
    expect(sqlLines("await this.db.query('select * from orders where id = $1', [id]);")).toHaveLength(1);
    expect(sqlLines('  `insert into jobs (kind) values ($1)`,')).toHaveLength(1);
    expect(sqlLines('// select the order from the list')).toHaveLength(0);
    expect(sqlLines("throw refused('error.wallet.insufficientBalance');")).toHaveLength(0);
  });

  it('has SQL only in repository files and the db layer', () => {
    const offenders: string[] = [];
    for (const file of tsFiles(root)) {
      const rel = relative(root, file).split('\\').join('/');
      if (allowed(rel)) continue;
      for (const line of sqlLines(readFileSync(file, 'utf8'))) offenders.push(`${rel}: ${line.trim().slice(0, 120)}`);
    }
    expect(offenders).toEqual([]);
  });

  it('a module imports another only through its public files (service, listed shapes)', () => {
    const offenders = [...moduleImports()].filter((i) => !i.public).map((i) => `${i.from} → ${i.to}`);
    expect(offenders, "crossings of a wall: go through the owner's service or a public file").toEqual([]);
  });

  it('no two modules import each other', () => {
    const edges = new Set([...moduleImports()].map((i) => `${i.fromModule}>${i.toModule}`));
    const cycles = [...edges]
      .map((e) => e.split('>') as [string, string])
      .filter(([a, b]) => a < b && edges.has(`${b}>${a}`))
      .map(([a, b]) => `${a} ↔ ${b}`);
    expect(cycles, 'modules importing each other: invert one side (a port given at wiring)').toEqual([]);
  });

  it("no module reaches into payments' repository or provider registry: it goes through PaymentsService", () => {
    const offenders = tsFiles(root)
      .map((file) => relative(root, file).split('\\').join('/'))
      .filter((rel) => !rel.startsWith('modules/payments/'))
      .flatMap((rel) => (PAYMENTS_INTERNALS.test(readFileSync(join(root, rel), 'utf8')) ? [rel] : []));
    expect(offenders).toEqual([]);
    expect(PAYMENTS_INTERNALS.test('const p = await this.d.payments.repo.byRef(id, ref);'), 'the rule can fail').toBe(
      true,
    );
    expect(PAYMENTS_INTERNALS.test('this.d.payments.providers.get(id)'), 'the rule can fail').toBe(true);
    expect(PAYMENTS_INTERNALS.test('this.d.payments.byRef(id, ref)')).toBe(false);
  });

  it('finds a crossing of a wall (the rule can fail)', () => {
    const found = importsOf(
      "import type { X } from '../payments/repository.ts';\nimport { y } from './local.ts';",
      'modules/rentals/debts.ts',
    );
    expect(found).toEqual([
      {
        from: 'modules/rentals/debts.ts',
        to: 'modules/payments/repository.ts',
        fromModule: 'rentals',
        toModule: 'payments',
        public: false,
      },
    ]);
  });

  it('has no source file above 400 lines', () => {
    const long = [root, fileURLToPath(new URL('../../src', import.meta.url))]
      .flatMap((dir) => tsFiles(dir, true))
      .filter((f) => readFileSync(f, 'utf8').trimEnd().split('\n').length > MAX_LINES)
      .map((f) =>
        relative(fileURLToPath(new URL('../..', import.meta.url)), f)
          .split('\\')
          .join('/'),
      );
    expect(
      long.filter((f) => !LONG_FILES.includes(f)),
      'split by use case',
    ).toEqual([]);
    expect(
      LONG_FILES.filter((f) => !long.includes(f)),
      'fixed: remove them from LONG_FILES',
    ).toEqual([]);
  });
});

const MAX_LINES = 400;

/** A use of PaymentsService's repository or provider registry (its internals) from another module. */
const PAYMENTS_INTERNALS = /\bpayments\.(repo|providers)\b/;

/** What each module makes public to the others: its service and the shared shapes listed (paths inside the module). */
const PUBLIC: Record<string, readonly string[]> = {
  audit: ['service.ts'],
  // Read models of the support desk and of return claims (a rider's search fields, an order's history and a return's
  // evidence in each owning module), the SMS gateway other modules send through, and the live-session rule the scan's
  // one-round-trip read shares.
  auth: ['service.ts', 'riders-repository.ts', 'adapters.ts', 'live-session-repository.ts'],
  // The cabinets' part of a rent and a return (stock.ts), and the ports the modules built on them fill (ports.ts).
  cabinets: [
    'service.ts',
    'protocol.ts',
    'link.ts',
    'liveness.ts',
    'history-repository.ts',
    'evidence-repository.ts',
    'stock.ts',
    'ports.ts',
  ],
  content: ['service.ts'],
  coupons: ['service.ts'],
  embed: ['service.ts'],
  // An account's history, and the invariants a check reads (the wallet's reconcile).
  ledger: ['service.ts', 'history-repository.ts', 'checks-repository.ts'],
  live: ['service.ts'],
  // Infrastructure: the storage adapter of uploaded files and the image checks (no tables, no service).
  media: ['store.ts', 'images.ts'],
  mifi: ['service.ts'],
  notify: ['service.ts', 'mailer.ts'],
  // The charge lifecycle's parts every paying flow uses: the provider interface, the purposes, the charge guard and
  // its purpose handlers, compensation, payouts.
  payments: [
    'service.ts',
    'provider.ts',
    'purposes.ts',
    'compensation.ts',
    'guards.ts',
    'payouts/rail.ts',
    'history-repository.ts',
  ],
  rentals: ['service.ts', 'order-state.ts'],
  rebalancing: ['service.ts'],
  staff: ['service.ts'],
  // The venue and plan rows and rules the scan's one-round-trip read shares.
  venues: ['service.ts', 'read-model-repository.ts'],
  wallet: ['service.ts'],
};

/** Files still above MAX_LINES (repository-relative). */
const LONG_FILES: readonly string[] = [
  'server/src/modules/payments/methods/alipay.ts',
  'server/src/modules/payments/methods/flutterwave.ts',
  'server/src/modules/payments/methods/mercadopago.ts',
  'server/src/modules/payments/methods/mpesa.ts',
  'server/src/modules/payments/methods/paypal.ts',
  'server/src/modules/payments/methods/wechatpay.ts',
  'server/src/modules/payments/provider.ts',
  'server/src/modules/payments/repository.ts',
  'server/src/modules/payments/sandbox.ts',
  'server/src/modules/payments/service.ts',
  'server/src/modules/rentals/renting.ts',
  'src/contract/ops-fleet.ts',
  'src/mifi/WifiMall.tsx',
  'src/pay/Confirm.tsx',
];

interface ModuleImport {
  from: string;
  to: string;
  fromModule: string;
  toModule: string;
  public: boolean;
}

/** The imports of another module in `source` (a file at `rel` under server/src). */
function importsOf(source: string, rel: string): ModuleImport[] {
  const fromModule = /^modules\/([^/]+)\//.exec(rel)?.[1];
  if (!fromModule) return [];
  return [...source.matchAll(/^\s*(?:import|export)\b[^;]*?\bfrom\s+'(\.[^']+)'/gm)].flatMap((m) => {
    const to = join(rel, '..', m[1]!).split('\\').join('/');
    const target = /^modules\/([^/]+)\/(.+)$/.exec(to);
    if (!target || target[1] === fromModule) return [];
    return [
      { from: rel, to, fromModule, toModule: target[1]!, public: (PUBLIC[target[1]!] ?? []).includes(target[2]!) },
    ];
  });
}

function* moduleImports(): Generator<ModuleImport> {
  for (const file of tsFiles(join(root, 'modules')))
    yield* importsOf(readFileSync(file, 'utf8'), relative(root, file).split('\\').join('/'));
}
