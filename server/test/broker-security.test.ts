// Production posture of the cabinet link: the embedded broker listens on 127.0.0.1 unless configured,
// authenticates every network client with the credentials issued by `npm run cabinet:credentials` (stored hashed)
// and holds each cabinet to its own topics; a Mosquitto broker configured with the password file and ACL that the
// command writes enforces the same rules.
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import mqtt, { type MqttClient } from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPglite, type Db } from '../src/db/db.ts';
import { migrate } from '../src/db/migrate.ts';
import { seed } from '../src/db/seed.ts';
import { startEmbeddedBroker, type EmbeddedBroker } from '../src/mqtt/broker.ts';
import {
  cabinetBrokerAuth,
  hashPassword,
  issueCabinetCredentials,
  mosquittoAclFile,
  mosquittoPasswordFile,
} from '../src/modules/cabinets/credentials.ts';
import { CabinetCredentialsRepository } from '../src/modules/cabinets/credentials-repository.ts';

const PREFIX = 'powerly';
let db: Db;
let repo: CabinetCredentialsRepository;
let pwA = '';
let pwB = '';
beforeAll(async () => {
  db = await openPglite();
  await migrate(db);
  await seed(db);
  repo = new CabinetCredentialsRepository(db);
  pwA = await issueCabinetCredentials(repo, 'PWL-SH-001', new Date());
  pwB = await issueCabinetCredentials(repo, 'PWL-VNO-001', new Date());
});
afterAll(async () => db?.close());

/** Connects; resolves the client once connected, rejects with the broker's refusal. */
function connect(url: string, opts: mqtt.IClientOptions): Promise<MqttClient> {
  return new Promise((resolve, reject) => {
    const c = mqtt.connect(url, { protocolVersion: 4, reconnectPeriod: 0, connectTimeout: 5000, ...opts });
    c.once('connect', () => resolve(c));
    c.once('error', (e) => {
      c.end(true);
      reject(e);
    });
  });
}
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** What `sub` receives on `topic` while `act` runs. */
async function received(sub: MqttClient, topic: string, act: () => Promise<unknown>) {
  const got: string[] = [];
  const on = (t: string, p: Buffer) => t === topic && got.push(p.toString());
  sub.on('message', on);
  // A refused publish may never be acknowledged (the broker disconnects the client): do not wait for it.
  await Promise.race([act().catch(() => undefined), pause(1500)]);
  await pause(300);
  sub.off('message', on);
  return got;
}

describe('credentials', () => {
  it("are stored only as a hash in Mosquitto's $7$ format, and the command refuses unknown cabinets", async () => {
    const rows = await repo.all();
    expect(rows.map((r) => r.cabinet_id)).toEqual(['PWL-SH-001', 'PWL-VNO-001']);
    for (const r of rows) {
      expect(r.password_hash).toMatch(/^\$7\$\d+\$[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]+$/);
      expect(r.password_hash).not.toContain(pwA);
    }
    await expect(issueCabinetCredentials(repo, 'NOPE-404', new Date())).rejects.toThrow(/no cabinet/);
    await expect(issueCabinetCredentials(repo, 'PWL/#', new Date())).rejects.toThrow(/not a valid cabinet id/);
  });
});

describe('embedded broker (Aedes)', () => {
  let broker: EmbeddedBroker;
  let url = '';
  let server: MqttClient;
  beforeAll(async () => {
    broker = await startEmbeddedBroker({ port: 0, auth: cabinetBrokerAuth(repo, PREFIX) });
    url = `mqtt://127.0.0.1:${broker.port}`;
    server = broker.connect({ clientId: 'server-test' });
    await new Promise((r) => server.once('connect', r));
    await server.subscribeAsync(`${PREFIX}/cabinets/+/events`, { qos: 1 });
  });
  afterAll(async () => {
    await server?.endAsync();
    await broker?.close();
  });

  it('listens on 127.0.0.1 unless configured', () => {
    expect(broker.host).toBe('127.0.0.1');
  });

  it('refuses a client without credentials or with a wrong password', async () => {
    await expect(connect(url, { clientId: 'anon' })).rejects.toThrow();
    await expect(connect(url, { clientId: 'x1', username: 'PWL-SH-001', password: 'guess' })).rejects.toThrow();
    await expect(connect(url, { clientId: 'x2', username: 'PWL-SH-001', password: pwB })).rejects.toThrow(); // B's password for A
  });

  it('a cabinet publishes only its own events and reads only its own commands', async () => {
    const a = await connect(url, { clientId: 'cab-a', username: 'PWL-SH-001', password: pwA });
    try {
      // Its own events reach the server.
      expect(
        await received(server, `${PREFIX}/cabinets/PWL-SH-001/events`, () =>
          a.publishAsync(`${PREFIX}/cabinets/PWL-SH-001/events`, 'mine', { qos: 1 }),
        ),
      ).toEqual(['mine']);
      // Reading another cabinet's commands is refused (SUBACK failure).
      const granted = await a
        .subscribeAsync(`${PREFIX}/cabinets/PWL-VNO-001/commands`, { qos: 1 })
        .catch(() => [{ qos: 128 }]);
      expect(granted[0]!.qos).toBe(128);
      const wild = await a.subscribeAsync(`${PREFIX}/cabinets/+/commands`, { qos: 1 }).catch(() => [{ qos: 128 }]);
      expect(wild[0]!.qos).toBe(128);
    } finally {
      a.end(true);
    }
    // A `returned` in another cabinet's name never reaches the server.
    const a2 = await connect(url, { clientId: 'cab-a2', username: 'PWL-SH-001', password: pwA });
    try {
      expect(
        await received(server, `${PREFIX}/cabinets/PWL-VNO-001/events`, () =>
          a2.publishAsync(`${PREFIX}/cabinets/PWL-VNO-001/events`, 'forged', { qos: 1 }),
        ),
      ).toEqual([]);
    } finally {
      a2.end(true);
    }
  });
});

