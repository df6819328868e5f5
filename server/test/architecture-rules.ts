// The rules server/test/architecture.test.ts checks, and the walks of the source tree it checks them on: where SQL
// may live, the owner of every table and the read models of others' tables, and the files each module makes public.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/** server/src. */
export const root = fileURLToPath(new URL('../src', import.meta.url));
/** The repository's root. */
export const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
export const migrations = fileURLToPath(new URL('../migrations', import.meta.url));

export function tsFiles(dir: string, tsx = false): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return tsFiles(p, tsx);
    return p.endsWith('.ts') || (tsx && p.endsWith('.tsx')) ? [p] : [];
  });
}

export const allowed = (rel: string) => /(^|\/|-)repository\.ts$/.test(rel) || rel.startsWith('db/');

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

/** The owning folder (under server/src) of every table. */
export const OWNERS: Record<string, readonly string[]> = {
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
export const READ_MODELS: Record<string, readonly string[]> = {
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

export const ownerOf = (table: string) => Object.entries(OWNERS).find(([, tables]) => tables.includes(table))?.[0];
export const folderOf = (rel: string) => rel.replace(/\/[^/]*$/, '');

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

export const MAX_LINES = 400;

/** The .ts and .tsx files under `dirs` above MAX_LINES, as formatted (repository-relative). */
export function longFiles(dirs: string[]): string[] {
  return dirs
    .flatMap((dir) => tsFiles(dir, true))
    .filter((f) => readFileSync(f, 'utf8').trimEnd().split('\n').length > MAX_LINES)
    .map((f) => relative(repoRoot, f).split('\\').join('/'));
}

/** A use of PaymentsService's repository or provider registry (its internals) from another module. */
export const PAYMENTS_INTERNALS = /\bpayments\.(repo|providers)\b/;

/** What each module makes public to the others: its service and the shared shapes listed (paths inside the module). */
export const PUBLIC: Record<string, readonly string[]> = {
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

interface ModuleImport {
  from: string;
  to: string;
  fromModule: string;
  toModule: string;
  public: boolean;
}

/** The imports of another module in `source` (a file at `rel` under server/src). */
export function importsOf(source: string, rel: string): ModuleImport[] {
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

export function* moduleImports(): Generator<ModuleImport> {
  for (const file of tsFiles(join(root, 'modules')))
    yield* importsOf(readFileSync(file, 'utf8'), relative(root, file).split('\\').join('/'));
}
