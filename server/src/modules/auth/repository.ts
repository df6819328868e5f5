import type { Queryable } from '../../db/db.ts';
import { LIVE_SESSION } from './live-session-repository.ts';

export interface UserRow {
  id: number;
  kind: 'tourist' | 'user';
  name: string;
  device_code: string | null;
  currency: string;
  email: string | null;
  mobile: string | null;
}

export class AuthRepository {
  constructor(private readonly db: Queryable) {}

  // ---- user/more: a user's values by key ----

  async moreValues(userId: number, keys: string[]) {
    const { rows } = await this.db.query<{ key: string; value: string }>(
      'select key, value from user_more where user_id = $1 and key = any($2)',
      [userId, keys],
    );
    return new Map(rows.map((r) => [r.key, r.value]));
  }

  async setMoreValue(userId: number, key: string, value: string, at: Date) {
    await this.db.query(
      `insert into user_more (user_id, key, value, updated_at) values ($1, $2, $3, $4)
       on conflict (user_id, key) do update set value = excluded.value, updated_at = excluded.updated_at`,
      [userId, key, value, at],
    );
  }

  /** What the user's WeChat and Alipay identities tell: the openids, WeChat's unionid, Alipay's user id. */
  async providerIds(userId: number) {
    const { rows } = await this.db.query<{
      provider: string;
      subject: string;
      open_id: string | null;
      union_id: string | null;
    }>(
      `select provider, subject, open_id, union_id from user_identities where user_id = $1 and provider in ('wechat', 'alipay') order by created_at`,
      [userId],
    );
    return rows;
  }

  async userByDeviceCode(code: string) {
    const { rows } = await this.db.query<UserRow>('select * from users where device_code = $1', [code]);
    return rows[0];
  }

  async createUser(u: { kind: 'tourist'; name: string; deviceCode: string | null; currency: string; at: Date }) {
    const { rows } = await this.db.query<UserRow>(
      `insert into users (kind, name, device_code, currency, created_at) values ($1,$2,$3,$4,$5)
       on conflict (device_code) do update set device_code = excluded.device_code returning *`,
      [u.kind, u.name, u.deviceCode, u.currency, u.at],
    );
    return rows[0]!;
  }

  async user(id: number) {
    const { rows } = await this.db.query<UserRow>('select * from users where id = $1', [id]);
    return rows[0];
  }

  /**
   * Locks the user's row for the rest of the unit of work (serialises one user's rentals). FOR NO KEY UPDATE, not
   * FOR UPDATE: it must not block the foreign-key checks of rows that reference the user (a withdrawal, a payment,
   * an idempotency key), which take KEY SHARE. A withdrawal writes its row while it holds the user's wallet, the
   * wallet a rental locks after its user: with FOR UPDATE the two waited for each other and PostgreSQL aborted one
   * (deadlock detected, a 500). Two rentals still queue here (NO KEY UPDATE conflicts with itself).
   */
  /** Locks the user's row for the caller's unit of work; with `currency`, records it as their last one in the same statement. */
  async lock(id: number, opts: { currency?: string } = {}) {
    if (opts.currency) await this.db.query('update users set currency = $2 where id = $1', [id, opts.currency]);
    else await this.db.query('select id from users where id = $1 for no key update', [id]);
  }

  async setCurrency(id: number, currency: string) {
    await this.db.query('update users set currency = $2 where id = $1', [id, currency]);
  }

  async createSession(s: { tokenHash: string; userId: number; at: Date; expiresAt: Date }) {
    await this.db.query('insert into sessions (token_hash, user_id, created_at, expires_at) values ($1,$2,$3,$4)', [
      s.tokenHash,
      s.userId,
      s.at,
      s.expiresAt,
    ]);
  }

  async userBySession(tokenHash: string, now: Date) {
    const { rows } = await this.db.query<UserRow>(
      `select u.* from sessions s join users u on u.id = s.user_id where ${LIVE_SESSION('s', '$1', '$2')}`,
      [tokenHash, now],
      { name: 'auth.userBySession' },
    );
    return rows[0];
  }

