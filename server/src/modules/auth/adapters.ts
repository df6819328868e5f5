// Side effects of sign-in behind small interfaces: SMS gateway, bot check (reCAPTCHA), ID-token verification
// (Google, Apple: OIDC + JWKS with jose), Facebook (Graph debug_token), WeChat and Alipay code exchange.
// Each has a real HTTP implementation selected by configuration and a sandbox that behaves like the
// provider's test mode.
import { createSign } from 'node:crypto';
import { createLocalJWKSet, createRemoteJWKSet, jwtVerify, type JWTVerifyGetKey, type JSONWebKeySet } from 'jose';
import type { SignInRepository } from './repository.ts';
import type { Clock } from '../../lib/clock.ts';
import { UpstreamUnavailable, upstreamFetch } from '../../lib/errors.ts';

// ---------- SMS ----------
export interface SmsGateway {
  readonly id: string;
  send(to: string, body: string): Promise<{ ref: string }>;
}

/** Sandbox: records every message in sms_outbox (tests and the demo page read it); nothing leaves the machine. */
export class SandboxSms implements SmsGateway {
  readonly id = 'sandbox';
  constructor(
    private readonly outbox: SignInRepository,
    private readonly clock: Clock,
  ) {}
  async send(to: string, body: string) {
    return { ref: `sandbox-${await this.outbox.recordSms(this.id, to, body, this.clock.now())}` };
  }
}

/** Twilio's REST Messages API (form POST, basic auth). `baseUrl` points elsewhere for a local peer. */
export class TwilioSms implements SmsGateway {
  readonly id = 'twilio';
  constructor(private readonly cfg: { accountSid: string; authToken: string; from: string; baseUrl?: string }) {}
  async send(to: string, body: string) {
    const base = this.cfg.baseUrl ?? 'https://api.twilio.com';
    const res = await upstreamFetch(
      'twilio',
      `${base}/2010-04-01/Accounts/${encodeURIComponent(this.cfg.accountSid)}/Messages.json`,
      {
        method: 'POST',
        headers: {
          authorization: 'Basic ' + Buffer.from(`${this.cfg.accountSid}:${this.cfg.authToken}`).toString('base64'),
          'content-type': 'application/x-www-form-urlencoded',
        },
        body: new URLSearchParams({ To: `+${to}`, From: this.cfg.from, Body: body }),
      },
    );
    const json = (await res.json().catch(() => ({}))) as { sid?: string; message?: string };
    if (!res.ok || !json.sid) throw new UpstreamUnavailable('twilio', new Error(`${res.status} ${json.message ?? ''}`));
    return { ref: json.sid };
  }
}

// ---------- Bot check ----------
export interface BotCheck {
  verify(token: string, ip: string): Promise<boolean>;
}

/** Sandbox like reCAPTCHA's test keys: every token passes, except ones a test forges as failing. */
export class SandboxBotCheck implements BotCheck {
  async verify(token: string) {
    return token.length > 0 && !token.startsWith('sandbox-fail');
  }
}

/** reCAPTCHA siteverify (v2/v3; v3 scores below minScore fail). */
export class RecaptchaBotCheck implements BotCheck {
  constructor(private readonly cfg: { secret: string; url?: string; minScore?: number }) {}
  async verify(token: string, ip: string) {
    if (!token) return false;
    const res = await upstreamFetch('recaptcha', this.cfg.url ?? 'https://www.google.com/recaptcha/api/siteverify', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ secret: this.cfg.secret, response: token, remoteip: ip }),
    });
    if (res.status >= 500) throw new UpstreamUnavailable('recaptcha', new Error(String(res.status)));
    if (!res.ok) return false;
    const j = (await res.json()) as { success?: boolean; score?: number };
    return j.success === true && (j.score === undefined || j.score >= (this.cfg.minScore ?? 0.5));
  }
}

// ---------- ID tokens (Google, Apple) ----------
export interface VerifiedIdentity {
  subject: string;
  email?: string;
  name?: string;
}

export interface IdTokenVerifier {
  verify(token: string): Promise<VerifiedIdentity>;
}

export class InvalidIdToken extends Error {}

