// The embed's server side: agents' exact-origin allowlists, frame-ancestors, and the web-vitals store.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build, touristToken, type Built } from './helper.ts';
import { frameAncestors, isOrigin } from '../src/modules/embed/service.ts';

let b: Built;
beforeAll(async () => {
  b = await build({ simulator: false });
});
afterAll(async () => b?.close());

const API = '/cdb-app-api/v1/app';

describe('agents', () => {
  it('keep exact origins only', async () => {
    await b.app.powerly.embed.saveAgent({
      id: 'a1',
      name: 'A',
      origins: ['https://venue.example', 'http://localhost:8081'],
    });
    expect((await b.app.powerly.embed.agent('a1'))?.origins).toEqual([
      'https://venue.example',
      'http://localhost:8081',
    ]);
    for (const bad of [
      'null',
      '*',
      'https://*.example',
      'https://venue.example/',
      'venue.example',
      'https://venue.example/path',
      'javascript:x',
    ]) {
      await expect(b.app.powerly.embed.saveAgent({ id: 'a2', name: 'B', origins: [bad] }), bad).rejects.toThrow();
      expect(isOrigin(bad)).toBe(false);
    }
    expect(await b.app.powerly.embed.agent("a1' or '1'='1")).toBeUndefined();
  });
  it("frame-ancestors lists the agent's origins, or 'none'", () => {
    expect(frameAncestors({ id: 'x', name: 'x', origins: ['https://a.example', 'https://b.example'] })).toBe(
      'https://a.example https://b.example',
    );
    expect(frameAncestors({ id: 'x', name: 'x', origins: [] })).toBe("'none'");
    expect(frameAncestors(undefined)).toBe("'none'");
  });
});

describe('web vitals', () => {
  it('stores a metric sent as text/plain (sendBeacon) and summarises p75 per shape and metric', async () => {
    for (const value of [100, 200, 300, 400]) {
      const res = await b.app.inject({
        method: 'POST',
        url: `${API}/embed/vitals`,
        headers: { 'content-type': 'text/plain' },
        payload: JSON.stringify({ shape: 'iframe', name: 'LCP', value, rating: 'good', route: '/home' }),
      });
      expect(res.statusCode, res.body).toBe(200);
    }
    const res = await b.app.inject({ method: 'GET', url: `${API}/embed/vitals/summary` });
    const body = res.json() as {
      code: number;
      data: { shape: string; name: string; count: number; p75: number; good: number }[];
    };
    expect(body.code).toBe(0);
    expect(body.data).toEqual([
      { shape: 'iframe', name: 'LCP', count: 4, p75: 325, good: 4, needsImprovement: 0, poor: 0 },
    ]);
  });
  it('refuses a route with a query, unknown shapes and metrics, and undeclared fields (400 naming one)', async () => {
    const post = (body: unknown) =>
      b.app.inject({
        method: 'POST',
        url: `${API}/embed/vitals`,
        headers: { 'content-type': 'text/plain' },
        payload: JSON.stringify(body),
      });
    const base = { shape: 'app', name: 'CLS', value: 0.1, rating: 'good', route: '/' };
    expect((await post({ ...base, route: '/result?token=abc' })).statusCode).toBe(400);
    expect((await post({ ...base, shape: 'other' })).statusCode).toBe(400);
    expect((await post({ ...base, name: 'FID' })).statusCode).toBe(400);
    expect((await post({ ...base, value: -1 })).statusCode).toBe(400);
    expect(
      (
        await b.app.inject({
          method: 'POST',
          url: `${API}/embed/vitals`,
          headers: { 'content-type': 'text/plain' },
          payload: '{not json',
        })
      ).statusCode,
    ).toBe(400);
    const extra = await post({ ...base, token: 'tok_secret' });
    expect(extra.statusCode).toBe(400);
    expect(extra.json().msg).toContain('token');
    const { rows } = await b.db.query('select * from web_vitals');
    expect(JSON.stringify(rows)).not.toContain('tok_secret');
  });
});

describe('signed one-time codes (in-app transports without an origin)', () => {
  const post = (url: string, body: Record<string, string>, token?: string) =>
    b.app.inject({ method: 'POST', url: `${API}${url}`, headers: token ? { token } : {}, payload: body });

  it('a signed-in native host gets a code; the page redeems it once for a session of the same user', async () => {
    await b.app.powerly.embed.saveAgent({ id: 'app1', name: 'Native app', origins: [] });
    const token = await touristToken(b.app);
    expect((await post('/embed/code', { agent: 'app1' })).statusCode).toBe(401); // needs the user's session
    const issued = await post('/embed/code', { agent: 'app1' }, token);
    expect(issued.statusCode, issued.body).toBe(200);
    const { code } = (issued.json() as { data: { code: string } }).data;
    expect(code).toMatch(/^v1\./);
    expect(code).not.toContain(token);

    expect((await post('/embed/code/redeem', { code, agent: 'other' })).statusCode).toBe(401); // bound to its agent
    const redeemed = await post('/embed/code/redeem', { code, agent: 'app1' });
    expect(redeemed.statusCode, redeemed.body).toBe(200);
    const fresh = (redeemed.json() as { data: { token: string } }).data.token;
    expect(fresh).not.toBe(token);
    const a = await b.app.powerly.auth.authenticate(token);
    const c = await b.app.powerly.auth.authenticate(fresh);
    expect(c.id).toBe(a.id);

    const again = await post('/embed/code/redeem', { code, agent: 'app1' });
    expect(again.statusCode).toBe(401);
    expect((again.json() as { msg: string }).msg).toBe('This sign-in code is invalid, expired or already used.');
  });

  it('refuses tampered, foreign-key, expired codes and unknown agents', async () => {
    await b.app.powerly.embed.saveAgent({ id: 'app2', name: 'Native app', origins: [] });
    const token = await touristToken(b.app);
    const code = async () =>
      ((await post('/embed/code', { agent: 'app2' }, token)).json() as { data: { code: string } }).data.code;
    const c1 = await code();
    const [v, body, sig] = c1.split('.');
    const forged = Buffer.from(
      JSON.stringify({ ...JSON.parse(Buffer.from(body!, 'base64url').toString()), e: Date.now() + 1e9 }),
    ).toString('base64url');
    expect((await post('/embed/code/redeem', { code: `${v}.${forged}.${sig}`, agent: 'app2' })).statusCode).toBe(401);
    expect(
      (await post('/embed/code/redeem', { code: `${v}.${body}.${'A'.repeat(43)}`, agent: 'app2' })).statusCode,
    ).toBe(401);
    const c2 = await code();
    b.clock.advance(3 * 60_000);
    expect((await post('/embed/code/redeem', { code: c2, agent: 'app2' })).statusCode).toBe(401);
    const unknown = await post('/embed/code', { agent: 'nobody' }, token);
    expect(unknown.statusCode).toBe(404);
  });
});
