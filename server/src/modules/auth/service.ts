import type { Clock } from '../../lib/clock.ts';
import { badRequest, unauthorized } from '../../lib/errors.ts';
import { monriBillingText, parseMonriBilling } from '#core/monriBilling.ts';
import type { Locale } from '../../lib/i18n.ts';
import { randomToken, sha256 } from '../../lib/ids.ts';
import { AuthRepository, type UserRow } from './repository.ts';

/** A user's row, as other modules see it. */
export type { UserRow };

export const SESSION_TTL_MS = 30 * 24 * 3600_000;

const CURRENCY_BY_LOCALE: Record<Locale, string> = {
  'en-US': 'USD',
  'zh-CN': 'CNY',
  'lt-LT': 'EUR',
  'pt-PT': 'EUR',
  'es-ES': 'EUR',
};

/** The keys of user/more (monriBilling). */
export const MORE_KEYS = ['monriBilling'];

export class AuthService {
  constructor(
    readonly repo: AuthRepository,
    private readonly clock: Clock,
    private readonly sessionTtlMs = SESSION_TTL_MS,
  ) {}

  /** GET user/more?keys=a,b: the user's stored values of these keys (null where none is stored). Unknown keys: 400. */
  async more(userId: number, keysParam: string) {
    const keys = [
      ...new Set(
        keysParam
          .split(',')
          .map((k) => k.trim())
          .filter(Boolean),
      ),
    ];
    const unknown = keys.find((k) => !MORE_KEYS.includes(k));
    if (!keys.length || unknown !== undefined)
      throw badRequest('error.more.unknownKey', { key: (unknown ?? '').slice(0, 40), known: MORE_KEYS.join(', ') });
    const found = await this.repo.moreValues(userId, keys);
    return Object.fromEntries(keys.map((k) => [k, found.get(k) ?? null])) as Record<string, string | null>;
  }

  /**
   * POST user/more {monriBilling: JSON text}: validated by the key's rule (src/core/monriBilling.ts) and stored
   * normalised (the known fields, trimmed); a clear 400 naming the fault otherwise.
   */
  async setMore(userId: number, values: { monriBilling?: string }) {
    if (values.monriBilling === undefined)
      throw badRequest('error.more.unknownKey', { key: '', known: MORE_KEYS.join(', ') });
    const r = parseMonriBilling(values.monriBilling);
    if ('fault' in r) {
      const params: Record<string, string | number> = 'field' in r ? { field: r.field } : {};
      if ('max' in r) params.max = r.max;
      throw badRequest(`error.more.monriBilling.${r.fault}`, params);
    }
    await this.repo.setMoreValue(userId, 'monriBilling', monriBillingText(r.billing), this.clock.now());
  }

  /**
   * The user's fields that come from their WeChat and Alipay identities, and their own name: alUserId (Alipay's
   * user id), p_openID and pUnionid (WeChat's openid and unionid), p_name (the name of a signed-up person; null
   * for a guest or a sign-in that gave none). Null where the person has no such identity.
   */
  async providerFields(user: UserRow) {
    const rows = await this.repo.providerIds(user.id);
    const wechat = rows.find((r) => r.provider === 'wechat');
    const alipay = rows.find((r) => r.provider === 'alipay');
    return {
      // The Alipay identity's subject is its user_id; one made from an open_id alone has no user id.
      alUserId: alipay && alipay.subject !== alipay.open_id ? alipay.subject : null,
      p_name: user.kind === 'user' && user.name ? user.name : null,
      p_openID: wechat?.open_id ?? null,
      pUnionid: wechat?.union_id ?? null,
    };
  }

  /**
   * The user's WeChat openid (their WeChat sign-in's, for the official account it signed in with): the payer of a
   * WeChat Pay JSAPI payment in the WeChat browser. Undefined without a WeChat identity.
   */
  async wechatOpenId(userId: number): Promise<string | undefined> {
    return (
      (await this.repo.providerIds(userId)).find((r) => r.provider === 'wechat' && r.open_id)?.open_id ?? undefined
    );
  }

  /** A tourist user (the same one again for the same device code) and a fresh session token. */
  async touristLogin(deviceCode: string | undefined, locale: Locale): Promise<{ token: string; user: UserRow }> {
    const now = this.clock.now();
    let user = deviceCode ? await this.repo.userByDeviceCode(deviceCode) : undefined;
    if (!user) {
      const suffix = randomToken(6)
        .replace(/[^A-Za-z0-9]/g, 'X')
        .slice(0, 6)
        .toUpperCase();
      user = await this.repo.createUser({
        kind: 'tourist',
        name: `Tourist-${suffix}`,
        deviceCode: deviceCode ?? null,
        currency: CURRENCY_BY_LOCALE[locale],
        at: now,
      });
    }
    const token = await this.issueSession(user.id);
    return { token, user };
  }

  /**
   * Locks the user's row for the current unit of work (a user's rentals are serialised on it); with `currency`, it
   * also becomes the user's last currency.
   */
  async lock(userId: number, opts: { currency?: string } = {}): Promise<void> {
    await this.repo.lock(userId, opts);
  }

  /** A fresh random session token for the user; only its sha256 is stored. */
  async issueSession(userId: number): Promise<string> {
    const now = this.clock.now();
    const token = randomToken(32);
    await this.repo.createSession({
      tokenHash: sha256(token),
      userId,
      at: now,
      expiresAt: new Date(now.getTime() + this.sessionTtlMs),
    });
    return token;
  }

  /** Logout: the token stops working at once, everywhere (revoked in the database). */
  async revoke(token: string): Promise<boolean> {
    if (!token || token.length > 200) return false;
    return this.repo.revokeSession(sha256(token), this.clock.now());
  }

  /**
   * What a session is looked up by (the token's hash), for a route that reads its session in its own query
   * (the scan); a missing or oversized token is refused here, as `authenticate` does.
   */
  sessionKey(token: string | string[] | undefined): string {
    const t = Array.isArray(token) ? token[0] : token;
    if (!t || t.length > 200) throw unauthorized();
    return sha256(t);
  }

  async authenticate(token: string | undefined): Promise<UserRow> {
    const user = await this.repo.userBySession(this.sessionKey(token), this.clock.now());
    if (!user) throw unauthorized();
    return { ...user, id: Number(user.id) };
  }
}
