// The adapters' shared HTTP client (methods/http.ts) against a local server that misbehaves the ways providers do:
// no answer in time, a connection cut mid-answer, a body that is not JSON, 5xx and 4xx answers. Each is the same
// ProviderError kind whichever adapter made the call, and the log lines carry no secret.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProviderError } from '../../src/modules/payments/methods/adapter.ts';
import {
  httpClient,
  redactHeaders,
  redactUrl,
  statusCode,
  type HttpLog,
} from '../../src/modules/payments/methods/http.ts';
import { flutterwaveDefinition } from '../../src/modules/payments/methods/flutterwave.ts';

let server: Server;
let base: string;
const seen: { method: string; url: string; headers: Record<string, unknown>; body: string }[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      const path = (req.url ?? '').split('?')[0];
      if (path?.startsWith('/hang')) return; // never answers
      if (path === '/cut') {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
        res.write('{"partial":');
        setImmediate(() => res.destroy());
        return;
      }
      if (path === '/html')
        return void res.writeHead(502, { 'content-type': 'text/html' }).end('<html>Bad gateway</html>');
      if (path === '/empty') return void res.writeHead(204).end();
      if (path === '/echo')
        return void res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ type: req.headers['content-type'], body }));
      res.writeHead(404).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

function capture(): HttpLog & { lines: string[] } {
  const lines: string[] = [];
  return {
    lines,
    debug: (o, m) => lines.push(JSON.stringify([o, m])),
    warn: (o, m) => lines.push(JSON.stringify([o, m])),
  };
}

async function failure(p: Promise<unknown>): Promise<ProviderError> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(ProviderError);
    return e as ProviderError;
  }
  throw new Error('expected a ProviderError');
}

describe('the adapters\u2019 HTTP client', () => {
  it('ends a call that gets no answer within the time limit as a timeout (a server-side 504), never hanging', async () => {
    const http = httpClient('acme', { fetch, timeoutMs: 150 });
    const e = await failure(http.send({ url: `${base}/hang` }));
    expect(e.code).toBe('timeout');
    expect(e.status).toBe(504);
  });

  it('maps an unreachable provider and an answer cut off to network, a body that is not JSON to bad_response', async () => {
    const http = httpClient('acme', { fetch });
    expect((await failure(http.send({ url: 'http://127.0.0.1:9/nothing' }))).code).toBe('network');
    expect((await failure(http.send({ url: `${base}/cut` }))).code).toBe('network');
    const bad = await failure(http.json({ url: `${base}/html` }));
    expect([bad.code, bad.status]).toEqual(['bad_response', 502]);
    expect((await http.json({ url: `${base}/empty` })).body).toEqual({});
  });

  it('maps statuses to kinds for answers that name no code of their own', () => {
    expect([401, 403, 404, 429, 400, 422, 500, 503].map(statusCode)).toEqual([
      'unauthorized',
      'unauthorized',
      'not_found',
      'rate_limited',
      'invalid_request',
      'invalid_request',
      'provider_unavailable',
      'provider_unavailable',
    ]);
  });

  it('encodes JSON and form bodies with their content types', async () => {
    const http = httpClient('acme', { fetch });
    const j = await http.json<{ type: string; body: string }>({ method: 'POST', url: `${base}/echo`, json: { a: 1 } });
    expect(j.body).toEqual({ type: 'application/json', body: '{"a":1}' });
    const f = await http.json<{ type: string; body: string }>({
      method: 'POST',
      url: `${base}/echo`,
      form: { grant_type: 'client_credentials', x: 'a b' },
    });
    expect(f.body).toEqual({ type: 'application/x-www-form-urlencoded', body: 'grant_type=client_credentials&x=a+b' });
  });

  it('logs each call without a secret: no credential header, no key in the URL, no body', async () => {
    const log = capture();
    const http = httpClient('acme', { fetch, log, timeoutMs: 150 });
    await http.send({
      method: 'POST',
      url: `${base}/echo?api_key=SECRET-Q&sign=SECRET-S&page=2`,
      headers: { authorization: 'Bearer SECRET-A' },
      json: { cvv: '123', card_number: '4242424242424242' },
    });
    await failure(
      http.send({
        url: `${base}/hang?token=SECRET-T`,
        headers: { authorization: 'Bearer SECRET-A', 'x-api-key': 'SECRET-K', 'flutterwave-signature': 'SECRET-F' },
      }),
    );
    expect(log.lines.length).toBe(2);
    const all = log.lines.join('\n');
    for (const secret of [
      'SECRET-Q',
      'SECRET-S',
      'SECRET-A',
      'SECRET-T',
      'SECRET-K',
      'SECRET-F',
      '4242424242424242',
      '"123"',
    ])
      expect(all).not.toContain(secret);
    expect(all).toContain('page=2');
    expect(all).toContain('"error":"timeout"');
    expect(redactUrl('https://u:p@x.test/a?key=1&b=2')).toBe('https://x.test/a?key=[redacted]&b=2');
    expect(redactHeaders({ Authorization: 'x', accept: 'application/json' })).toEqual({
      Authorization: '[redacted]',
      accept: 'application/json',
    });
  });

  it('is what an adapter calls through: a Flutterwave call that gets no answer is a timeout, logged without its secret key', async () => {
    const log = capture();
    const adapter = flutterwaveDefinition.create(
      {
        secretKey: 'FLWSECK_TEST-very-secret',
        encryptionKey: '0123456789abcdef01234567',
        secretHash: 'h',
        apiBase: `${base}/hang`,
      },
      { fetch, now: () => new Date(), log, timeoutMs: 150 },
    );
    const e = await failure(adapter.status('123', 'T1'));
    expect(e.code).toBe('timeout');
    expect(
      seen.some(
        (s) =>
          s.url.startsWith('/hang/v3/transactions/123/verify') &&
          s.headers.authorization === 'Bearer FLWSECK_TEST-very-secret',
      ),
    ).toBe(true);
    expect(log.lines.join('\n')).not.toContain('FLWSECK_TEST-very-secret');
  });
});
