// npm run jobs:dead [-- --retry <jobId> | --abandon <jobId> --by <who>]
// Lists the jobs that exhausted their attempts (dead: a compensation, capture or payout that needs an operator),
// newest first, with their last error; --retry <id> makes one due again with a fresh attempt budget; --abandon <id>
// ends one without running it again (its cause was handled another way). The back office's Dead jobs screen does the same.
// Exits 1 when there are dead jobs (for monitoring). Database: as `npm run serve`.
import { existsSync } from 'node:fs';
import { loadConfig } from '../config.ts';
import { openDb } from '../db/db.ts';
import { fleetServices } from '../fleet.ts';
import { systemClock } from '../lib/clock.ts';

const cfg = loadConfig();
if (!cfg.databaseUrl && !existsSync(cfg.dataDir)) {
  console.error(`jobs:dead: no database (set DATABASE_URL, or DATA_DIR; ${cfg.dataDir} does not exist)`);
  process.exit(2);
}
const db = await openDb({
  databaseUrl: cfg.databaseUrl,
  dataDir: cfg.dataDir,
  schema: process.env.DB_SCHEMA || undefined,
});
try {
  const { deadJobs } = fleetServices({ db, clock: systemClock });
  const at = process.argv.indexOf('--retry');
  const give = process.argv.indexOf('--abandon');
  const by = process.argv.indexOf('--by');
  if (give >= 0 && by >= 0) {
    const id = Number(process.argv[give + 1]);
    console.info(
      (await deadJobs.abandon(id, String(process.argv[by + 1]))) ? `job ${id} is abandoned` : `job ${id} is not dead`,
    );
  } else if (at >= 0) {
    const id = Number(process.argv[at + 1]);
    console.info((await deadJobs.retry(id)) ? `job ${id} is due again` : `job ${id} is not dead`);
  } else {
    const dead = await deadJobs.list(1000);
    for (const j of dead) {
      console.info(
        `${j.id}\t${new Date(j.dead_at).toISOString()}\t${j.kind}\t${JSON.stringify(j.payload)}\t${j.attempts} attempts\t${j.last_error ?? ''}`,
      );
    }
    console.info(dead.length ? `${dead.length} dead job(s)` : 'no dead jobs');
    process.exitCode = dead.length ? 1 : 0;
  }
} finally {
  await db.close();
}
