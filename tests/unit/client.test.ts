// @vitest-environment node
// The envelope rules of the one HTTP client (ofetch with the rules in its hooks), against a real HTTP server on
// 127.0.0.1 (no mocks).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ApiError, createClient, isProcessing } from '../../src/api/client.ts';

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}
let server: Server;
let base = '';
let seen: Seen[] = [];
/** Answers held by the 'hang' route until a test lets them go. */
const held: ServerResponse[] = [];

function send(res: ServerResponse, status: number, body: unknown, type = 'application/json') {
  res.writeHead(status, { 'content-type': type });
  res.end(typeof body === 'string' ? body : JSON.stringify(body));
}

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      seen.push({ method: req.method!, url: req.url!, headers: req.headers, body });
      const path = new URL(req.url!, 'http://x').pathname.replace('/api/v1/app/', '');
      switch (path) {
        case 'ok':
          return send(res, 200, { code: 0, msg: 'success', data: { hello: 'world' } });
        case 'nine':
          return send(res, 200, { code: 9, msg: 'success', data: 'nine' });
        case 'processing':
          return send(res, 200, { code: 1, msg: 'Processing', data: null });
        // An operator back end's Chinese 'requesting': the same as Processing, whatever the code.
        case 'requesting':
          return send(res, 200, { code: 500, msg: '请求中', data: null });
        case 'unauth-status':
          return send(res, 401, { code: 401, msg: 'token expired', data: null });
        case 'unauth-code':
          return send(res, 200, { code: 401, msg: 'token expired', data: null });
        case 'forbidden':
          return send(res, 403, { code: 403, msg: 'nope', data: null });
        case 'declined':
          return send(res, 422, { code: 422, msg: 'Your card was declined', data: { reason: 'card_declined' } });
        case 'biz200':
          return send(res, 200, { code: 500100, msg: 'Cabinet offline', data: null });
        case 'bad-gateway':
          return send(res, 502, '<html>Bad Gateway</html>', 'text/html');
        case 'slow':
          return setTimeout(() => send(res, 200, { code: 0, data: 'late' }), 100);
        case 'hang':
          return void held.push(res);
        default:
          return send(res, 404, { code: 404, msg: 'no such thing', data: null });
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1/app/`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));
beforeEach(() => {
  seen = [];
});
afterEach(() => {
  for (const res of held.splice(0)) send(res, 200, { code: 0, data: 'released' });
});

function client(extra: { timeout?: number; baseURL?: string } = {}) {
  let unauthorized = 0;
  const c = createClient({
    baseURL: extra.baseURL ?? base,
    timeout: extra.timeout,
    headers: () => ({ token: 'tok-1', lang: 'zh-CN', agentOpenId: 'agent-7' }),
    onUnauthorized: () => {
      unauthorized++;
    },
  });
  return { c, unauthorized: () => unauthorized };
}

async function rejection(p: Promise<unknown>): Promise<ApiError> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(ApiError);
    return e as ApiError;
  }
  throw new Error('expected a rejection');
}

describe('api client envelope', () => {
  it('code 0: resolves with data and sends token, lang and agentOpenId', async () => {
    const { c } = client();
    await expect(c.get('ok', { query: { a: 1, skip: undefined } })).resolves.toEqual({ hello: 'world' });
    expect(seen[0]!.method).toBe('GET');
    expect(seen[0]!.url).toBe('/api/v1/app/ok?a=1');
    expect(seen[0]!.headers.token).toBe('tok-1');
    expect(seen[0]!.headers.lang).toBe('zh-CN');
    expect(seen[0]!.headers.agentopenid).toBe('agent-7');
  });

  it('noToken omits token and lang but keeps agentOpenId', async () => {
    const { c } = client();
    await c.post('ok', { noToken: true });
    expect(seen[0]!.headers.token).toBeUndefined();
    expect(seen[0]!.headers.lang).toBeUndefined();
    expect(seen[0]!.headers.agentopenid).toBe('agent-7');
  });

  it('POST is form-encoded and carries the Idempotency-Key', async () => {
    const { c } = client();
    await c.post('ok', { body: { qrcode: 'PWL-SH-001', paymentId: 3, skip: undefined }, idempotencyKey: 'key-123' });
    expect(seen[0]!.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(seen[0]!.body).toBe('qrcode=PWL-SH-001&paymentId=3');
    expect(seen[0]!.headers['idempotency-key']).toBe('key-123');
  });

  it('a JSON POST keeps its values and nested objects as they are (the Wi-Fi order submit), without undefined ones', async () => {
    const { c } = client();
    await c.post('ok', {
      body: {
        paymentId: 'card',
        ejectOrNot: 0,
        qrcode: undefined,
        orderSubmit: { orderType: 2, submitDtlDtoList: [{ skuId: 'pt-unl', selectDays: 2 }] },
      },
      json: true,
    });
    expect(seen[0]!.headers['content-type']).toBe('application/json');
    expect(JSON.parse(seen[0]!.body)).toEqual({
      paymentId: 'card',
      ejectOrNot: 0,
      orderSubmit: { orderType: 2, submitDtlDtoList: [{ skuId: 'pt-unl', selectDays: 2 }] },
    });
  });

  it('code 9 is success for POST only', async () => {
    const { c } = client();
    await expect(c.post('nine')).resolves.toBe('nine');
    const e = await rejection(c.get('nine'));
    expect(e.kind).toBe('business');
    expect(e.code).toBe(9);
  });

  it("code 1 is 'Processing', distinct so pollers retry", async () => {
    const { c } = client();
    const e = await rejection(c.post('processing'));
    expect(e.kind).toBe('processing');
    expect(isProcessing(e)).toBe(true);
    expect(e.code).toBe(1);
  });

  it("an operator back end's Chinese 'requesting' (请求中) is Processing too", async () => {
    const { c } = client();
    const e = await rejection(c.post('requesting'));
    expect(e.kind).toBe('processing');
    expect(isProcessing(e)).toBe(true);
  });

  it('401 by HTTP status clears the session (handler) and rejects', async () => {
    const { c, unauthorized } = client();
    const e = await rejection(c.get('unauth-status'));
    expect(e.kind).toBe('unauthorized');
    expect(e.status).toBe(401);
    expect(unauthorized()).toBe(1);
  });

  it('401 by envelope code does the same', async () => {
    const { c, unauthorized } = client();
    const e = await rejection(c.get('unauth-code'));
    expect(e.kind).toBe('unauthorized');
    expect(unauthorized()).toBe(1);
  });

  it("403 gives 'insufficient permission, contact administrator'", async () => {
    const { c, unauthorized } = client();
    const e = await rejection(c.get('forbidden'));
    expect(e.kind).toBe('forbidden');
    expect(e.message).toBe('insufficient permission, contact administrator');
    expect(unauthorized()).toBe(0);
  });

  it('other codes give the msg field, read from a non-2xx body', async () => {
    const { c } = client();
    const e = await rejection(c.post('declined'));
    expect(e.kind).toBe('business');
    expect(e.code).toBe(422);
    expect(e.status).toBe(422);
    expect(e.message).toBe('Your card was declined');
    expect(e.data).toEqual({ reason: 'card_declined' });
    const e2 = await rejection(c.get('biz200'));
    expect(e2.message).toBe('Cabinet offline');
    expect(e2.code).toBe(500100);
  });

  it('a 5xx without an envelope is a server error for the user', async () => {
    const { c } = client();
    const e = await rejection(c.get('bad-gateway'));
    expect(e.kind).toBe('network');
    expect(e.message).toBe('server error, please retry');
  });

  it("network error: 'server error, please retry'", async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    const { c } = client({ baseURL: `http://127.0.0.1:${port}/api/v1/app/` });
    const e = await rejection(c.get('ok'));
    expect(e.kind).toBe('network');
    expect(e.message).toBe('server error, please retry');
  });

  it('times out after the configured time, with or without a signal of the caller; a slower answer within it arrives', async () => {
    // The 'hang' route never answers by itself: only the timeout can end these calls, however busy the machine.
    const { c } = client({ timeout: 100 });
    expect((await rejection(c.get('hang'))).kind).toBe('timeout');
    const caller = new AbortController();
    expect((await rejection(c.post('hang', { signal: caller.signal }))).kind).toBe('timeout');
    expect(caller.signal.aborted).toBe(false);
    // The default (10 s) leaves a 100 ms answer alone.
    const { c: patient } = client();
    await expect(patient.get('slow')).resolves.toBe('late');
  });

  it("the caller's abort rejects with the caller's own reason, not as a server error", async () => {
    const { c } = client();
    const caller = new AbortController();
    const call = c.get('hang', { signal: caller.signal });
    await expect.poll(() => held.length, { timeout: 10_000 }).toBe(1);
    caller.abort(new Error('left the screen'));
    await expect(call).rejects.toThrow('left the screen');
    await expect(c.get('ok', { signal: AbortSignal.abort(new Error('already gone')) })).rejects.toThrow('already gone');
  });

  it('no retries: a failing call is sent once', async () => {
    const { c } = client();
    await rejection(c.get('bad-gateway'));
    await rejection(c.post('bad-gateway'));
    expect(seen.map((s) => s.method)).toEqual(['GET', 'POST']);
  });
});