  async revokeSession(tokenHash: string, at: Date) {
    const r = await this.db.query('update sessions set revoked_at = $2 where token_hash = $1 and revoked_at is null', [
      tokenHash,
      at,
    ]);
    return r.rowCount > 0;
  }
}

/**
 * Sign-in state (auth module): captchas, the SMS send log and codes, third-party identities, the sandbox SMS
 * outbox. Limits are read and written under transaction-scoped advisory locks (call inside a unit of work).
 */
export class SignInRepository {
  constructor(private readonly db: Queryable) {}

  /** A transaction-scoped lock on a name, shared by every process on the database (released at commit). */
  async lock(name: string) {
    await this.db.query('select pg_advisory_xact_lock(hashtext($1))', [name]);
  }

  /**
   * Saves a captcha for `client`; a new image for the same uuid replaces the answer only for the client that asked
   * first (or once the old one expired), so nobody can void another person's captcha. False when refused.
   */
  async saveCaptcha(uuid: string, answerHash: string, expiresAt: Date, client: string, now: Date) {
    const r = await this.db.query(
      `insert into captchas (uuid, answer_hash, expires_at, client) values ($1,$2,$3,$4)
       on conflict (uuid) do update set answer_hash = excluded.answer_hash, expires_at = excluded.expires_at, client = excluded.client
         where captchas.client = excluded.client or captchas.expires_at <= $5`,
      [uuid, answerHash, expiresAt, client, now],
    );
    return r.rowCount === 1;
  }

  /** Deletes the captcha and returns what it was (single use: one answer per image, right or wrong). */
  async takeCaptcha(uuid: string) {
    const { rows } = await this.db.query<{ answer_hash: string; expires_at: Date; client: string }>(
      'delete from captchas where uuid = $1 returning answer_hash, expires_at, client',
      [uuid],
    );
    return rows[0];
  }

  /** Retention: captchas that expired before `before`. */
  async sweepCaptchas(before: Date) {
    return (await this.db.query('delete from captchas where expires_at < $1', [before])).rowCount;
  }

  /** Retention: the SMS send log before `before` (the limits look back 24 hours at most). */
  async sweepOtpSends(before: Date) {
    return (await this.db.query('delete from otp_sends where created_at < $1', [before])).rowCount;
  }

  /** The last send to the number, sends to it since `daySince`, and sends from the IP since `hourSince`. */
  async sendStats(mobile: string, daySince: Date, ip: string, hourSince: Date) {
    const { rows } = await this.db.query<{ last: Date | null; day: number; ip_hour: number }>(
      `select (select max(created_at) from otp_sends where mobile = $1) as last,
              (select count(*)::int from otp_sends where mobile = $1 and created_at > $2) as day,
              (select count(*)::int from otp_sends where ip = $3 and created_at > $4) as ip_hour`,
      [mobile, daySince, ip, hourSince],
    );
    return rows[0]!;
  }

  async logSend(mobile: string, ip: string, at: Date) {
    const { rows } = await this.db.query<{ id: number }>(
      'insert into otp_sends (mobile, ip, created_at) values ($1,$2,$3) returning id',
      [mobile, ip, at],
    );
    return Number(rows[0]!.id);
  }

  async deleteSend(id: number) {
    await this.db.query('delete from otp_sends where id = $1', [id]);
  }

  /** Voids every unused code of a number (a new code replaces them; an undelivered one is void). */
  async voidCodes(mobile: string, at: Date) {
    await this.db.query('update otp_codes set used_at = $2 where mobile = $1 and used_at is null', [mobile, at]);
  }

  async insertCode(mobile: string, codeHash: string, at: Date, expiresAt: Date) {
    await this.db.query('insert into otp_codes (mobile, code_hash, created_at, expires_at) values ($1,$2,$3,$4)', [
      mobile,
      codeHash,
      at,
      expiresAt,
    ]);
  }

