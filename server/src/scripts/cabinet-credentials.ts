// npm run cabinet:credentials -- <cabinetId> [--mosquitto <dir>]
// Issues (or rotates) the credentials of a cabinet through the cabinets service (CabinetFleetService) and prints them
// ONCE (to be put into the cabinet): the MQTT password (username = the cabinet id), of which only the hash is stored
// (PBKDF2-SHA512 in Mosquitto's format) where the embedded broker checks it; for a cabinet of the binary TCP family
// (vendor tcp60) its token secret instead, stored sealed under CABINET_SECRETS_KEY (modules/cabinets/token-secrets.ts).
// With --mosquitto <dir> it also writes <dir>/passwd and <dir>/acl for a Mosquitto broker from every issued
// credential plus the server's own user (MQTT_USERNAME / MQTT_PASSWORD, if set); see docs/operations.md.
// Without a cabinet id and with --mosquitto, only the files are written. Database: as `npm run serve`.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig } from '../config.ts';
import { openDb } from '../db/db.ts';
import { migrate } from '../db/migrate.ts';
import { fleetServices } from '../fleet.ts';
import { systemClock } from '../lib/clock.ts';
import { cabinetSecretsKey } from '../modules/cabinets/token-secrets.ts';

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
const db = await openDb({
  databaseUrl: cfg.databaseUrl,
  dataDir: cfg.dataDir,
  schema: process.env.DB_SCHEMA || undefined,
});
try {
  await migrate(db);
  const secretsKey = cabinetSecretsKey({
    given: process.env.CABINET_SECRETS_KEY,
    db,
    clock: systemClock,
    sandbox: cfg.sandbox === 'on',
  });
  const { cabinets } = fleetServices({ db, clock: systemClock, secretsKey });
  if (cabinetId) {
    const { password, kind } = await cabinets.issueCredentials(cabinetId);
    console.info(
      kind === 'token-secret'
        ? `cabinet ${cabinetId}: token secret of the TCP family (shown once, set it in the cabinet; its frames are signed with it):\n${password}`
        : `cabinet ${cabinetId}: MQTT username "${cabinetId}", password (shown once, store it in the cabinet):\n${password}`,
    );
  }
  if (dir) {
    mkdirSync(dir, { recursive: true });
    const server =
      cfg.mqttUsername && cfg.mqttPassword ? { username: cfg.mqttUsername, password: cfg.mqttPassword } : undefined;
    const files = await cabinets.mosquittoFiles(cfg.mqttPrefix, server);
    writeFileSync(join(dir, 'passwd'), files.passwd, { mode: 0o600 });
    writeFileSync(join(dir, 'acl'), files.acl);
    console.info(`wrote ${join(dir, 'passwd')} (${files.users} user(s)) and ${join(dir, 'acl')}`);
  }
} catch (err) {
  console.error(`cabinet:credentials: ${err instanceof Error ? err.message : String(err)}`);
  process.exitCode = 1;
} finally {
  await db.close();
}
