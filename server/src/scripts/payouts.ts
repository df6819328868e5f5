// npm run payouts -- list
// npm run payouts -- record <withdrawalId> <bankReference> --by <who> [--note <text>]
// npm run payouts -- reject <withdrawalId> <reason> --by <who>
// npm run payouts -- approve <withdrawalId> --by <who>   (pays it through the payout adapter configured for its channel)
// The bank payouts awaiting an operator (no payout adapter pays their channel, or it needs a person), oldest first;
// `record` marks one paid with the bank transfer's reference, `reject` gives the money back to the rider's wallet.
// Both go through the wallet's bank payouts (modules/wallet/bank-payouts.ts): one unit of work under the withdrawal's
// lock, idempotent (the same record again changes nothing). Database: as `npm run serve`. Exits 1 on a refusal.
import { existsSync } from 'node:fs';
import { toDecimalText } from '#core/money.ts';
import { loadConfig } from '../config.ts';
import { payoutRailsFromEnv } from '../config/payouts-rails.ts';
import { openDb } from '../db/db.ts';
import { JobRunner } from '../jobs/runner.ts';
import { systemClock } from '../lib/clock.ts';
import { AppError } from '../lib/errors.ts';
import { LedgerRepository } from '../modules/ledger/repository.ts';
import { LedgerService } from '../modules/ledger/service.ts';
import { LiveRepository } from '../modules/live/repository.ts';
import { LiveService } from '../modules/live/service.ts';
import { BankPayouts } from '../modules/wallet/bank-payouts.ts';
import { WalletRepository } from '../modules/wallet/repository.ts';

const usage =
  'usage: npm run payouts -- list | record <withdrawalId> <bankReference> --by <who> [--note <text>] | reject <withdrawalId> <reason> --by <who> | approve <withdrawalId> --by <who>';
const args = process.argv.slice(2);
const flag = (name: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args.splice(i, 2)[1] : undefined;
};
const by = flag('by');
const note = flag('note');
const [cmd, id, text] = args;

const cfg = loadConfig();
if (!cfg.databaseUrl && !existsSync(cfg.dataDir)) {
  console.error(`payouts: no database (set DATABASE_URL, or DATA_DIR; ${cfg.dataDir} does not exist)`);
  process.exit(2);
}
const db = await openDb({
  databaseUrl: cfg.databaseUrl,
  dataDir: cfg.dataDir,
  schema: process.env.DB_SCHEMA || undefined,
});
const log = console;
const bank = new BankPayouts({
  db,
  clock: systemClock,
  log,
  repo: new WalletRepository(db),
  ledger: new LedgerService(new LedgerRepository(db), db),
  jobs: new JobRunner(db, systemClock, log),
  live: new LiveService({ db, repo: new LiveRepository(db), clock: systemClock, log }),
  // The real payout adapters configured as for the server (approve pays through them; the server's jobs follow it).
  rails: payoutRailsFromEnv(process.env).rails,
});
try {
  if (cmd === 'list' || cmd === undefined) {
    const rows = await bank.awaiting(1000);
    for (const w of rows) {
      console.info(
        [
          w.id,
          new Date(w.created_at).toISOString(),
          `${toDecimalText(Number(w.amount), w.currency)} ${w.currency}`,
          `user ${w.user_id}`,
          w.channel_id ?? '',
          JSON.stringify(w.account_data ?? {}),
          w.settle_reason ?? '',
          w.provider_ref ? `provider ${w.provider}:${w.provider_ref}` : '',
        ].join('\t'),
      );
    }
    console.info(rows.length ? `${rows.length} payout(s) awaiting an operator` : 'no payouts awaiting an operator');
  } else if (cmd === 'approve' && id && by) {
    const w = await bank.approvePayout(id, by);
    console.info(`${w.id}: ${w.status} through ${w.provider ?? '?'}, approved by ${w.approved_by}`);
  } else if ((cmd === 'record' || cmd === 'reject') && id && text && by) {
    const w =
      cmd === 'record' ? await bank.recordManualPayout(id, text, by, note) : await bank.rejectPayout(id, text, by);
    console.info(`${w.id}: ${w.status}${w.bank_reference ? ` (${w.bank_reference})` : ''}, by ${w.settled_by}`);
  } else {
    console.error(usage);
    process.exitCode = 2;
  }
} catch (e) {
  if (!(e instanceof AppError)) throw e;
  console.error(
    `payouts: refused (${e.code} ${e.key}${Object.keys(e.params ?? {}).length ? ` ${JSON.stringify(e.params)}` : ''})`,
  );
  process.exitCode = 1;
} finally {
  await db.close();
}
