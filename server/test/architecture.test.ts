// Architecture rules of the server (DESIGN.md "Server"), checked on the source tree:
//   SQL lives only in repositories (files named repository.ts or <something>-repository.ts) and in the db layer
//   (server/src/db: connection, migrations runner). Services, routes, jobs, adapters and scripts reach tables
//   through a repository, so every statement has one owner and runs in the current unit of work.
//   Every table of the migrations has exactly one owning module (OWNERS); only the owner's repository writes
//   it. A repository may read another module's table only in a join listed in READ_MODELS (one-round-trip
//   views on hot paths: the scan, the map, the order lists).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../src', import.meta.url));

function tsFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return tsFiles(p);
    return p.endsWith('.ts') ? [p] : [];
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
  'modules/auth': ['users', 'sessions', 'user_identities', 'captchas', 'otp_sends', 'otp_codes', 'sms_outbox', 'user_more'],
  'modules/venues': ['venues', 'price_plans'],
  'modules/cabinets': ['cabinets', 'powerbanks', 'cabinet_events', 'cabinet_commands', 'cabinet_credentials', 'cabinet_rejects'],
  'modules/rentals': ['orders', 'deposit_returns', 'disputes'],
  'modules/ledger': ['ledger_accounts', 'ledger_transfers'],
  'modules/wallet': ['withdrawals', 'saved_cards', 'card_setups'],
  'modules/payments': [
    'payments', 'payment_transitions', 'payment_refund_keys', 'payment_starts', 'provider_events', 'payment_customers',
    'sandbox_tokens', 'sandbox_payment_methods', 'sandbox_setup_intents', 'sandbox_intents', 'sandbox_payouts',
  ],
  'modules/payments/methods': ['external_payments', 'external_method_tokens', 'sandbox_method_payments'],
  'modules/content': ['help_items', 'crm_leads'],
  'modules/embed': ['agents', 'web_vitals', 'embed_codes'],
  'modules/notify': ['order_receipts', 'rental_notices', 'notice_deliveries', 'notice_prefs', 'push_subscriptions', 'agent_return_settings'],
  'modules/live': ['live_tickets'],
  'modules/staff': ['staff', 'staff_memberships', 'staff_sessions', 'staff_invitations', 'staff_passkeys', 'staff_ceremonies'],
  'modules/audit': ['audit_log'],
  'modules/mifi': ['mifi_regions', 'mifi_countries', 'mifi_skus', 'mifi_sku_prices', 'mifi_orders', 'mifi_packages', 'mifi_boxes', 'mifi_telemetry', 'mifi_payment_actions'],
  jobs: ['jobs'],
  idempotency: ['idempotency_keys'],
  secrets: ['installation_secrets'],
  plugins: ['rate_limits'],
};

/** Reads of another module's tables, in joins of one query (never writes): repository folder → tables. */
const READ_MODELS: Record<string, readonly string[]> = {
  // The scan (checkisok) in one round trip: the session (auth's rule), venue, price plan, wallet balance, open rentals.
  'modules/cabinets': ['venues', 'price_plans', 'ledger_accounts', 'orders', 'sessions', 'users'],
  // Order lists and details carry the venue's name.
  'modules/rentals': ['venues'],
  // A rental's notices follow the settings of its venue's agent.
  'modules/notify': ['venues'],
  // The map's stock counts per venue.
  'modules/venues': ['cabinets', 'powerbanks'],
};

const ownerOf = (table: string) => Object.entries(OWNERS).find(([, tables]) => tables.includes(table))?.[0];
const folderOf = (rel: string) => rel.replace(/\/[^/]*$/, '');

/** Tables a source writes (insert into / update … set / delete from) and reads (from / join). */
export function tablesIn(source: string): { writes: string[]; reads: string[] } {
  const code = source.split('\n').filter((line) => !/^\s*(\/\/|\*|\/\*)/.test(line)).join('\n');
  const all = (re: RegExp) => [...code.matchAll(re)].map((m) => m[1]!.toLowerCase());
  return {
    writes: all(/\b(?:insert\s+into|delete\s+from|update)\s+([a-z_][a-z0-9_]*)\b(?=[\s\S]{0,200}?\b(?:set|values|select|where|\(|returning|on)\b)/gi),
    reads: all(/\b(?:from|join)\s+([a-z_][a-z0-9_]*)\b/gi),
  };
}

describe('architecture', () => {
  it('every table of the migrations has exactly one owner', () => {
    const tables = readdirSync(migrations)
      .filter((f) => f.endsWith('.sql'))
      .flatMap((f) => [...readFileSync(join(migrations, f), 'utf8').matchAll(/create\s+table\s+(?:if\s+not\s+exists\s+)?([a-z_]+)/gi)].map((m) => m[1]!));
    expect(tables.length).toBeGreaterThan(10);
    const unowned = tables.filter((t) => !ownerOf(t));
    expect(unowned).toEqual([]);
    const listed = Object.values(OWNERS).flat();
    expect(listed.filter((t, i) => listed.indexOf(t) !== i)).toEqual([]);
  });

  it('finds the tables a statement writes and reads (the rule can fail)', () => {
    expect(tablesIn("await this.db.query('update orders set zujie = $2 where id = $1', [id]);").writes).toEqual(['orders']);
    expect(tablesIn('`insert into ledger_transfers (id) values ($1)`').writes).toEqual(['ledger_transfers']);
    expect(tablesIn('`select o.* from orders o join venues v on v.id = o.venue_id`').reads).toEqual(['orders', 'venues']);
  });

  it("a repository writes only its own module's tables and reads others only through listed read models", () => {
    const offenders: string[] = [];
    for (const file of tsFiles(root)) {
      const rel = relative(root, file).split('\\').join('/');
      if (!/(^|\/|-)repository\.ts$/.test(rel)) continue;
      const folder = folderOf(rel);
      const { writes, reads } = tablesIn(readFileSync(file, 'utf8'));
      for (const t of writes) if (ownerOf(t) && ownerOf(t) !== folder) offenders.push(`${rel} writes ${t} (owner ${ownerOf(t)})`);
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
});
