// The sign-in tests' calls (a captcha answered, a signed code request, the SMS read back, login) and their local
// peers: an OpenID issuer with its JWKS (Google, Apple), a Facebook Graph peer and a Twilio peer (signin.test.ts).
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'vitest';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey } from 'jose';
import type { Built } from './helper.ts';
import { sha256 } from '../src/lib/ids.ts';
import { signMaterial } from '#core/sign.ts';

export const P = '/cdb-app-api/v1/app';

export async function listen(handler: Parameters<typeof createServer>[1]): Promise<{ server: Server; url: string }> {
  const server = createServer(handler);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

async function captchaAnswer(b: Built, uuid: string, ip = '10.0.0.1'): Promise<string> {
  // A captcha is bound to the client that asked for it: the same address as the code request below.
  const res = await b.app.inject({ method: 'GET', url: `${P}/captcha.webp?uuid=${uuid}`, remoteAddress: ip });
  expect(res.statusCode).toBe(200);
  expect(res.headers['content-type']).toBe('image/webp');
  // The answer is stored hashed; the test finds it by trying the captcha alphabet (4 chars) — too slow,
  // so it replaces the stored hash with one of a known answer, as an operator could not from outside.
  await b.db.query('update captchas set answer_hash = $2 where uuid = $1', [uuid, sha256('abcd')]);
  return 'AbCd';
}

export function signed(b: Built) {
  const ts = String(Math.floor(b.clock.now().getTime() / 1000));
  return { ts, sign: sha256(signMaterial(ts)) };
}

let n = 0;
export async function sendCode(
  b: Built,
  mobile: string,
  over: { sign?: string; ts?: string; bot?: string; ip?: string } = {},
) {
  const uuid = `uuid-${Date.now()}-${n++}`;
  const answer = await captchaAnswer(b, uuid, over.ip ?? '10.0.0.1');
  const s = signed(b);
  return b.app.inject({
    method: 'POST',
    url: `${P}/saas/sendVerifyCode?mobile=${mobile}&timestamp=${over.ts ?? s.ts}&sign=${over.sign ?? s.sign}`,
    headers: { 'content-type': 'application/x-www-form-urlencoded', lang: 'en-US' },
    remoteAddress: over.ip ?? '10.0.0.1',
    payload: new URLSearchParams({
      reCAPTCHA: JSON.stringify({ token: over.bot ?? 'sandbox-ok', platform: 'web' }),
      uuid,
      captcha: answer,
    }).toString(),
  });
}

export async function lastCode(b: Built, mobile: string): Promise<string> {
  const { rows } = await b.db.query<{ body: string }>(
    'select body from sms_outbox where to_number = $1 order by id desc limit 1',
    [mobile],
  );
  const m = /\b(\d{4})\b/.exec(rows[0]?.body ?? '');
  if (!m) throw new Error('no SMS');
  return m[1]!;
}

export const login = (b: Built, phone: string, code: string, area = '86', token?: string) =>
  b.app.inject({
    method: 'POST',
    url: `${P}/saas/mobileLogin?mobile=${phone}&verifyCode=${code}&areaCode=${area}&registAndLoginType=1`,
    headers: token ? { token } : {},
  });

/** A form POST to the rider API (`token`: signed in). */
export const postForm = (b: Built, url: string, body: Record<string, string>, token?: string) =>
  b.app.inject({
    method: 'POST',
    url: `${P}/${url}`,
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...(token ? { token } : {}) },
    payload: new URLSearchParams(body).toString(),
  });

export const userInfo = (b: Built, token: string) =>
  b.app.inject({ method: 'GET', url: `${P}/userInfo`, headers: { token } });

export interface IdTokenOptions {
  key?: CryptoKey;
  expS?: number;
  iss?: string;
}

/** A local OpenID issuer serving its JWKS at /keys (Google and Apple ID tokens are signed with its `key`). */
export async function localIssuer() {
  const kp = await generateKeyPair('RS256');
  const jwk = { ...(await exportJWK(kp.publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
  const issuer = await listen((req, res) => {
    if (req.url === '/keys') {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ keys: [jwk] }));
      return;
    }
    res.statusCode = 404;
    res.end();
  });
  const key = kp.privateKey;
  /** An ID token of this issuer for `aud` and `sub` at `at` (another key, lifetime or issuer to test refusals). */
  const idToken = (at: Date, aud: string, sub: string, o: IdTokenOptions = {}) => {
    const now = Math.floor(at.getTime() / 1000);
    return new SignJWT({ email: `${sub}@example.com` })
      .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
      .setIssuer(o.iss ?? issuer.url)
      .setAudience(aud)
      .setSubject(sub)
      .setIssuedAt(now)
      .setExpirationTime(now + (o.expS ?? 600))
      .sign(o.key ?? key);
  };
  return { ...issuer, key, idToken };
}

/** A local Facebook Graph peer: debug_token answers for the app fb-app (tokens fbtok-<user>; fbtok-otherapp, fbtok-expired). */
export async function localGraph() {
  return listen((req, res) => {
    const u = new URL(req.url!, 'http://x');
    const t = u.searchParams.get('input_token');
    const valid = u.searchParams.get('access_token') === 'fb-app|fb-secret' && t?.startsWith('fbtok-');
    res.setHeader('content-type', 'application/json');
    res.end(
      JSON.stringify({
        data: valid
          ? {
              is_valid: true,
              app_id: t === 'fbtok-otherapp' ? 'x' : 'fb-app',
              user_id: t!.slice(6),
              expires_at: t === 'fbtok-expired' ? 1 : 4102444800,
            }
          : { is_valid: false },
      }),
    );
  });
}

/** A local Twilio peer: each message's form body is answered with the status and JSON `answer` gives. */
export function twilioPeer(answer: (body: string, req: IncomingMessage) => { status: number; json: unknown }) {
  return listen((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => {
      body += c;
    });
    req.on('end', () => {
      const a = answer(body, req);
      res.setHeader('content-type', 'application/json');
      res.statusCode = a.status;
      res.end(JSON.stringify(a.json));
    });
  });
}
