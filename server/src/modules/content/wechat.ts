// WeChat JS-SDK configuration (the `wx.config` signature). The signature is WeChat's documented algorithm:
// sha1 over "jsapi_ticket=…&noncestr=…&timestamp=…&url=…" (keys in ASCII order, url without its #fragment).
// The jsapi_ticket comes from an adapter: the real one asks api.weixin.qq.com (access_token → ticket, both
// cached until shortly before they expire); the sandbox one (default) derives a stable ticket from its secret,
// as WeChat's test account would hand one out, so nothing leaves the machine.
import { createHash, createHmac, randomBytes } from 'node:crypto';
import { UpstreamUnavailable, upstreamFetch } from '../../lib/errors.ts';

export interface WeChatTicketSource {
  readonly appId: string;
  jsapiTicket(): Promise<string>;
}

export function jsSdkSignature(p: {
  ticket: string;
  noncestr: string;
  timestamp: number | string;
  url: string;
}): string {
  const s = `jsapi_ticket=${p.ticket}&noncestr=${p.noncestr}&timestamp=${p.timestamp}&url=${p.url}`;
  return createHash('sha1').update(s).digest('hex');
}

/** The page URL WeChat signs: everything before '#'. */
export function signableUrl(url: string): string {
  const i = url.indexOf('#');
  return i >= 0 ? url.slice(0, i) : url;
}

export class SandboxWeChat implements WeChatTicketSource {
  constructor(
    readonly appId = 'wx_sandbox_powerly',
    private readonly secret = 'sandbox_secret_powerly',
  ) {}
  async jsapiTicket() {
    return 'sandbox_' + createHmac('sha256', this.secret).update(`jsapi_ticket:${this.appId}`).digest('base64url');
  }
}

export class WeChatApi implements WeChatTicketSource {
  private cached: { ticket: string; until: number } | null = null;
  constructor(
    readonly appId: string,
    private readonly secret: string,
    private readonly base = 'https://api.weixin.qq.com',
    private readonly fetchFn: typeof fetch = fetch,
  ) {}
  async jsapiTicket() {
    if (this.cached && this.cached.until > Date.now()) return this.cached.ticket;
    const tok = await this.call<{ access_token: string; expires_in: number }>(
      `/cgi-bin/token?grant_type=client_credential&appid=${encodeURIComponent(this.appId)}&secret=${encodeURIComponent(this.secret)}`,
    );
    const t = await this.call<{ ticket: string; expires_in: number }>(
      `/cgi-bin/ticket/getticket?access_token=${encodeURIComponent(tok.access_token)}&type=jsapi`,
    );
    this.cached = { ticket: t.ticket, until: Date.now() + Math.max(60, t.expires_in - 300) * 1000 };
    return t.ticket;
  }
  private async call<T>(path: string): Promise<T> {
    const res = await upstreamFetch('wechat', this.base + path, {}, this.fetchFn);
    const body = (await res.json().catch(() => ({}))) as T & { errcode?: number; errmsg?: string };
    if (!res.ok || (body.errcode && body.errcode !== 0))
      throw new UpstreamUnavailable('wechat', new Error(`${body.errcode ?? res.status}: ${body.errmsg ?? ''}`));
    return body;
  }
}

export function nonce(): string {
  return randomBytes(12).toString('base64url');
}
