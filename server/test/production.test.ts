// Production posture: SANDBOX=off or NODE_ENV=production starts no demo and refuses to start without
// its secrets (EMBED_SIGNING_KEY, the webhook secret, broker credentials for MQTT_URL); sandbox secrets are made per
// installation, never constants in the source; the retention sweeps keep the growing tables bounded.
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, productionRefusals } from '../src/config.ts';
import { openPglite } from '../src/db/db.ts';
import { migrate } from '../src/db/migrate.ts';
import { RETENTION, sweepAll } from '../src/jobs/retention.ts';
import { SecretsRepository } from '../src/secrets/repository.ts';
import { build, type Built } from './helper.ts';

const KEY = 'k'.repeat(40);

describe('configuration', () => {
  it('NODE_ENV=production means SANDBOX=off, and refuses SANDBOX=on', () => {
    expect(loadConfig({ NODE_ENV: 'production' })).toMatchObject({ sandbox: 'off', production: true });
    expect(loadConfig({ SANDBOX: 'off' }).production).toBe(true);
    expect(loadConfig({}).production).toBe(false);
    expect(() => loadConfig({ NODE_ENV: 'production', SANDBOX: 'on' })).toThrow(/NODE_ENV=production/);
  });

  it('production names every missing secret; a complete configuration has none', () => {
    const missing = productionRefusals(loadConfig({ NODE_ENV: 'production' })).join('\n');
    expect(missing).toContain('EMBED_SIGNING_KEY');
    expect(missing).toContain('STRIPE_WEBHOOK_SECRET');
    expect(
      productionRefusals(
        loadConfig({ SANDBOX: 'off', EMBED_SIGNING_KEY: 'powerly-dev-embed-signing-key', STRIPE_WEBHOOK_SECRET: 'w' }),
      ).join(),
    ).toContain('EMBED_SIGNING_KEY'); // the old public development key is no key
    const ext = {
      NODE_ENV: 'production',
      EMBED_SIGNING_KEY: KEY,
      STRIPE_WEBHOOK_SECRET: 'whsec_x',
      MQTT_URL: 'mqtt://broker:1883',
    };
    expect(productionRefusals(loadConfig(ext)).join()).toContain('MQTT_USERNAME');
    expect(productionRefusals(loadConfig({ ...ext, MQTT_USERNAME: 'powerly-server', MQTT_PASSWORD: 'p' }))).toEqual([]);
    expect(productionRefusals(loadConfig({ ...ext, MQTT_URL: 'mqtts://srv:pw@broker:8883' }))).toEqual([]);
    // Without MQTT_URL the embedded broker authenticates every client, on 127.0.0.1 unless MQTT_HOST says otherwise.
    expect(loadConfig({}).mqttHost).toBe('127.0.0.1');
    expect(
      productionRefusals(loadConfig({ NODE_ENV: 'production', EMBED_SIGNING_KEY: KEY, STRIPE_WEBHOOK_SECRET: 'w' })),
    ).toEqual([]);
  });

  it('TRUST_PROXY: off by default; true, a hop count or addresses', () => {
    expect(loadConfig({}).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: 'true' }).trustProxy).toBe(true);
    expect(loadConfig({ TRUST_PROXY: '2' }).trustProxy).toBe(2);
    expect(loadConfig({ TRUST_PROXY: '10.0.0.0/8, 192.168.1.4' }).trustProxy).toEqual(['10.0.0.0/8', '192.168.1.4']);
  });
});

/** Runs `npm run serve`'s entry with `env`; resolves with its exit code and output once it exits. */
function serve(env: Record<string, string>): Promise<{ code: number | null; out: string }> {
  const root = fileURLToPath(new URL('../..', import.meta.url));
  return new Promise((resolve) => {
    const p = spawn(process.execPath, ['--import', 'tsx', 'server/src/main.ts'], {
      cwd: root,
      env: { PATH: process.env.PATH ?? '', MQTT_PORT: 'off', PORT: '0', DEMO_PARTNER_PORT: 'off', ...env },
    });
    let out = '';
    p.stdout.on('data', (d: Buffer) => (out += d.toString()));
    p.stderr.on('data', (d: Buffer) => (out += d.toString()));
    // A bound for a server that never exits, not an expectation of speed: a loaded machine took over 60 s to load
    // the server's modules and migrate its database.
    const kill = setTimeout(() => p.kill('SIGKILL'), 240_000);
    p.on('exit', (code) => {
      clearTimeout(kill);
      resolve({ code, out });
    });
  });
}

