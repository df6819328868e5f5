// @vitest-environment node
// The sandbox card adapter against a real HTTP server playing /sandbox-pay/v1/tokens (docs/api.md).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CardProviderError, cardProviderFor, pickCardMethod, sandboxProvider } from '../../src/pay/provider.ts';
import { setApiBase } from '../../src/api/client.ts';

let server: Server;
let origin = '';
const seen: { url: string; type?: string; body: unknown }[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const b = JSON.parse(body) as { number: string; cvc: string };
      seen.push({ url: req.url!, type: req.headers['content-type'], body: b });
      res.setHeader('content-type', 'application/json');
      if (b.number === '4242424242424241') {
        res.statusCode = 402;
        return res.end(
          JSON.stringify({ error: { code: 'incorrect_number', message: 'Your card number is incorrect.' } }),
        );
      }
      if (b.cvc === '1') {
        res.statusCode = 402;
        return res.end(JSON.stringify({ error: { code: 'weird_code', message: 'Provider says no.' } }));
      }
      res.end(
        JSON.stringify({
          id: 'tok_123',
          card: { brand: 'visa', last4: b.number.slice(-4), expMonth: 12, expYear: 2030 },
        }),
      );
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  setApiBase(`${origin}/cdb-app-api/v1/app/`);
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

const card = { number: '4242424242424242', expMonth: 12, expYear: 2030, cvc: '123' };

describe('sandbox card provider', () => {
  it('tokenises with JSON {publicKey, number, expMonth, expYear, cvc} at the API origin', async () => {
    const p = sandboxProvider('pk_sandbox_powerly');
    await expect(p.tokenize(card)).resolves.toEqual({ id: 'tok_123', brand: 'visa', last4: '4242' });
    expect(seen.at(-1)).toEqual({
      url: '/sandbox-pay/v1/tokens',
      type: 'application/json',
      body: { publicKey: 'pk_sandbox_powerly', ...card },
    });
  });
  it("a 402 carries the provider's code and message", async () => {
    const p = sandboxProvider('pk_sandbox_powerly');
    const e = await p.tokenize({ ...card, number: '4242424242424241' }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(CardProviderError);
    expect((e as CardProviderError).code).toBe('incorrect_number');
    const e2 = await p.tokenize({ ...card, cvc: '1' }).catch((x: unknown) => x);
    expect((e2 as CardProviderError).message).toBe('Provider says no.');
  });
  it('an unreachable provider is a network error', async () => {
    setApiBase('http://127.0.0.1:9/cdb-app-api/v1/app/');
    const e = await sandboxProvider('pk_sandbox_x')
      .tokenize(card)
      .catch((x: unknown) => x);
    expect((e as CardProviderError).code).toBe('network');
    setApiBase(`${origin}/cdb-app-api/v1/app/`);
  });
  it('pk_sandbox_ keys get the sandbox form; live keys have no adapter yet', () => {
    const methods = [
      { pId: '9', pPaymentType: 'paypal', publicKey: '' },
      { pId: '1', pPaymentType: 'STRIPE_CARD', publicKey: 'pk_sandbox_powerly' },
    ];
    const m = pickCardMethod(methods)!;
    expect(m.pId).toBe('1');
    expect(cardProviderFor(m)?.sandbox).toBe(true);
    expect(cardProviderFor({ pId: '2', pPaymentType: 'STRIPE_CARD', publicKey: 'pk_live_abc' })).toBeNull();
  });
});
