// Signed one-time codes: the content authentication of in-app transports that carry no origin (WeChat and
// Alipay mini-program web-views, React Native). Format: v1.<base64url(json {j, a, e})>.<base64url(HMAC-SHA256)>.
// The signature proves the server issued it; the jti row makes it single-use; e (ms) bounds its life.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export const CODE_TTL_MS = 2 * 60_000;

export interface CodeClaims {
  j: string;
  a: string;
  e: number;
}

function sign(key: string, body: string): string {
  return createHmac('sha256', key).update(`v1.${body}`).digest('base64url');
}

export function issueCode(
  key: string,
  agent: string,
  nowMs: number,
  ttlMs = CODE_TTL_MS,
): { code: string; claims: CodeClaims } {
  const claims: CodeClaims = { j: randomBytes(16).toString('base64url'), a: agent, e: nowMs + ttlMs };
  const body = Buffer.from(JSON.stringify(claims)).toString('base64url');
  return { code: `v1.${body}.${sign(key, body)}`, claims };
}

/** The claims of a well-formed code with a valid signature that has not expired; otherwise undefined. */
export function verifyCode(key: string, code: string, nowMs: number): CodeClaims | undefined {
  const m = /^v1\.([A-Za-z0-9_-]{10,400})\.([A-Za-z0-9_-]{43})$/.exec(code);
  if (!m) return undefined;
  const expected = Buffer.from(sign(key, m[1]!));
  const given = Buffer.from(m[2]!);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return undefined;
  let claims: CodeClaims;
  try {
    claims = JSON.parse(Buffer.from(m[1]!, 'base64url').toString('utf8')) as CodeClaims;
  } catch {
    return undefined;
  }
  if (typeof claims.j !== 'string' || typeof claims.a !== 'string' || typeof claims.e !== 'number') return undefined;
  return claims.e > nowMs ? claims : undefined;
}
