// Sign-in rules: image captcha, SMS codes with their abuse limits, phone login, ID-token logins (Google,
// Apple, Facebook), WeChat/Alipay code logins, and the tourist upgrade. Every limit is read from and written
// to the database under a per-number advisory lock, so it holds across any number of server processes.
import { randomInt, timingSafeEqual } from 'node:crypto';
import svgCaptcha from 'svg-captcha';
import type { Db, Queryable } from '../../db/db.ts';
import type { Clock } from '../../lib/clock.ts';
import { AppError, badRequest, refused } from '../../lib/errors.ts';
import { sha256 } from '../../lib/ids.ts';
import { CODE_LENGTH, SIGN_WINDOW_S, signMaterial } from '#core/sign.ts';
import type { AuthService } from './service.ts';
import { userOwner, WalletService } from '../wallet/service.ts';
import type { UserRow } from './repository.ts';
import {
  CodeRejected, InvalidIdToken,
  type BotCheck, type CodeExchange, type IdTokenVerifier, type SmsGateway,
} from './adapters.ts';

export const LIMITS = {
  codeTtlMs: 5 * 60_000,
  maxTries: 5,
  perNumberIntervalMs: 60_000,
  perNumberPerDay: 10,
  perIpPerHour: 20,
  captchaTtlMs: 5 * 60_000,
};

export type Provider = 'phone' | 'google' | 'apple' | 'facebook' | 'wechat' | 'alipay';

const tooMany = (key: string, params?: Record<string, string | number>) => new AppError(422, key, params);

export interface SignInDeps {
  db: Db;
  wallet: WalletService;
  clock: Clock;
  auth: AuthService;
  sms: SmsGateway;
  botCheck: BotCheck;
  verifiers: { google: IdTokenVerifier; apple: IdTokenVerifier; facebook: IdTokenVerifier };
  exchanges: { wechat: CodeExchange; alipay: CodeExchange };
}

const digits = (s: string) => s.replace(/\D/g, '');

/** A transaction-scoped lock on a name, shared by every process on the database. */
const lock = (tx: Queryable, name: string) => tx.query('select pg_advisory_xact_lock(hashtext($1))', [name]);

/** Voids every unused code of a number (a new code replaces them; an undelivered one is void). */
const voidCodes = (tx: Queryable, mobile: string, at: Date) =>
  tx.query('update otp_codes set used_at = $2 where mobile = $1 and used_at is null', [mobile, at]);

export class SignInService {
  constructor(private readonly d: SignInDeps, private readonly log?: (err: unknown) => void) {}

  // ----- captcha -----
  /** A new image for this uuid (replacing any earlier answer); the answer is stored hashed. */
  async captcha(uuid: string): Promise<string> {
    const c = svgCaptcha.create({ size: 4, noise: 3, color: true, ignoreChars: '0oO1ilI', width: 120, height: 44 });
    const expires = new Date(this.d.clock.now().getTime() + LIMITS.captchaTtlMs);
    await this.d.db.query(
      `insert into captchas (uuid, answer_hash, expires_at) values ($1,$2,$3)
       on conflict (uuid) do update set answer_hash = excluded.answer_hash, expires_at = excluded.expires_at`,
      [uuid, sha256(c.text.toLowerCase()), expires],
    );
    return c.data;
  }

  /** Single use: the row is deleted whether the answer was right or not. */
  private async checkCaptcha(uuid: string, answer: string, q: Queryable) {
    const { rows } = await q.query<{ answer_hash: string; expires_at: Date }>('delete from captchas where uuid = $1 returning answer_hash, expires_at', [uuid]);
    const row = rows[0];
    if (!row || new Date(row.expires_at) <= this.d.clock.now() || row.answer_hash !== sha256(answer.trim().toLowerCase())) {
      throw badRequest('error.login.captcha');
    }
  }

