// Abuse: rate limits shared by every API process through the database and keyed on the client address
// (also behind a trusted proxy), a captcha that takes one answer per image and belongs to the client that asked
// for it, tourist device codes with a minimum length, and security headers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build, type Built } from './helper.ts';
import { sha256 } from '../src/lib/ids.ts';
import { signMaterial } from '#core/sign.ts';

const P = '/cdb-app-api/v1/app';
const code = (i: number) => `abuse-device-${String(i).padStart(8, '0')}`;

describe('rate limits', () => {
  let a: Built;
  let b: Built;
  beforeAll(async () => {
    a = await build({ simulator: false, rateLimits: true });
    b = await build({ simulator: false, rateLimits: true, shareDb: a }); // a second API process, same database
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  it("a burst of tourist sign-ins from one address is cut off, across two processes, with a 429 in the user's language", async () => {
    const res = [];
    for (let i = 0; i < 30; i++) {
      const app = i % 2 ? b.app : a.app;
      res.push(
        await app.inject({
          method: 'POST',
          url: `${P}/saas/tourist/login?code=${code(i)}`,
          remoteAddress: '203.0.113.7',
          headers: { lang: 'es-ES' },
        }),
      );
    }
    const ok = res.filter((r) => r.statusCode === 200).length;
    expect(ok).toBe(10); // one budget for both processes
    const limited = res.find((r) => r.statusCode === 429)!;
    expect(limited.json()).toMatchObject({
      code: 429,
      msg: 'Demasiadas solicitudes. Espera un momento y vuelve a intentarlo.',
    });
    expect(limited.headers['retry-after']).toBeTruthy();
    // Another address has its own budget.
    expect(
      (
        await a.app.inject({
          method: 'POST',
          url: `${P}/saas/tourist/login?code=${code(99)}`,
          remoteAddress: '203.0.113.8',
        })
      ).statusCode,
    ).toBe(200);
  });

  it('captcha images, web vitals and the public lead form have budgets too', async () => {
    const burst = async (n: number, req: () => Promise<{ statusCode: number }>) => {
      let limited = 0;
      for (let i = 0; i < n; i++) if ((await req()).statusCode === 429) limited++;
      return limited;
    };
    let u = 0;
    expect(
      await burst(30, () =>
        a.app.inject({ method: 'GET', url: `${P}/captcha.webp?uuid=burst-${u++}-uuid`, remoteAddress: '203.0.113.20' }),
      ),
    ).toBe(10);
    expect(
      await burst(70, () =>
        a.app.inject({
          method: 'POST',
          url: `${P}/embed/vitals`,
          remoteAddress: '203.0.113.21',
          headers: { 'content-type': 'application/json' },
          payload: JSON.stringify({ shape: 'frame', name: 'LCP', value: 1, rating: 'good' }),
        }),
      ),
    ).toBe(10);
    expect(
      await burst(10, () =>
        a.app.inject({
          method: 'POST',
          url: '/crmLeads/add/public',
          remoteAddress: '203.0.113.22',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          payload: 'name=x',
        }),
      ),
    ).toBe(5);
  });

  it('without a trusted proxy, X-Forwarded-For is ignored (no dodging the budget by inventing addresses)', async () => {
    let ok = 0;
    for (let i = 0; i < 15; i++) {
      const r = await a.app.inject({
        method: 'POST',
        url: `${P}/saas/tourist/login?code=${code(200 + i)}`,
        remoteAddress: '203.0.113.30',
        headers: { 'x-forwarded-for': `198.51.100.${i}` },
      });
      if (r.statusCode === 200) ok++;
    }
    expect(ok).toBe(10);
  });
});

describe('behind a load balancer (TRUST_PROXY)', () => {
  let c: Built;
  beforeAll(async () => {
    c = await build({ simulator: false, rateLimits: true, trustProxy: ['10.0.0.0/8'] });
  });
  afterAll(async () => {
    await c?.close();
  });

  it('each user behind the proxy has their own budget', async () => {
    const login = (client: string, i: number) =>
      c.app.inject({
        method: 'POST',
        url: `${P}/saas/tourist/login?code=${code(300 + i)}`,
        remoteAddress: '10.1.2.3',
        headers: { 'x-forwarded-for': client },
      });
    let okA = 0;
    for (let i = 0; i < 12; i++) if ((await login('198.51.100.1', i)).statusCode === 200) okA++;
    expect(okA).toBe(10);
    expect((await login('198.51.100.2', 50)).statusCode).toBe(200); // another user through the same proxy
  });
});

describe('captcha, device codes, headers', () => {
  let d: Built;
  beforeAll(async () => {
    d = await build({ simulator: false });
  });
  afterAll(async () => {
    await d?.close();
  });

  const send = (uuid: string, answer: string, ip: string) => {
    const ts = String(Math.floor(d.clock.now().getTime() / 1000));
    return d.app.inject({
      method: 'POST',
      url: `${P}/saas/sendVerifyCode?mobile=8613800000077&timestamp=${ts}&sign=${sha256(signMaterial(ts))}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      remoteAddress: ip,
      payload: new URLSearchParams({
        reCAPTCHA: JSON.stringify({ token: 'sandbox-ok', platform: 'web' }),
        uuid,
        captcha: answer,
      }).toString(),
    });
  };
  const image = (uuid: string, ip: string) =>
    d.app.inject({ method: 'GET', url: `${P}/captcha.webp?uuid=${uuid}`, remoteAddress: ip });
  const knownAnswer = (uuid: string) =>
    d.db.query('update captchas set answer_hash = $2 where uuid = $1', [uuid, sha256('abcd')]);

  it('one answer per image: a wrong answer burns it, the right one afterwards is refused', async () => {
    expect((await image('uuid-one-answer', '10.9.0.1')).statusCode).toBe(200);
    await knownAnswer('uuid-one-answer');
    expect((await send('uuid-one-answer', 'zzzz', '10.9.0.1')).json().code).toBe(400);
    expect((await send('uuid-one-answer', 'abcd', '10.9.0.1')).json().code).toBe(400);
  });

  it('bound to the client that asked: another client can neither answer it nor replace (void) it', async () => {
    expect((await image('uuid-bound-001', '10.9.0.2')).statusCode).toBe(200);
    await knownAnswer('uuid-bound-001');
    expect((await image('uuid-bound-001', '10.9.0.3')).statusCode).toBe(400); // cannot replace the victim's image
    const { rows } = await d.db.query<{ answer_hash: string }>('select answer_hash from captchas where uuid = $1', [
      'uuid-bound-001',
    ]);
    expect(rows[0]!.answer_hash).toBe(sha256('abcd'));
    expect((await send('uuid-bound-001', 'abcd', '10.9.0.3')).json().code).toBe(400); // nor answer it
    // The owner's right answer passes the captcha (the request then sends the code).
    expect((await image('uuid-bound-002', '10.9.0.2')).statusCode).toBe(200);
    await knownAnswer('uuid-bound-002');
    expect((await send('uuid-bound-002', 'abcd', '10.9.0.2')).json().code).toBe(0);
  });

  it('the picture is a WebP raster: no SVG glyph outlines (which a script can match) reach the client', async () => {
    const r = await image('uuid-raster-001', '10.9.0.4');
    expect(r.headers['content-type']).toBe('image/webp');
    const bytes = r.rawPayload;
    expect(bytes.subarray(0, 4).toString('latin1')).toBe('RIFF');
    expect(bytes.subarray(8, 12).toString('latin1')).toBe('WEBP');
    expect(bytes.toString('latin1')).not.toMatch(/<svg|<path/);
  });

  it("the accessible alternative: a question in the user's language, single use and bound like the picture", async () => {
    const question = (uuid: string, ip: string, lang = 'en-US') =>
      d.app.inject({ method: 'GET', url: `${P}/captcha/question?uuid=${uuid}`, headers: { lang }, remoteAddress: ip });
    const words = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine'];
    const answerOf = (q: string) =>
      q
        .split(': ')[1]!
        .split(', ')
        .map((w) => words.indexOf(w))
        .join('');
    const q = (await question('uuid-question-01', '10.9.0.5')).json();
    expect(q).toMatchObject({
      code: 0,
      data: { question: expect.stringMatching(/^Type these digits as numbers: (\w+, ){4}\w+$/) },
    });
    const answer = answerOf(q.data.question);
    expect(answer).toMatch(/^\d{5}$/);
    expect((await send('uuid-question-01', answer, '10.9.0.6')).json().code).toBe(400); // another client: refused, and burnt
    expect((await send('uuid-question-01', answer, '10.9.0.5')).json().code).toBe(400);
    const q2 = (await question('uuid-question-02', '10.9.0.5')).json().data.question as string;
    d.clock.advance(61_000); // the number's own limit (1 per 60 s) since the code sent above
    expect((await send('uuid-question-02', answerOf(q2), '10.9.0.5')).json().code).toBe(0);
    // In the user's language.
    expect((await question('uuid-question-03', '10.9.0.5', 'pt-PT')).json().data.question).toMatch(
      /^Escreva estes algarismos em números: /,
    );
  });

  it('tourist device codes have a minimum length', async () => {
    for (const c of ['a', '1234', 'short-code-15ch']) {
      expect((await d.app.inject({ method: 'POST', url: `${P}/saas/tourist/login?code=${c}` })).statusCode, c).toBe(
        400,
      );
    }
    expect(
      (await d.app.inject({ method: 'POST', url: `${P}/saas/tourist/login?code=0123456789abcdef0123456789abcdef` }))
        .statusCode,
    ).toBe(200);
  });

  it('security headers on API responses (nosniff, a CSP that frames nothing)', async () => {
    const r = await d.app.inject({ method: 'GET', url: `${P}/cdb/help/list` });
    expect(r.headers['x-content-type-options']).toBe('nosniff');
    expect(String(r.headers['content-security-policy'])).toContain("frame-ancestors 'none'");
    expect(String(r.headers['content-security-policy'])).toContain("script-src 'self'");
    expect(r.headers['referrer-policy']).toBeTruthy();
  });
});