/** OIDC ID token: signature against the issuer's JWKS, iss, aud, exp (jose). */
export class OidcVerifier implements IdTokenVerifier {
  private readonly keys: JWTVerifyGetKey;
  constructor(
    private readonly cfg: { issuer: string; audience: string; jwksUrl?: string; jwks?: JSONWebKeySet },
    private readonly clock: Clock,
  ) {
    this.keys = cfg.jwks
      ? createLocalJWKSet(cfg.jwks)
      : createRemoteJWKSet(new URL(cfg.jwksUrl!), { timeoutDuration: 10_000 });
  }
  async verify(token: string): Promise<VerifiedIdentity> {
    try {
      const { payload } = await jwtVerify(token, this.keys, {
        issuer: this.cfg.issuer,
        audience: this.cfg.audience,
        currentDate: this.clock.now(),
        requiredClaims: ['sub', 'exp'],
      });
      return {
        subject: String(payload.sub),
        email: typeof payload.email === 'string' ? payload.email : undefined,
        name: typeof payload.name === 'string' ? payload.name : undefined,
      };
    } catch (err) {
      throw new InvalidIdToken(err instanceof Error ? err.message : 'invalid');
    }
  }
}

export const GOOGLE = { issuer: 'https://accounts.google.com', jwksUrl: 'https://www.googleapis.com/oauth2/v3/certs' };
export const APPLE = { issuer: 'https://appleid.apple.com', jwksUrl: 'https://appleid.apple.com/auth/keys' };

/** Facebook user access tokens through the Graph API's debug_token (app token = appId|appSecret). */
export class FacebookVerifier implements IdTokenVerifier {
  constructor(
    private readonly cfg: { appId: string; appSecret: string; graphUrl?: string },
    private readonly clock: Clock,
  ) {}
  async verify(token: string): Promise<VerifiedIdentity> {
    const base = this.cfg.graphUrl ?? 'https://graph.facebook.com/v19.0';
    const url = `${base}/debug_token?input_token=${encodeURIComponent(token)}&access_token=${encodeURIComponent(`${this.cfg.appId}|${this.cfg.appSecret}`)}`;
    const res = await fetch(url, { signal: AbortSignal.timeout(10_000) }).catch(() => null);
    if (!res || !res.ok) throw new InvalidIdToken('facebook: debug_token failed');
    const { data } = (await res.json()) as {
      data?: { is_valid?: boolean; app_id?: string; user_id?: string; expires_at?: number };
    };
    if (!data?.is_valid || data.app_id !== this.cfg.appId || !data.user_id)
      throw new InvalidIdToken('facebook: invalid token');
    if (data.expires_at && data.expires_at * 1000 <= this.clock.now().getTime())
      throw new InvalidIdToken('facebook: expired');
    return { subject: data.user_id };
  }
}

// ---------- WeChat / Alipay code exchange ----------
/**
 * Who a code belongs to: the identity's subject (WeChat: the unionid when the app has one, else the openid; Alipay:
 * the user_id, else the open_id), and the app-scoped openid and WeChat's unionid as the provider gave them.
 */
export interface CodeIdentity {
  subject: string;
  openId?: string;
  unionId?: string;
}

export interface CodeExchange {
  readonly id: 'wechat' | 'alipay';
  exchange(code: string): Promise<CodeIdentity>;
  /** Where the in-app browser sends the user to authorise; it comes back to redirectUrl with the code. */
  authorizeUrl(redirectUrl: string): string;
}

export class CodeRejected extends Error {}

/**
 * Sandbox of both: like the providers' sandboxes, it authorises at once — the authorise URL comes straight
 * back with code `sbx_<random>`; a code maps to one stable user; codes not of that shape are rejected.
 */