const MOSQUITTO = '/usr/sbin/mosquitto';
describe.skipIf(!existsSync(MOSQUITTO))('Mosquitto with the generated password file and ACL', () => {
  let proc: ChildProcess;
  let url = '';
  const serverUser = { username: 'powerly-server', password: 'server-secret-for-the-test' };
  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'powerly-mosq-'));
    chmodSync(dir, 0o755); // started as root, mosquitto drops to its own user, which must read the files
    const entries = [
      { username: serverUser.username, hash: hashPassword(serverUser.password) },
      ...(await repo.all()).map((r) => ({ username: r.cabinet_id, hash: r.password_hash })),
    ];
    writeFileSync(join(dir, 'passwd'), mosquittoPasswordFile(entries));
    writeFileSync(join(dir, 'acl'), mosquittoAclFile(PREFIX, serverUser.username));
    const port = await new Promise<number>((resolve) => {
      const s = net.createServer().listen(0, '127.0.0.1', () => {
        const p = (s.address() as net.AddressInfo).port;
        s.close(() => resolve(p));
      });
    });
    writeFileSync(
      join(dir, 'mosquitto.conf'),
      [
        `listener ${port} 127.0.0.1`,
        'allow_anonymous false',
        `password_file ${join(dir, 'passwd')}`,
        `acl_file ${join(dir, 'acl')}`,
        '',
      ].join('\n'),
    );
    proc = spawn(MOSQUITTO, ['-c', join(dir, 'mosquitto.conf')], { stdio: ['ignore', 'ignore', 'inherit'] });
    url = `mqtt://127.0.0.1:${port}`;
    let up = false;
    for (let i = 0; i < 50 && !up; i++) {
      up = await new Promise<boolean>((r) =>
        net
          .connect(port, '127.0.0.1')
          .once('connect', function (this: net.Socket) {
            this.end();
            r(true);
          })
          .once('error', () => r(false)),
      );
      if (!up) await pause(100);
    }
    expect(up, 'mosquitto listening').toBe(true);
    expect(readFileSync(join(dir, 'acl'), 'utf8')).toContain('pattern write powerly/cabinets/%u/events');
  });
  afterAll(() => {
    proc?.kill();
  });

  it('authenticates with the issued credentials and enforces the same topic rules', async () => {
    await expect(connect(url, { clientId: 'anon' })).rejects.toThrow();
    await expect(connect(url, { clientId: 'bad', username: 'PWL-SH-001', password: 'guess' })).rejects.toThrow();
    const server = await connect(url, { clientId: 'srv', ...serverUser });
    const a = await connect(url, { clientId: 'cab-a', username: 'PWL-SH-001', password: pwA });
    const b = await connect(url, { clientId: 'cab-b', username: 'PWL-VNO-001', password: pwB });
    try {
      await server.subscribeAsync(`${PREFIX}/cabinets/+/events`, { qos: 1 });
      await a.subscribeAsync(`${PREFIX}/cabinets/PWL-VNO-001/commands`, { qos: 1 }).catch(() => undefined);
      await b.subscribeAsync(`${PREFIX}/cabinets/PWL-VNO-001/commands`, { qos: 1 });
      expect(
        await received(server, `${PREFIX}/cabinets/PWL-SH-001/events`, () =>
          a.publishAsync(`${PREFIX}/cabinets/PWL-SH-001/events`, 'mine', { qos: 1 }),
        ),
      ).toEqual(['mine']);
      expect(
        await received(server, `${PREFIX}/cabinets/PWL-VNO-001/events`, () =>
          a.publishAsync(`${PREFIX}/cabinets/PWL-VNO-001/events`, 'forged', { qos: 1 }),
        ),
      ).toEqual([]);
      // The server's command for B reaches B, never A.
      const cmdTopic = `${PREFIX}/cabinets/PWL-VNO-001/commands`;
      const toA: string[] = [];
      a.on('message', (t) => toA.push(t));
      expect(await received(b, cmdTopic, () => server.publishAsync(cmdTopic, 'eject', { qos: 1 }))).toEqual(['eject']);
      expect(toA).toEqual([]);
    } finally {
      for (const c of [server, a, b]) c.end(true);
    }
  });
});
