// A local push service that speaks the Web Push protocol, for tests: an HTTPS server (a self-signed certificate
// made with openssl) that takes the application server's POST (RFC 8030), checks its VAPID authorisation (RFC 8292:
// an ES256 JWT for this origin, signed by the key in `k=`), and decrypts the aes128gcm payload (RFC 8188/8291) with
// the subscription's private key, as a browser's push service and the browser together would. Subscriptions are
// made here (a P-256 key pair and an auth secret, as PushManager.subscribe makes them).
import { createECDH, createHmac, createDecipheriv, randomBytes } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import { Agent } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeProtectedHeader, importJWK, jwtVerify } from 'jose';

export interface PushMessage {
  subscription: string;
  /** The decrypted payload. */
  payload: string;
  topic: string | undefined;
  urgency: string | undefined;
  ttl: string | undefined;
  /** The VAPID key the message was signed with (base64url), and the JWT's claims. */
  vapidKey: string;
  claims: Record<string, unknown>;
}

interface Sub {
  id: string;
  ecdh: ReturnType<typeof createECDH>;
  auth: Buffer;
  gone: boolean;
}

const b64u = (b: Buffer) => b.toString('base64url');
const hmac = (key: Buffer, data: Buffer) => createHmac('sha256', key).update(data).digest();

/** RFC 8291 + RFC 8188 (one record): the plaintext of an aes128gcm Web Push body for this subscription. */
export function decryptPush(body: Buffer, sub: { ecdh: ReturnType<typeof createECDH>; auth: Buffer }): string {
  const salt = body.subarray(0, 16);
  const idlen = body[20]!;
  const senderKey = body.subarray(21, 21 + idlen);
  const ciphertext = body.subarray(21 + idlen);
  const ecdhSecret = sub.ecdh.computeSecret(senderKey);
  const prkKey = hmac(sub.auth, ecdhSecret);
  const keyInfo = Buffer.concat([Buffer.from('WebPush: info\0'), sub.ecdh.getPublicKey(), senderKey, Buffer.from([1])]);
  const ikm = hmac(prkKey, keyInfo);
  const prk = hmac(salt, ikm);
  const cek = hmac(prk, Buffer.from('Content-Encoding: aes128gcm\0\x01')).subarray(0, 16);
  const nonce = hmac(prk, Buffer.from('Content-Encoding: nonce\0\x01')).subarray(0, 12);
  const decipher = createDecipheriv('aes-128-gcm', cek, nonce);
  decipher.setAuthTag(ciphertext.subarray(ciphertext.length - 16));
  const padded = Buffer.concat([decipher.update(ciphertext.subarray(0, ciphertext.length - 16)), decipher.final()]);
  let end = padded.length - 1;
  while (end >= 0 && padded[end] === 0) end--;
  if (padded[end] !== 2) throw new Error('no last-record delimiter');
  return padded.subarray(0, end).toString('utf8');
}

export class PushEndpoint {
  readonly messages: PushMessage[] = [];
  readonly rejected: { subscription: string; reason: string }[] = [];
  private readonly subs = new Map<string, Sub>();
  private server!: Server;
  /** Trusts this endpoint's certificate (pushAgent of the app). */
  agent!: Agent;
  origin = '';

  async start() {
    const dir = mkdtempSync(join(tmpdir(), 'powerly-push-'));
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-days',
        '1',
        '-subj',
        '/CN=127.0.0.1',
        '-addext',
        'subjectAltName=IP:127.0.0.1',
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
      ],
      { stdio: 'ignore' },
    );
    const key = readFileSync(join(dir, 'key.pem'));
    const cert = readFileSync(join(dir, 'cert.pem'));
    this.server = createServer({ key, cert }, (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        this.receive(req.url ?? '', req.headers as Record<string, string | undefined>, Buffer.concat(chunks)).then(
          (status) => res.writeHead(status).end(),
          (err: unknown) => {
            this.rejected.push({ subscription: req.url ?? '', reason: String(err) });
            res.writeHead(400).end(String(err));
          },
        );
      });
    });
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.origin = `https://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    this.agent = new Agent({ ca: cert });
    return this;
  }

  /** A new subscription, as the browser's PushSubscription.toJSON() gives it. */
  subscribe() {
    const id = b64u(randomBytes(9));
    const ecdh = createECDH('prime256v1');
    ecdh.generateKeys();
    const sub: Sub = { id, ecdh, auth: randomBytes(16), gone: false };
    this.subs.set(id, sub);
    return { endpoint: `${this.origin}/push/${id}`, keys: { p256dh: b64u(ecdh.getPublicKey()), auth: b64u(sub.auth) } };
  }

  /** The browser dropped the subscription: the service answers 410 from now on. */
  expire(endpoint: string) {
    const s = this.subs.get(endpoint.split('/').pop()!);
    if (s) s.gone = true;
  }

  of(endpoint: string) {
    const id = endpoint.split('/').pop()!;
    return this.messages.filter((m) => m.subscription === id);
  }

  private async receive(url: string, h: Record<string, string | undefined>, body: Buffer): Promise<number> {
    const id = url.replace(/^\/push\//, '');
    const sub = this.subs.get(id);
    if (!sub) return 404;
    if (sub.gone) return 410;
    // VAPID: Authorization: vapid t=<jwt>, k=<public key>.
    const m = /^vapid t=([^,]+),\s*k=(.+)$/.exec(h.authorization ?? '');
    if (!m) throw new Error('no VAPID authorization');
    const [, jwt, k] = m;
    const raw = Buffer.from(k!, 'base64url');
    if (raw.length !== 65 || decodeProtectedHeader(jwt!).alg !== 'ES256') throw new Error('bad VAPID key');
    const pub = await importJWK(
      { kty: 'EC', crv: 'P-256', x: b64u(raw.subarray(1, 33)), y: b64u(raw.subarray(33)) },
      'ES256',
    );
    const { payload: claims } = await jwtVerify(jwt!, pub, { audience: this.origin });
    if (typeof claims.sub !== 'string' || !/^(mailto:|https:)/.test(claims.sub)) throw new Error('bad VAPID subject');
    if (h['content-encoding'] !== 'aes128gcm') throw new Error(`content-encoding ${h['content-encoding']}`);
    this.messages.push({
      subscription: id,
      payload: decryptPush(body, sub),
      topic: h.topic,
      urgency: h.urgency,
      ttl: h.ttl,
      vapidKey: k!,
      claims,
    });
    return 201;
  }

  async stop() {
    await new Promise<void>((r) => this.server.close(() => r()));
    this.agent.destroy();
  }
}
