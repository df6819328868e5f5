// The served OpenAPI documents hold every operation to what they say (openapi/conformance.ts): generated valid and
// refused inputs for each operation, with a session token where the operation needs one, and every answer checked
// against the declared statuses, content types and schemas; a secured operation without a token must answer 401.
// The documents lint clean with Redocly's recommended rules.
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { InjectOptions } from 'fastify';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build, touristToken, type Built } from './helper.ts';
import { Conformance, needsAuth, type Doc, type Operation } from './openapi/conformance.ts';

const API = '/cdb-app-api/v1/app';
/** Every OpenAPI document the server serves (a new API's document is added here): each lints clean. */
const SERVED_DOCUMENTS = [`${API}/openapi.json`, '/ops-api/v1/openapi.json'];
const root = fileURLToPath(new URL('../../', import.meta.url));
const VALID_RUNS = 6;

let b: Built;
let doc: Doc;
let rider: Conformance;

beforeAll(async () => {
  b = await build();
  doc = (await b.app.inject({ url: `${API}/openapi.json` })).json() as Doc;
  rider = new Conformance(
    doc,
    (r) => b.app.inject(r as InjectOptions),
    (body) => (body as { msg: string }).msg,
  );
}, 180_000);
afterAll(async () => b?.close());

const takesToken = (op: Operation) => (op.security ?? []).some((r) => 'token' in r);

interface Problem {
  ruleId: string;
  severity: string;
  message: string;
  location?: { pointer?: string }[];
}

describe('the served OpenAPI documents lint clean', () => {
  // Redocly CLI (pinned dev dependency) with its recommended rules (redocly.yaml at the top level).
  it.each(SERVED_DOCUMENTS)(
    'Redocly recommended rules: %s',
    async (url) => {
      const res = await b.app.inject({ url });
      expect(res.statusCode).toBe(200);
      const dir = await mkdtemp(join(tmpdir(), 'powerly-openapi-'));
      try {
        const file = join(dir, 'openapi.json');
        await writeFile(file, res.body);
        const out = await promisify(execFile)(
          join(root, 'node_modules/.bin/redocly'),
          ['lint', file, '--config', join(root, 'redocly.yaml'), '--format', 'json'],
          {
            cwd: root,
            env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
            maxBuffer: 64 << 20,
          },
        ).catch((err: { stdout?: string }) => ({ stdout: err.stdout ?? '' }));
        const problems = (JSON.parse(out.stdout) as { problems: Problem[] }).problems.map(
          (p) => `${p.severity} ${p.ruleId} ${p.location?.[0]?.pointer ?? ''}: ${p.message}`,
        );
        expect(problems, problems.join('\n')).toEqual([]);
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
    120_000,
  );
});

describe('every operation of the served OpenAPI document does what it declares', () => {
  it('declares security, error answers and servers on every operation', () => {
    expect((doc as unknown as { servers?: unknown[] }).servers?.length).toBeGreaterThan(0);
    const ops = rider.operations();
    expect(ops.length).toBeGreaterThan(60);
    for (const { path, method, op } of ops) {
      expect(op.security, `${method} ${path}`).toBeDefined();
      expect(op.responses['400'], `${method} ${path}`).toBeDefined();
      if (needsAuth(op)) expect(op.responses['401'], `${method} ${path}`).toBeDefined();
    }
    const tourist = doc.paths[`${API}/saas/tourist/login`]!.post!;
    expect(tourist.security).toEqual([]);
    expect(Object.keys(doc.paths[`${API}/captcha.webp`]!.get!.responses['200']!.content!)).toEqual(['image/webp']);
    const scan = doc.paths[`${API}/cdb/cabinet/checkisok`]!.post!.responses['200'] as {
      links?: Record<string, { operationId: string }>;
    };
    expect(scan.links?.rentWithDeposit?.operationId).toBe('postCdbCabinetUseDepositToRent');
  });

  it('answers generated valid and invalid inputs only as declared', async () => {
    const failures: string[] = [];
    for (const { path, method, op } of rider.operations()) {
      if (op.responses['200']?.content?.['text/event-stream']) continue; // a stream does not end; live.test.ts covers it
      const token = takesToken(op) ? await touristToken(b.app, `contract-${op.operationId}`) : undefined;
      failures.push(
        ...(await rider.fuzz(path, method, op, { runs: VALID_RUNS, headers: token ? { token } : {}, invalid: true })),
      );
      // Without a token: 401 for an input the schema allows (an invalid one is refused before the session is read).
      const sample = needsAuth(op)
        ? fc.sample(rider.inputs(op), { seed: 1, numRuns: 8 }).find((i) => rider.bodyValid(op, i.body))
        : undefined;
      if (sample) {
        const res = await rider.send(path, method, sample);
        failures.push(...rider.conformance(path, method, op, res).map((f) => `${method} ${path} (no token): ${f}`));
        if (res.statusCode !== 401)
          failures.push(`${method.toUpperCase()} ${path}: without a token answered ${res.statusCode}, not 401`);
      }
    }
    expect(failures, failures.join('\n')).toEqual([]);
  }, 180_000);

  it('a known path with another method is 405 with Allow', async () => {
    const token = await touristToken(b.app, 'contract-405');
    const res = await b.app.inject({ method: 'PUT', url: `${API}/userInfo`, headers: { token } });
    expect(res.statusCode).toBe(405);
    expect(res.headers.allow).toBe('GET, HEAD');
    expect(res.json()).toMatchObject({ code: 405, data: null });
    const unknown = await b.app.inject({ method: 'GET', url: `${API}/no/such/path` });
    expect(unknown.statusCode).toBe(404);
  });
});