  // ----- SMS code -----
  async sendCode(input: { mobile: string; timestamp: string; sign: string; botToken: string; uuid: string; captcha: string; ip: string; locale: string }): Promise<void> {
    const now = this.d.clock.now();
    const mobile = digits(input.mobile);
    if (mobile.length < 6 || mobile.length > 16) throw badRequest('error.login.phone');
    // The timestamp sign (spec §7): a fresh timestamp and its hash.
    const ts = Number(input.timestamp);
    const expected = sha256(signMaterial(input.timestamp));
    if (!/^\d{9,11}$/.test(input.timestamp) || Math.abs(ts - now.getTime() / 1000) > SIGN_WINDOW_S || !safeEqual(expected, input.sign.toLowerCase())) {
      throw badRequest('error.login.sign');
    }
    if (!(await this.d.botCheck.verify(input.botToken, input.ip))) throw badRequest('error.login.botCheck');
    const code = String(randomInt(0, 10 ** CODE_LENGTH)).padStart(CODE_LENGTH, '0');
    const sendId = await this.d.db.tx(async (tx) => {
      await this.checkCaptcha(input.uuid, input.captcha, tx);
      // Serialise sends per number and per IP across processes; the limits read the shared send log.
      await lock(tx, `otp:${mobile}`);
      await lock(tx, `otp-ip:${input.ip}`);
      const { rows } = await tx.query<{ last: Date | null; day: number; ip_hour: number }>(
        `select (select max(created_at) from otp_sends where mobile = $1) as last,
                (select count(*)::int from otp_sends where mobile = $1 and created_at > $2) as day,
                (select count(*)::int from otp_sends where ip = $3 and created_at > $4) as ip_hour`,
        [mobile, new Date(now.getTime() - 24 * 3600_000), input.ip, new Date(now.getTime() - 3600_000)],
      );
      const r = rows[0]!;
      if (r.last && now.getTime() - new Date(r.last).getTime() < LIMITS.perNumberIntervalMs) {
        const wait = Math.ceil((LIMITS.perNumberIntervalMs - (now.getTime() - new Date(r.last).getTime())) / 1000);
        throw tooMany('error.login.tooSoon', { seconds: wait });
      }
      if (Number(r.day) >= LIMITS.perNumberPerDay) throw tooMany('error.login.dailyLimit');
      if (Number(r.ip_hour) >= LIMITS.perIpPerHour) throw tooMany('error.login.ipLimit');
      const sent = await tx.query<{ id: number }>('insert into otp_sends (mobile, ip, created_at) values ($1,$2,$3) returning id', [mobile, input.ip, now]);
      // A new code replaces any earlier one for the number.
      await voidCodes(tx, mobile, now);
      await tx.query('insert into otp_codes (mobile, code_hash, created_at, expires_at) values ($1,$2,$3,$4)', [
        mobile, sha256(`${mobile}:${code}`), now, new Date(now.getTime() + LIMITS.codeTtlMs),
      ]);
      return Number(sent.rows[0]!.id);
    });
    try {
      await this.d.sms.send(mobile, smsText(input.locale, code));
    } catch (err) {
      // Not delivered: the code is void and the send does not count against the limits; the user may retry.
      this.log?.(err);
      await this.d.db.tx(async (tx) => {
        await tx.query('delete from otp_sends where id = $1', [sendId]);
        await voidCodes(tx, mobile, now);
      });
      throw tooMany('error.login.smsFailed');
    }
  }

  async mobileLogin(input: { mobile: string; areaCode: string; verifyCode: string; token?: string }): Promise<string> {
    const now = this.d.clock.now();
    const area = digits(input.areaCode);
    // mobileLogin's mobile is the national number; the code was sent to area code + number.
    const mobile = area + digits(input.mobile);
    if (!new RegExp(`^\\d{${CODE_LENGTH}}$`).test(input.verifyCode)) throw badRequest('error.login.code');
    const ok = await this.d.db.tx(async (tx) => {
      await lock(tx, `otp:${mobile}`);
      const { rows } = await tx.query<{ id: number; code_hash: string; expires_at: Date; attempts: number }>(
        'select id, code_hash, expires_at, attempts from otp_codes where mobile = $1 and used_at is null order by created_at desc limit 1',
        [mobile],
      );
      const row = rows[0];
      if (!row || new Date(row.expires_at) <= now) return 'expired' as const;
      if (row.attempts >= LIMITS.maxTries) return 'tries' as const;
      if (!safeEqual(row.code_hash, sha256(`${mobile}:${input.verifyCode}`))) {
        await tx.query('update otp_codes set attempts = attempts + 1 where id = $1', [row.id]);
        return row.attempts + 1 >= LIMITS.maxTries ? ('tries' as const) : ('wrong' as const);
      }
      await tx.query('update otp_codes set used_at = $2 where id = $1', [row.id, now]);
      return 'ok' as const;
    });
    if (ok === 'expired') throw refused('error.login.codeExpired');
    if (ok === 'tries') throw refused('error.login.codeTries');
    if (ok === 'wrong') throw refused('error.login.codeWrong');
    return this.signIn('phone', mobile, { mobile }, input.token);
  }

  // ----- third parties -----
  async idTokenLogin(provider: 'google' | 'apple' | 'facebook', token: string, touristToken?: string): Promise<string> {
    let who;
    try {
      who = await this.d.verifiers[provider].verify(token);
    } catch (err) {
      if (err instanceof InvalidIdToken) throw refused('error.login.idToken');
      throw err;
    }
    return this.signIn(provider, who.subject, { email: who.email, name: who.name }, touristToken);
  }

  async codeLogin(provider: 'wechat' | 'alipay', code: string, touristToken?: string): Promise<string> {
    let who;
    try {
      who = await this.d.exchanges[provider].exchange(code);
    } catch (err) {
      if (err instanceof CodeRejected) throw refused('error.login.code3rd');
      throw err;
    }
    return this.signIn(provider, who.subject, {}, touristToken);
  }

