// The ops API's served OpenAPI document holds every operation to what it says, as the rider API's does
// (openapi/conformance.ts): generated valid and refused inputs, sent by the platform's owner with the session cookie
// and the CSRF header; every answer with a declared status, content type and schema. Without a session a secured
// operation answers 401; an unsafe one without the CSRF header 403. (Its lint runs with the rider API's document in
// contract-openapi.test.ts.)
import type { InjectOptions } from 'fastify';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build, type Built } from './helper.ts';
import { Conformance, needsAuth, type Doc } from './openapi/conformance.ts';
import { callerConsoles } from './ops/callers.ts';
import { HOST, type OpsConsole } from './ops/console.ts';

const VALID_RUNS = 4;
/** Operations that end the caller's session: run last, so the others run signed in. */
const ENDS_SESSION = /^(deleteSession|postSessionEverywhere)$/;

let b: Built;
let doc: Doc;
let ops: Conformance;
let owner: OpsConsole;

beforeAll(async () => {
  b = await build({ simulator: false });
  owner = (await callerConsoles(b)).get('platformOwner')!;
  doc = (await b.app.inject({ url: '/ops-api/v1/openapi.json' })).json() as Doc;
  ops = new Conformance(
    doc,
    (r) => b.app.inject({ ...r, headers: { host: HOST, ...r.headers } } as InjectOptions),
    (body) => (body as { message: string }).message,
  );
}, 180_000);
afterAll(async () => b?.close());

describe('every operation of the ops API document does what it declares', () => {
  it('declares an id, a summary, security and its error answers on every operation', () => {
    expect(doc.servers?.length).toBeGreaterThan(0);
    const all = ops.operations();
    expect(all.length).toBeGreaterThan(15);
    const ids = new Set<string>();
    for (const { path, method, op } of all) {
      const where = `${method} ${path}`;
      expect(ids.has(op.operationId), where).toBe(false);
      ids.add(op.operationId);
      expect(op.security, where).toBeDefined();
      for (const st of ['400', '429', '500']) expect(op.responses[st], `${where} ${st}`).toBeDefined();
      if (needsAuth(op) && (op.security ?? []).some((r) => 'session' in r))
        expect(op.responses['401'], where).toBeDefined();
      if (method !== 'get') expect(op.responses['403'], `${where}: CSRF`).toBeDefined();
    }
    expect(Object.keys(doc.paths['/ops-api/v1/audit.csv']!.get!.responses['200']!.content!)).toEqual(['text/csv']);
    expect(doc.paths['/ops-api/v1/session']!.get!.security).toEqual([]);
  });

  it('answers generated valid and invalid inputs only as declared', async () => {
    const failures: string[] = [];
    const all = ops
      .operations()
      .sort((x, y) => Number(ENDS_SESSION.test(x.op.operationId)) - Number(ENDS_SESSION.test(y.op.operationId)));
    for (const { path, method, op } of all) {
      if (op.responses['200']?.content?.['text/event-stream']) continue; // a stream does not end; its own tests cover it
      const headers = { cookie: owner.cookie(), 'x-csrf-token': owner.csrf };
      failures.push(
        ...(await ops.fuzz(path, method, op, {
          runs: VALID_RUNS,
          headers,
          invalid: !ENDS_SESSION.test(op.operationId),
        })),
      );
    }
    expect(failures, failures.join('\n')).toEqual([]);
  }, 180_000);

  it('answers a secured operation without a session 401, and an unsafe one without the CSRF header 403', async () => {
    const failures: string[] = [];
    for (const { path, method, op } of ops.operations()) {
      if (!(op.security ?? []).some((r) => 'session' in r)) continue;
      const sample = fc.sample(ops.inputs(op), { seed: 1, numRuns: 1 })[0]!;
      const anonymous = await ops.send(path, method, sample);
      const want = method === 'get' ? 401 : 403;
      if (anonymous.statusCode !== want)
        failures.push(`${method} ${path} without a session: ${anonymous.statusCode}, not ${want}`);
      failures.push(...ops.conformance(path, method, op, anonymous).map((f) => `${method} ${path} (no session): ${f}`));
    }
    expect(failures, failures.join('\n')).toEqual([]);
  });
});