  /** The number's newest unused code. */
  async currentCode(mobile: string) {
    const { rows } = await this.db.query<{ id: number; code_hash: string; expires_at: Date; attempts: number }>(
      'select id, code_hash, expires_at, attempts from otp_codes where mobile = $1 and used_at is null order by created_at desc limit 1',
      [mobile],
    );
    return rows[0];
  }

  async countAttempt(codeId: number) {
    await this.db.query('update otp_codes set attempts = attempts + 1 where id = $1', [codeId]);
  }

  async useCode(codeId: number, at: Date) {
    await this.db.query('update otp_codes set used_at = $2 where id = $1', [codeId, at]);
  }

  async identityUser(provider: string, subject: string) {
    const { rows } = await this.db.query<{ user_id: number }>(
      'select user_id from user_identities where provider = $1 and subject = $2',
      [provider, subject],
    );
    return rows[0] ? Number(rows[0].user_id) : undefined;
  }

  async addIdentity(
    provider: string,
    subject: string,
    userId: number,
    at: Date,
    ids: { openId?: string; unionId?: string } = {},
  ) {
    await this.db.query(
      'insert into user_identities (provider, subject, user_id, created_at, open_id, union_id) values ($1,$2,$3,$4,$5,$6)',
      [provider, subject, userId, at, ids.openId ?? null, ids.unionId ?? null],
    );
  }

  /** The openid and unionid a provider gave again for a known identity (kept as the provider last said). */
  async setIdentityIds(provider: string, subject: string, ids: { openId?: string; unionId?: string }) {
    if (!ids.openId && !ids.unionId) return;
    await this.db.query(
      'update user_identities set open_id = coalesce($3, open_id), union_id = coalesce($4, union_id) where provider = $1 and subject = $2',
      [provider, subject, ids.openId ?? null, ids.unionId ?? null],
    );
  }

  /** The user of a provider's openid (an openId sign-in). */
  async userByOpenId(provider: string, openId: string) {
    const { rows } = await this.db.query<{ user_id: number }>(
      'select user_id from user_identities where provider = $1 and open_id = $2 order by created_at desc limit 1',
      [provider, openId],
    );
    return rows[0] ? Number(rows[0].user_id) : undefined;
  }

  /** A tourist becomes a user in place (same id, so orders and wallet stay). */
  async upgradeTourist(id: number, p: { name: string; mobile: string | null; email: string | null }) {
    await this.db.query(
      `update users set kind = 'user', name = $2, device_code = null, mobile = coalesce($3, mobile), email = coalesce($4, email)
       where id = $1 and kind = 'tourist'`,
      [id, p.name, p.mobile, p.email],
    );
  }

  async createUser(p: { name: string; currency: string; mobile: string | null; email: string | null; at: Date }) {
    const { rows } = await this.db.query<{ id: number }>(
      `insert into users (kind, name, currency, mobile, email, created_at) values ('user', $1, $2, $3, $4, $5) returning id`,
      [p.name, p.currency, p.mobile, p.email, p.at],
    );
    return Number(rows[0]!.id);
  }

  /** Sandbox SMS gateway: stores the message instead of sending it. */
  async recordSms(provider: string, to: string, body: string, at: Date) {
    const { rows } = await this.db.query<{ id: number }>(
      'insert into sms_outbox (provider, to_number, body, created_at) values ($1,$2,$3,$4) returning id',
      [provider, to, body, at],
    );
    return Number(rows[0]!.id);
  }

  /** The sandbox outbox's latest 20 messages (to one number when given). */
  async smsOutbox(to: string | null) {
    const { rows } = await this.db.query<{ id: number; to_number: string; body: string; created_at: Date }>(
      `select id, to_number, body, created_at from sms_outbox where ($1::text is null or to_number = $1) order by id desc limit 20`,
      [to],
    );
    return rows;
  }
}
