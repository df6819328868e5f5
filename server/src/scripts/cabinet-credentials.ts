// npm run cabinet:credentials -- <cabinetId> [--mosquitto <dir>]
// Issues a new MQTT password for a cabinet (username = the cabinet id): prints it ONCE (to be put into the
// cabinet), stores only its hash (PBKDF2-SHA512 in Mosquitto's format) where the embedded broker checks it.
// With --mosquitto <dir> it also writes <dir>/passwd and <dir>/acl for a Mosquitto broker from every issued
// credential plus the server's own user (MQTT_USERNAME / MQTT_PASSWORD, if set); see docs/operations.md.
// Without a cabinet id and with --mosquitto, only the files are written. Database: as `npm run serve`.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig } from '../config.ts';
import { openDb } from '../db/db.ts';
import { migrate } from '../db/migrate.ts';
import { hashPassword, issueCabinetCredentials, mosquittoAclFile, mosquittoPasswordFile } from '../modules/cabinets/credentials.ts';
import { CabinetCredentialsRepository } from '../modules/cabinets/credentials-repository.ts';

const args = process.argv.slice(2);
const at = args.indexOf('--mosquitto');
const dir = at >= 0 ? args[at + 1] : undefined;
const cabinetId = args.find((a, i) => !a.startsWith('--') && (at < 0 || i !== at + 1));
if (!cabinetId && !dir) {
  console.error('usage: npm run cabinet:credentials -- <cabinetId> [--mosquitto <dir>]');
  process.exit(2);
}

const cfg = loadConfig();
if (!cfg.databaseUrl) mkdirSync(cfg.dataDir, { recursive: true });
const db = await openDb({ databaseUrl: cfg.databaseUrl, dataDir: cfg.dataDir, schema: process.env.DB_SCHEMA || undefined });
try {
  await migrate(db);
  const repo = new CabinetCredentialsRepository(db);
  if (cabinetId) {
    const password = await issueCabinetCredentials(repo, cabinetId, new Date());
    console.info(`cabinet ${cabinetId}: MQTT username "${cabinetId}", password (shown once, store it in the cabinet):\n${password}`);
  }
  if (dir) {
    mkdirSync(dir, { recursive: true });
    const entries = (await repo.all()).map((r) => ({ username: r.cabinet_id, hash: r.password_hash }));
    if (cfg.mqttUsername && cfg.mqttPassword) entries.unshift({ username: cfg.mqttUsername, hash: hashPassword(cfg.mqttPassword) });
    writeFileSync(join(dir, 'passwd'), mosquittoPasswordFile(entries), { mode: 0o600 });
    writeFileSync(join(dir, 'acl'), mosquittoAclFile(cfg.mqttPrefix, cfg.mqttUsername));
    console.info(`wrote ${join(dir, 'passwd')} (${entries.length} user(s)) and ${join(dir, 'acl')}`);
  }
} catch (err) {
  console.error(`cabinet:credentials: ${err instanceof Error ? err.message : String(err)}`);
  process.exitCode = 1;
} finally {
  await db.close();
}