describe('main.ts in production', () => {
  it('refuses to start without EMBED_SIGNING_KEY and the webhook secret, before touching anything', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'powerly-prod-'));
    const r = await serve({ NODE_ENV: 'production', DATA_DIR: dataDir });
    expect(r.code).toBe(1);
    expect(r.out).toContain('EMBED_SIGNING_KEY');
    expect(r.out).toContain('STRIPE_WEBHOOK_SECRET');
    expect(r.out).not.toContain('Powerly is running');
  }, 300_000);

  it('with its secrets: no demo seed (no venue, no cabinet is made), whatever else', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'powerly-prod-'));
    // It still stops at buildApp (no real card provider in this build), after the database and before listening.
    const r = await serve({
      NODE_ENV: 'production',
      DATA_DIR: dataDir,
      EMBED_SIGNING_KEY: KEY,
      STRIPE_WEBHOOK_SECRET: 'whsec_test',
      SIMULATOR: 'on',
    });
    expect(r.code).toBe(1);
    expect(r.out).toContain('SANDBOX=off');
    const db = await openPglite(dataDir);
    try {
      const { rows } = await db.query<{ v: number; c: number }>(
        'select (select count(*)::int from venues) as v, (select count(*)::int from cabinets) as c',
      );
      expect(rows[0]).toEqual({ v: 0, c: 0 });
    } finally {
      await db.close();
    }
  }, 300_000);
});

describe('per-installation secrets', () => {
  it('are random on first use and the same for every process on the database', async () => {
    const one = await openPglite();
    const two = await openPglite();
    try {
      await migrate(one);
      await migrate(two);
      const a = await new SecretsRepository(one).get('sandbox.webhook-secret');
      expect(await new SecretsRepository(one).get('sandbox.webhook-secret')).toBe(a);
      expect(await new SecretsRepository(two).get('sandbox.webhook-secret')).not.toBe(a);
      expect(a).toMatch(/^[A-Za-z0-9_-]{43}$/);
    } finally {
      await one.close();
      await two.close();
    }
  }, 120_000); // two embedded databases and their migrations: slow on a loaded machine
});

describe('retention', () => {
  let b: Built;
  beforeAll(async () => {
    b = await build({ simulator: false });
  });
  afterAll(async () => {
    await b?.close();
  });

  it('sweeps each growing table after its documented period and keeps what is younger (and dead jobs)', async () => {
    expect(RETENTION.map((r) => r.table).sort()).toEqual([
      'captchas',
      'idempotency_keys',
      'jobs',
      'otp_sends',
      'rate_limits',
      'web_vitals',
    ]);
    const now = b.clock.now();
    const daysAgo = (d: number) => new Date(now.getTime() - d * 86_400_000);
    await b.db.query(
      `insert into jobs (kind, payload, run_at, done_at) values ('old', '{}', $1, $1), ('young', '{}', $2, $2)`,
      [daysAgo(31), daysAgo(29)],
    );
    await b.db.query(`insert into jobs (kind, payload, run_at, dead_at) values ('dead', '{}', $1, $1)`, [daysAgo(400)]);
    await b.db.query(
      `insert into web_vitals (shape, name, value, rating, created_at) values ('app', 'LCP', 1, 'good', $1), ('app', 'LCP', 1, 'good', $2)`,
      [daysAgo(91), daysAgo(1)],
    );
    await b.db.query(`insert into otp_sends (mobile, ip, created_at) values ('1', 'x', $1), ('2', 'x', $2)`, [
      daysAgo(3),
      daysAgo(1),
    ]);
    await b.db.query(
      `insert into captchas (uuid, answer_hash, expires_at) values ('old-captcha', 'h', $1), ('new-captcha', 'h', $2)`,
      [daysAgo(2), now],
    );
    const swept = await sweepAll(b.db, now);
    expect(swept).toMatchObject({ jobs: 1, web_vitals: 1, otp_sends: 1, captchas: 1 });
    const { rows } = await b.db.query<{ kind: string }>(
      `select kind from jobs where kind in ('old', 'young', 'dead') order by kind`,
    );
    expect(rows.map((r) => r.kind)).toEqual(['dead', 'young']);
  });
});
