// Cookies without a plugin: reading the Cookie header and writing one Set-Cookie (RFC 6265).
import type { FastifyReply, FastifyRequest } from 'fastify';

export function readCookie(req: FastifyRequest, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const i = part.indexOf('=');
    if (i > 0 && part.slice(0, i).trim() === name) {
      try {
        return decodeURIComponent(part.slice(i + 1).trim());
      } catch {
        return undefined;
      }
    }
  }
  return undefined;
}

export interface CookieOptions {
  path: string;
  maxAgeS?: number;
  sameSite: 'Strict' | 'Lax';
  /** Secure when the request came over HTTPS (req.protocol honours TRUST_PROXY). */
  secure: boolean;
}

export function setCookie(reply: FastifyReply, name: string, value: string, o: CookieOptions) {
  const parts = [`${name}=${encodeURIComponent(value)}`, `Path=${o.path}`, 'HttpOnly', `SameSite=${o.sameSite}`];
  if (o.maxAgeS !== undefined) parts.push(`Max-Age=${o.maxAgeS}`);
  if (o.secure) parts.push('Secure');
  const prev = reply.getHeader('set-cookie');
  const list = Array.isArray(prev) ? prev : prev ? [String(prev)] : [];
  void reply.header('set-cookie', [...list, parts.join('; ')]);
}
