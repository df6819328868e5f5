// npm run ledger:check — verifies the ledger invariants (server/src/modules/wallet/reconcile.ts) on a live
// database: DATABASE_URL (optionally DB_SCHEMA), else the PGlite data folder (DATA_DIR, default ./data/pglite).
// Prints each violation and exits 1 when there is one; exits 0 when all hold.
import { existsSync } from 'node:fs';
import { loadConfig } from '../config.ts';
import { openDb } from '../db/db.ts';
import { LedgerRepository } from '../modules/ledger/repository.ts';
import { checkLedger } from '../modules/wallet/reconcile.ts';

const cfg = loadConfig();
if (!cfg.databaseUrl && !existsSync(cfg.dataDir)) {
  console.error(`ledger:check: no database (set DATABASE_URL, or DATA_DIR; ${cfg.dataDir} does not exist)`);
  process.exit(2);
}
const db = await openDb({
  databaseUrl: cfg.databaseUrl,
  dataDir: cfg.dataDir,
  schema: process.env.DB_SCHEMA || undefined,
});
try {
  const violations = await checkLedger(db);
  for (const r of await new LedgerRepository(db).summary())
    console.info(`${r.currency}: ${r.accounts} accounts, ${r.transfers} transfers`);
  for (const v of violations) console.error(`VIOLATION ${v.invariant}: ${v.detail}`);
  console.info(
    violations.length
      ? `ledger:check FAILED (${violations.length} violation(s))`
      : 'ledger:check OK: every invariant holds',
  );
  process.exitCode = violations.length ? 1 : 0;
} finally {
  await db.close();
}