export class SandboxCodeExchange implements CodeExchange {
  constructor(readonly id: 'wechat' | 'alipay') {}
  async exchange(code: string) {
    const m = /^sbx_([A-Za-z0-9_-]{4,64})$/.exec(code);
    if (!m) throw new CodeRejected(`${this.id}: invalid code`);
    // As the providers answer: an openid per person and app (here the code's stable part).
    // WeChat gives a unionid (the subject) where the app belongs to an open platform account, as the sandbox's does.
    return {
      subject: `sandbox-${m[1]}`,
      openId: `sbx-open-${m[1]}`,
      ...(this.id === 'wechat' ? { unionId: `sandbox-${m[1]}` } : {}),
    };
  }
  authorizeUrl(redirectUrl: string) {
    const u = new URL(redirectUrl);
    const code = `sbx_${Math.random().toString(36).slice(2, 12)}`;
    const [path, q = ''] = u.hash.split('?');
    const query = new URLSearchParams(q);
    query.set(this.id === 'wechat' ? 'code' : 'auth_code', code);
    if (this.id === 'wechat') query.set('state', 'WEB');
    u.hash = `${path}?${query}`;
    return u.toString();
  }
}

/** WeChat official-account web authorisation (sns/oauth2). */
export class WechatCodeExchange implements CodeExchange {
  readonly id = 'wechat' as const;
  constructor(private readonly cfg: { appId: string; secret: string; apiUrl?: string }) {}
  async exchange(code: string) {
    const base = this.cfg.apiUrl ?? 'https://api.weixin.qq.com';
    const q = new URLSearchParams({
      appid: this.cfg.appId,
      secret: this.cfg.secret,
      code,
      grant_type: 'authorization_code',
    });
    const res = await upstreamFetch('wechat', `${base}/sns/oauth2/access_token?${q}`);
    if (res.status >= 500) throw new UpstreamUnavailable('wechat', new Error(String(res.status)));
    const j = (await res.json().catch(() => ({}))) as { openid?: string; unionid?: string; errcode?: number };
    if (!j.openid) throw new CodeRejected(`wechat: ${j.errcode ?? res.status}`);
    return { subject: j.unionid ?? j.openid, openId: j.openid, ...(j.unionid ? { unionId: j.unionid } : {}) };
  }
  authorizeUrl(redirectUrl: string) {
    const q = new URLSearchParams({
      appid: this.cfg.appId,
      redirect_uri: redirectUrl,
      response_type: 'code',
      scope: 'snsapi_userinfo',
      state: 'WEB',
    });
    return `https://open.weixin.qq.com/connect/oauth2/authorize?${q}#wechat_redirect`;
  }
}

/** Alipay alipay.system.oauth.token (RSA2-signed request). */
export class AlipayCodeExchange implements CodeExchange {
  readonly id = 'alipay' as const;
  constructor(
    private readonly cfg: { appId: string; privateKeyPem: string; gatewayUrl?: string },
    private readonly clock: Clock,
  ) {}
  async exchange(code: string) {
    const p: Record<string, string> = {
      app_id: this.cfg.appId,
      method: 'alipay.system.oauth.token',
      charset: 'utf-8',
      sign_type: 'RSA2',
      timestamp: this.clock.now().toISOString().replace('T', ' ').slice(0, 19),
      version: '1.0',
      grant_type: 'authorization_code',
      code,
    };
    const material = Object.keys(p)
      .sort()
      .map((k) => `${k}=${p[k]}`)
      .join('&');
    p.sign = createSign('RSA-SHA256').update(material).sign(this.cfg.privateKeyPem, 'base64');
    const res = await upstreamFetch('alipay', this.cfg.gatewayUrl ?? 'https://openapi.alipay.com/gateway.do', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded;charset=utf-8' },
      body: new URLSearchParams(p),
    });
    if (res.status >= 500) throw new UpstreamUnavailable('alipay', new Error(String(res.status)));
    const j = (await res.json().catch(() => ({}))) as {
      alipay_system_oauth_token_response?: { user_id?: string; open_id?: string };
    };
    const r = j.alipay_system_oauth_token_response;
    const subject = r?.user_id ?? r?.open_id;
    if (!subject) throw new CodeRejected('alipay: invalid code');
    return { subject, ...(r?.open_id ? { openId: r.open_id } : {}) };
  }
  authorizeUrl(redirectUrl: string) {
    const q = new URLSearchParams({ app_id: this.cfg.appId, scope: 'auth_base', redirect_uri: redirectUrl });
    return `https://openauth.alipay.com/oauth2/publicAppAuthorize.htm?${q}`;
  }
}
