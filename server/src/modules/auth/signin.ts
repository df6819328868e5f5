// Sign-in rules: image captcha, SMS codes with their abuse limits, phone login, ID-token logins (Google,
// Apple, Facebook), WeChat/Alipay code logins, and the tourist upgrade. Every limit is read from and written
// to the database under a per-number advisory lock, so it holds across any number of server processes.
import { createHmac, randomInt, timingSafeEqual } from 'node:crypto';
import sharp from 'sharp';
import svgCaptcha from 'svg-captcha';
import type { Db } from '../../db/db.ts';
import type { Clock } from '../../lib/clock.ts';
import { AppError, badRequest, refused } from '../../lib/errors.ts';
import { sha256 } from '../../lib/ids.ts';
import { t, type Locale } from '../../lib/i18n.ts';
import { CODE_LENGTH, SIGN_WINDOW_S, signMaterial } from '#core/sign.ts';
import type { AuthService } from './service.ts';
import { userOwner, LedgerService } from '../ledger/service.ts';
import type { SignInRepository, UserRow } from './repository.ts';
import {
  CodeRejected,
  InvalidIdToken,
  type BotCheck,
  type CodeExchange,
  type IdTokenVerifier,
  type SmsGateway,
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

/**
 * A tourist's orders, as the rentals module keeps them (given at wiring: auth does not import rentals, which uses it):
 * how many are still open, and moving all of them to another user.
 */
export interface TouristOrders {
  openCount(userId: number): Promise<number>;
  reassign(fromUserId: number, toUserId: number): Promise<void>;
}

export interface SignInDeps {
  db: Db;
  repo: SignInRepository;
  ledger: LedgerService;
  /** A tourist's orders move to the account it signs into (rentals module). */
  orders: TouristOrders;
  clock: Clock;
  auth: AuthService;
  sms: SmsGateway;
  botCheck: BotCheck;
  verifiers: { google: IdTokenVerifier; apple: IdTokenVerifier; facebook: IdTokenVerifier };
  exchanges: { wechat: CodeExchange; alipay: CodeExchange };
  /** The HMAC key of the openId exchange's signatures (the installation's signing key, the same on every process). */
  signingKey: string;
}

/** How long an openId signature signs in (as long as a session lasts). */
export const OPEN_ID_SIGN_TTL_MS = 30 * 24 * 3600_000;

const digits = (s: string) => s.replace(/\D/g, '');

export class SignInService {
  constructor(
    private readonly d: SignInDeps,
    private readonly log?: (err: unknown) => void,
  ) {}

  // ----- captcha -----
  /**
   * A new picture for this uuid, bound to the client (address) that asked for it; the answer is stored hashed. Another
   * client cannot replace a live captcha of this uuid (error.login.captcha). The drawing is rasterised to WebP here:
   * svg-captcha's SVG draws each character as a glyph outline a script can match, and that never leaves the server.
   */
  async captcha(uuid: string, client: string): Promise<Buffer> {
    const c = svgCaptcha.create({ size: 4, noise: 3, color: true, ignoreChars: '0oO1ilI', width: 120, height: 44 });
    await this.saveCaptcha(uuid, c.text, client);
    return sharp(Buffer.from(c.data), { density: 144 })
      .flatten({ background: '#ffffff' })
      .webp({ quality: 70 })
      .toBuffer();
  }

  /**
   * The accessible alternative to the picture (WCAG 1.1.1: another modality): the same single-use, client-bound
   * challenge as text a screen reader speaks, in the user's language: five digits spelled as words, typed as digits.
   * It replaces the picture of this uuid (one challenge per uuid at a time).
   */
  async captchaQuestion(uuid: string, client: string, locale: Locale): Promise<string> {
    const digitsOf = Array.from({ length: 5 }, () => randomInt(10));
    await this.saveCaptcha(uuid, digitsOf.join(''), client);
    const words = digitsOf.map((d) => t(locale, `captcha.digit.${d}`)).join(t(locale, 'captcha.separator'));
    return t(locale, 'captcha.question', { words });
  }

  private async saveCaptcha(uuid: string, answer: string, client: string) {
    const now = this.d.clock.now();
    const expires = new Date(now.getTime() + LIMITS.captchaTtlMs);
    if (!(await this.d.repo.saveCaptcha(uuid, sha256(answer.toLowerCase()), expires, client, now)))
      throw badRequest('error.login.captcha');
  }

  /**
   * One answer per image: the row is deleted (committed at once, outside any transaction, so that no later refusal
   * rolls it back) whether the answer was right or not; only the client it was issued to can answer it.
   */
  private async checkCaptcha(uuid: string, answer: string, client: string) {
    const row = await this.d.repo.takeCaptcha(uuid);
    if (
      !row ||
      row.client !== client ||
      new Date(row.expires_at) <= this.d.clock.now() ||
      row.answer_hash !== sha256(answer.trim().toLowerCase())
    ) {
      throw badRequest('error.login.captcha');
    }
  }

  // ----- SMS code -----
  async sendCode(input: {
    mobile: string;
    timestamp: string;
    sign: string;
    botToken: string;
    uuid: string;
    captcha: string;
    ip: string;
    locale: string;
  }): Promise<void> {
    const now = this.d.clock.now();
    const mobile = digits(input.mobile);
    if (mobile.length < 6 || mobile.length > 16) throw badRequest('error.login.phone');
    // The timestamp sign: a fresh timestamp and its hash.
    const ts = Number(input.timestamp);
    const expected = sha256(signMaterial(input.timestamp));
    if (
      !/^\d{9,11}$/.test(input.timestamp) ||
      Math.abs(ts - now.getTime() / 1000) > SIGN_WINDOW_S ||
      !safeEqual(expected, input.sign.toLowerCase())
    ) {
      throw badRequest('error.login.sign');
    }
    if (!(await this.d.botCheck.verify(input.botToken, input.ip))) throw badRequest('error.login.botCheck');
    // Consumed before the transaction: a wrong answer or any later refusal does not give the image back.
    await this.checkCaptcha(input.uuid, input.captcha, input.ip);
    const code = String(randomInt(0, 10 ** CODE_LENGTH)).padStart(CODE_LENGTH, '0');
    const repo = this.d.repo;
    const sendId = await this.d.db.tx(async () => {
      // Serialise sends per number and per IP across processes; the limits read the shared send log.
      await repo.lock(`otp:${mobile}`);
      await repo.lock(`otp-ip:${input.ip}`);
      const r = await repo.sendStats(
        mobile,
        new Date(now.getTime() - 24 * 3600_000),
        input.ip,
        new Date(now.getTime() - 3600_000),
      );
      if (r.last && now.getTime() - new Date(r.last).getTime() < LIMITS.perNumberIntervalMs) {
        const wait = Math.ceil((LIMITS.perNumberIntervalMs - (now.getTime() - new Date(r.last).getTime())) / 1000);
        throw tooMany('error.login.tooSoon', { seconds: wait });
      }
      if (Number(r.day) >= LIMITS.perNumberPerDay) throw tooMany('error.login.dailyLimit');
      if (Number(r.ip_hour) >= LIMITS.perIpPerHour) throw tooMany('error.login.ipLimit');
      const sent = await repo.logSend(mobile, input.ip, now);
      // A new code replaces any earlier one for the number.
      await repo.voidCodes(mobile, now);
      await repo.insertCode(mobile, sha256(`${mobile}:${code}`), now, new Date(now.getTime() + LIMITS.codeTtlMs));
      return sent;
    });
    try {
      await this.d.sms.send(mobile, smsText(input.locale, code));
    } catch (err) {
      // Not delivered: the code is void and the send does not count against the limits; the user may retry.
      this.log?.(err);
      await this.d.db.tx(async () => {
        await repo.deleteSend(sendId);
        await repo.voidCodes(mobile, now);
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
    const repo = this.d.repo;
    const ok = await this.d.db.tx(async () => {
      await repo.lock(`otp:${mobile}`);
      const row = await repo.currentCode(mobile);
      if (!row || new Date(row.expires_at) <= now) return 'expired' as const;
      if (row.attempts >= LIMITS.maxTries) return 'tries' as const;
      if (!safeEqual(row.code_hash, sha256(`${mobile}:${input.verifyCode}`))) {
        await repo.countAttempt(row.id);
        return row.attempts + 1 >= LIMITS.maxTries ? ('tries' as const) : ('wrong' as const);
      }
      await repo.useCode(row.id, now);
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
    return (await this.codeSession(provider, code, touristToken)).token;
  }

  private async codeSession(provider: 'wechat' | 'alipay', code: string, touristToken?: string) {
    let who;
    try {
      who = await this.d.exchanges[provider].exchange(code);
    } catch (err) {
      if (err instanceof CodeRejected) throw refused('error.login.code3rd');
      throw err;
    }
    return {
      who,
      token: await this.signIn(provider, who.subject, {}, touristToken, { openId: who.openId, unionId: who.unionId }),
    };
  }

  /**
   * POST openId (the openId exchange): the code's person signed in, with their openid and the server's signature
   * over it (`<provider>.<expiry s>.<HMAC>`), which loginByOpenId takes for 30 days.
   */
  async openIdExchange(provider: 'wechat' | 'alipay', code: string, touristToken?: string) {
    const { who, token } = await this.codeSession(provider, code, touristToken);
    if (!who.openId) throw refused('error.login.code3rd');
    const exp = Math.floor((this.d.clock.now().getTime() + OPEN_ID_SIGN_TTL_MS) / 1000);
    return { token, openId: who.openId, openIdSign: `${provider}.${exp}.${this.openIdMac(provider, who.openId, exp)}` };
  }

  /** POST loginByOpenId: a session for the person of an openid the exchange signed; a bad or expired signature is refused. */
  async loginByOpenId(openId: string, sign: string, touristToken?: string): Promise<string> {
    const [provider, expText, mac = ''] = sign.split('.');
    const exp = Number(expText);
    const good =
      (provider === 'wechat' || provider === 'alipay') &&
      /^\d{9,11}$/.test(expText ?? '') &&
      exp * 1000 > this.d.clock.now().getTime() &&
      safeEqual(mac, this.openIdMac(provider, openId, exp));
    if (!good) throw refused('error.login.openId');
    const userId = await this.d.repo.userByOpenId(provider, openId);
    if (userId === undefined) throw refused('error.login.openId');
    if (touristToken) {
      const tourist = await this.d.auth.authenticate(touristToken).catch(() => undefined);
      if (tourist?.kind === 'tourist' && Number(tourist.id) !== userId) {
        await this.d.db.tx(() => this.mergeTourist(Number(tourist.id), userId, this.d.clock.now()));
        await this.d.auth.revoke(touristToken);
      }
    }
    return this.d.auth.issueSession(userId);
  }

  private openIdMac(provider: string, openId: string, exp: number): string {
    return createHmac('sha256', this.d.signingKey).update(`openid.v1|${provider}|${openId}|${exp}`).digest('base64url');
  }

  authorizeUrl(provider: 'wechat' | 'alipay', redirectUrl: string): string {
    // The schema's pattern lets through text that is still no URL (`https://[`): a 400, in sandbox and production alike.
    const u = URL.canParse(redirectUrl) ? new URL(redirectUrl) : null;
    if (!u || !/^https?:$/.test(u.protocol) || !u.hostname)
      throw badRequest('error.validation.field', { field: 'url' });
    return this.d.exchanges[provider].authorizeUrl(redirectUrl);
  }

  /**
   * A tourist signing into an account that already exists: the tourist's ended orders move to the account
   * and each wallet balance moves with one posted ledger transfer per currency (code account_merge). With an
   * open rental or an open hold nothing moves (it would strand the hold); the tourist keeps them and the
   * result is false.
   */
  async mergeTourist(touristId: number, userId: number, at: Date): Promise<boolean> {
    if ((await this.d.orders.openCount(touristId)) > 0 || (await this.d.ledger.hasOpenHold(touristId))) return false;
    for (const currency of await this.d.ledger.walletCurrencies(touristId)) {
      const from = await this.d.ledger.account(userOwner(touristId), 'wallet', currency);
      const amount = LedgerService.available(from);
      if (amount <= 0) continue;
      const to = await this.d.ledger.account(userOwner(userId), 'wallet', currency);
      await this.d.ledger.transfer({
        debit: from,
        credit: to,
        amount,
        code: 'account_merge',
        at,
        mustNotOverdraw: true,
      });
    }
    await this.d.orders.reassign(touristId, userId);
    return true;
  }

  /**
   * The user of this identity gets a new session. Unknown identity: when the request carries a tourist
   * session, that tourist becomes this user (same id, so orders and wallet stay); otherwise a new user.
   */
  private async signIn(
    provider: Provider,
    subject: string,
    profile: { mobile?: string; email?: string; name?: string },
    touristToken?: string,
    ids: { openId?: string; unionId?: string } = {},
  ): Promise<string> {
    const now = this.d.clock.now();
    let tourist: UserRow | undefined;
    if (touristToken) tourist = await this.d.auth.authenticate(touristToken).catch(() => undefined);
    const repo = this.d.repo;
    const userId = await this.d.db.tx(async () => {
      await repo.lock(`id:${provider}:${subject}`);
      const existing = await repo.identityUser(provider, subject);
      if (existing !== undefined) {
        await repo.setIdentityIds(provider, subject, ids);
        if (tourist && tourist.kind === 'tourist' && Number(tourist.id) !== existing)
          await this.mergeTourist(Number(tourist.id), existing, now);
        return existing;
      }
      let id: number;
      // No made-up name (an id such as "apple-1-44d9" read as a person's name): the app says "My account" for an empty one.
      const name = profile.name || profile.email || (profile.mobile ? `+${profile.mobile}` : '');
      if (tourist && tourist.kind === 'tourist') {
        id = Number(tourist.id);
        await repo.upgradeTourist(id, { name, mobile: profile.mobile ?? null, email: profile.email ?? null });
      } else {
        id = await repo.createUser({
          name,
          currency: tourist?.currency ?? 'USD',
          mobile: profile.mobile ?? null,
          email: profile.email ?? null,
          at: now,
        });
      }
      await repo.addIdentity(provider, subject, id, now, ids);
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
