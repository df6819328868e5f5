// npm run cabinet:inbox — what an operator must look at on the cabinet side (docs/cabinet-protocol.md):
//   (no argument)          the inbox counts by state, every dead event (with its last error), refused messages
//                          (unknown protocol version, malformed, unknown cabinet) and quarantined power banks
//   pending                the pending events instead of the dead ones
//   retry <cabinet:event>  sends a dead event back to processing (after its cause is fixed)
//   release <powerbankId>  registers a quarantined power bank: it becomes lendable in the slot it is in
// Database: DATABASE_URL (optionally DB_SCHEMA), else the PGlite data folder (DATA_DIR). Exit 1 on a refused action.
import { existsSync } from 'node:fs';
import { loadConfig } from '../config.ts';
import { openDb } from '../db/db.ts';
import { fleetServices } from '../fleet.ts';
import { systemClock } from '../lib/clock.ts';

const cfg = loadConfig();
if (!cfg.databaseUrl && !existsSync(cfg.dataDir)) {
  console.error(`cabinet:inbox: no database (set DATABASE_URL, or DATA_DIR; ${cfg.dataDir} does not exist)`);
  process.exit(2);
}
const [action = 'list', arg] = process.argv.slice(2);
const db = await openDb({
  databaseUrl: cfg.databaseUrl,
  dataDir: cfg.dataDir,
  schema: process.env.DB_SCHEMA || undefined,
});
const { cabinets } = fleetServices({ db, clock: systemClock });
try {
  if (action === 'retry' && arg) {
    const ok = await cabinets.retryEvent(arg);
    console.info(
      ok
        ? `${arg}: pending again, the inbox poller of a running server processes it`
        : `${arg}: no dead event with this id`,
    );
    process.exitCode = ok ? 0 : 1;
  } else if (action === 'release' && arg) {
    const ok = await cabinets.releasePowerbank(arg);
    console.info(ok ? `${arg}: released, lendable where it is` : `${arg}: not quarantined`);
    process.exitCode = ok ? 0 : 1;
  } else if (action === 'list' || action === 'pending') {
    const state = action === 'pending' ? 'pending' : 'dead';
    const { counts, events, rejects, quarantined: q } = await cabinets.inbox(state);
    console.info(`inbox: ${counts.map((c) => `${c.state} ${c.n}`).join(', ') || 'empty'}`);
    for (const e of events) {
      console.info(
        `  ${e.state} ${e.id} ${e.type} received ${new Date(e.received_at).toISOString()} attempts ${e.attempts}: ${e.last_error ?? ''}`,
      );
    }
    console.info(`refused messages: ${rejects.length ? '' : 'none'}`);
    for (const r of rejects)
      console.info(
        `  ${r.cabinet_id} ${r.reason} ×${r.count}, last ${new Date(r.last_at).toISOString()}: ${r.last_payload ?? ''}`,
      );
    console.info(`quarantined power banks: ${q.length ? '' : 'none'}`);
    for (const b of q) console.info(`  ${b.id} in ${b.cabinet_id ?? '?'} slot ${b.slot ?? '?'}`);
  } else {
    console.error('usage: npm run cabinet:inbox [-- pending | retry <cabinetId:eventId> | release <powerbankId>]');
    process.exitCode = 2;
  }
} finally {
  await db.close();
}