  authorizeUrl(provider: 'wechat' | 'alipay', redirectUrl: string): string {
    return this.d.exchanges[provider].authorizeUrl(redirectUrl);
  }

  /**
   * A tourist signing into an account that already exists: the tourist's ended orders move to the account
   * and each wallet balance moves with one posted ledger transfer per currency (code account_merge). With an
   * open rental or an open hold nothing moves (it would strand the hold); the tourist keeps them and the
   * result is false.
   */
  async mergeTourist(touristId: number, userId: number, at: Date, tx: Queryable): Promise<boolean> {
    const open = await tx.query<{ n: number }>(
      `select (select count(*)::int from orders where user_id = $1 and zujie in (0, 1, 4) and not settled) +
              (select count(*)::int from ledger_accounts where owner_type = 'user' and owner_id = $2 and (debits_pending > 0 or credits_pending > 0)) as n`,
      [touristId, String(touristId)],
    );
    if (Number(open.rows[0]!.n) > 0) return false;
    const { rows: accounts } = await tx.query<{ currency: string }>(
      `select currency from ledger_accounts where owner_type = 'user' and owner_id = $1 and kind = 'wallet'`, [String(touristId)],
    );
    for (const { currency } of accounts) {
      const from = await this.d.wallet.account(userOwner(touristId), 'wallet', currency, tx);
      const amount = WalletService.available(from);
      if (amount <= 0) continue;
      const to = await this.d.wallet.account(userOwner(userId), 'wallet', currency, tx);
      await this.d.wallet.transfer({ debit: from, credit: to, amount, code: 'account_merge', at, mustNotOverdraw: true }, tx);
    }
    await tx.query('update orders set user_id = $2 where user_id = $1', [touristId, userId]);
    return true;
  }

  /**
   * The user of this identity gets a new session. Unknown identity: when the request carries a tourist
   * session, that tourist becomes this user (same id, so orders and wallet stay); otherwise a new user.
   */
  private async signIn(provider: Provider, subject: string, profile: { mobile?: string; email?: string; name?: string }, touristToken?: string): Promise<string> {
    const now = this.d.clock.now();
    let tourist: UserRow | undefined;
    if (touristToken) tourist = await this.d.auth.authenticate(touristToken).catch(() => undefined);
    const userId = await this.d.db.tx(async (tx) => {
      await lock(tx, `id:${provider}:${subject}`);
      const { rows } = await tx.query<{ user_id: number }>('select user_id from user_identities where provider = $1 and subject = $2', [provider, subject]);
      if (rows[0]) {
        const existing = Number(rows[0].user_id);
        if (tourist && tourist.kind === 'tourist' && Number(tourist.id) !== existing) await this.mergeTourist(Number(tourist.id), existing, now, tx);
        return existing;
      }
      let id: number;
      const name = profile.name || (profile.mobile ? `+${profile.mobile}` : `${provider}-${subject.slice(-6)}`);
      if (tourist && tourist.kind === 'tourist') {
        id = Number(tourist.id);
        await tx.query(
          `update users set kind = 'user', name = $2, device_code = null, mobile = coalesce($3, mobile), email = coalesce($4, email)
           where id = $1 and kind = 'tourist'`,
          [id, name, profile.mobile ?? null, profile.email ?? null],
        );
      } else {
        const r = await tx.query<{ id: number }>(
          `insert into users (kind, name, currency, mobile, email, created_at) values ('user', $1, $2, $3, $4, $5) returning id`,
          [name, tourist?.currency ?? 'USD', profile.mobile ?? null, profile.email ?? null, now],
        );
        id = Number(r.rows[0]!.id);
      }
      await tx.query('insert into user_identities (provider, subject, user_id, created_at) values ($1,$2,$3,$4)', [provider, subject, id, now]);
      return id;
    });
    // The tourist session ends when it was upgraded or replaced.
    if (touristToken && tourist) await this.d.auth.revoke(touristToken);
    return this.d.auth.issueSession(userId);
  }
}

function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

const SMS_TEXT: Record<string, string> = {
  'en-US': 'Your Powerly code is {code}. It expires in 5 minutes.',
  'zh-CN': '您的 Powerly 验证码是 {code}，5 分钟内有效。',
  'lt-LT': 'Jūsų Powerly kodas: {code}. Galioja 5 minutes.',
  'pt-PT': 'O seu código Powerly é {code}. Expira em 5 minutos.',
  'es-ES': 'Tu código de Powerly es {code}. Caduca en 5 minutos.',
};
export function smsText(locale: string, code: string): string {
  return (SMS_TEXT[locale] ?? SMS_TEXT['en-US']!).replace('{code}', code);
}
