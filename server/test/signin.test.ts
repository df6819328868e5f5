// Sign-in: phone + SMS (captcha, sign, bot check, limits across two server instances on one database),
// Google/Apple ID tokens against a LOCAL issuer (node:http serving a JWKS), Facebook against a local Graph
// peer, WeChat/Alipay sandbox codes, tourist upgrade, logout revocation, expiry.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateKeyPair, type CryptoKey } from 'jose';
import { build, touristToken, type Built } from './helper.ts';
import { sha256 } from '../src/lib/ids.ts';
import { signMaterial } from '#core/sign.ts';
import { TwilioSms } from '../src/modules/auth/adapters.ts';
import {
  P,
  signed,
  sendCode,
  lastCode,
  login,
  userInfo,
  localIssuer,
  localGraph,
  twilioPeer,
  postForm,
  type IdTokenOptions,
} from './signin-calls.ts';

describe('phone login', () => {
  let b: Built;
  beforeAll(async () => {
    b = await build({ simulator: false });
  });
  afterAll(async () => {
    await b.close();
  });

  it('captcha → sendVerifyCode → 4-digit SMS (sandbox outbox) → mobileLogin → userInfo; the code is single use', async () => {
    const res = await sendCode(b, '8613800000001');
    expect(res.json()).toMatchObject({ code: 0 });
    const code = await lastCode(b, '8613800000001');
    expect(code).toMatch(/^\d{4}$/);
    const sms = await b.app.inject({ method: 'GET', url: '/sandbox-sms/v1/messages?to=8613800000001' });
    expect(sms.json()[0].body).toContain(code);
    const ok = await login(b, '13800000001', code);
    expect(ok.json().code).toBe(0);
    const token = ok.json().data as string;
    expect((await userInfo(b, token)).json().data).toMatchObject({ pmobile: '8613800000001', userType: 'user' });
    const again = await login(b, '13800000001', code);
    expect(again.json()).toMatchObject({
      code: 422,
      msg: 'This code has expired or was already used. Please ask for a new one.',
    });
  });

  it('forged sign, stale timestamp, failed bot check and wrong captcha are refused and send nothing', async () => {
    expect((await sendCode(b, '8613800000002', { sign: 'f'.repeat(64) })).json()).toMatchObject({
      code: 400,
      msg: expect.stringContaining('signature'),
    });
    const stale = String(Math.floor(b.clock.now().getTime() / 1000) - 3600);
    expect((await sendCode(b, '8613800000002', { ts: stale, sign: sha256(signMaterial(stale)) })).json().code).toBe(
      400,
    );
    expect((await sendCode(b, '8613800000002', { bot: 'sandbox-fail' })).json().msg).toContain('bot check');
    const uuid = 'uuid-wrong-captcha';
    await b.app.inject({ method: 'GET', url: `${P}/captcha.webp?uuid=${uuid}` });
    const s = signed(b);
    const wrong = await b.app.inject({
      method: 'POST',
      url: `${P}/saas/sendVerifyCode?mobile=8613800000002&timestamp=${s.ts}&sign=${s.sign}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ reCAPTCHA: JSON.stringify({ token: 'x' }), uuid, captcha: '####' }).toString(),
    });
    expect(wrong.json().code).toBe(400);
    const { rows } = await b.db.query<{ n: number }>(
      `select count(*)::int as n from sms_outbox where to_number = '8613800000002'`,
    );
    expect(Number(rows[0]!.n)).toBe(0);
  });

  it('a code expires after 5 minutes', async () => {
    await sendCode(b, '8613800000003');
    const code = await lastCode(b, '8613800000003');
    b.clock.advance(5 * 60_000 + 1);
    expect((await login(b, '13800000003', code)).json().code).toBe(422);
  });

  it('at most 5 tries per code, then even the right code is refused', async () => {
    await sendCode(b, '8613800000004');
    const code = await lastCode(b, '8613800000004');
    const wrong = code === '0000' ? '1111' : '0000';
    for (let i = 0; i < 4; i++) expect((await login(b, '13800000004', wrong)).json().msg).toBe('The code is wrong.');
    expect((await login(b, '13800000004', wrong)).json().msg).toContain('Too many wrong tries');
    expect((await login(b, '13800000004', code)).json().code).toBe(422);
  });

  it('per IP: 20 sends an hour', async () => {
    for (let i = 0; i < 20; i++)
      expect((await sendCode(b, `44700900${String(i).padStart(4, '0')}`, { ip: '10.9.9.9' })).json().code).toBe(0);
    expect((await sendCode(b, '447009009999', { ip: '10.9.9.9' })).json().msg).toContain('this network');
    b.clock.advance(3600_000);
  });
});

describe('OTP limits across two server instances on one database', () => {
  let a: Built;
  let c: Built;
  beforeAll(async () => {
    a = await build({ simulator: false });
    c = await build({ simulator: false, shareDb: a });
  });
  afterAll(async () => {
    await c.close();
    await a.close();
  });
  const both = (ms: number) => {
    a.clock.advance(ms);
    c.clock.advance(ms);
  };

  it('1 per 60 s and 10 per day per number, whichever instance is asked; concurrent sends give one SMS', async () => {
    const m = '8613900000001';
    const [r1, r2] = await Promise.all([sendCode(a, m), sendCode(c, m)]);
    expect([r1.json().code, r2.json().code].sort()).toEqual([0, 422]);
    expect((await sendCode(c, m)).json().msg).toMatch(/wait \d+ s/);
    for (let i = 1; i < 10; i++) {
      both(61_000);
      expect((await sendCode(i % 2 ? c : a, m)).json().code).toBe(0);
    }
    both(61_000);
    expect((await sendCode(a, m)).json().msg).toContain('today');
    expect((await sendCode(c, m)).json().msg).toContain('today');
    // A code sent through one instance logs in through the other.
    const code = await lastCode(a, m);
    expect((await login(c, '13900000001', code)).json().code).toBe(0);
    both(24 * 3600_000);
    expect((await sendCode(c, m)).json().code).toBe(0);
  });
});

describe('Google, Apple (local issuer), Facebook (local Graph peer), WeChat and Alipay (sandbox)', () => {
  let b: Built;
  let issuer: Awaited<ReturnType<typeof localIssuer>>;
  let graph: Awaited<ReturnType<typeof localGraph>>;
  let otherKey: CryptoKey;
  beforeAll(async () => {
    issuer = await localIssuer();
    otherKey = (await generateKeyPair('RS256')).privateKey;
    graph = await localGraph();
    b = await build({
      simulator: false,
      signIn: {
        google: { issuer: issuer.url, audience: 'google-client', jwksUrl: `${issuer.url}/keys` },
        apple: { issuer: issuer.url, audience: 'apple-client', jwksUrl: `${issuer.url}/keys` },
        facebook: { appId: 'fb-app', appSecret: 'fb-secret', graphUrl: graph.url },
      },
    });
  });
  afterAll(async () => {
    await b.close();
    issuer.server.close();
    graph.server.close();
  });

  const idToken = (aud: string, sub: string, o: IdTokenOptions = {}) => issuer.idToken(b.clock.now(), aud, sub, o);
  const post = (url: string, body: Record<string, string>, token?: string) => postForm(b, url, body, token);

  it('Google: a valid ID token signs in (same user again); forged, expired, wrong audience and wrong issuer are refused', async () => {
    const r1 = await post('saas/loginGoogleByCode', {
      androidToken: await idToken('google-client', 'g-1'),
      canRegistWithOutUnion: 'true',
    });
    expect(r1.json().code).toBe(0);
    const r2 = await post('saas/loginGoogleByCode', { androidToken: await idToken('google-client', 'g-1') });
    const u1 = (await userInfo(b, r1.json().data)).json().data;
    expect((await userInfo(b, r2.json().data)).json().data.pId).toBe(u1.pId);
    expect(u1.email).toBe('g-1@example.com');
    for (const bad of [
      await idToken('google-client', 'g-1', { key: otherKey }),
      await idToken('google-client', 'g-1', { expS: -10 }),
      await idToken('apple-client', 'g-1'),
      await idToken('google-client', 'g-1', { iss: 'https://evil.example' }),
      'not.a.jwt',
    ]) {
      expect((await post('saas/loginGoogleByCode', { androidToken: bad })).json()).toMatchObject({
        code: 422,
        msg: 'Sign-in could not be verified. Please try again.',
      });
    }
  });

  it('Apple: verified against the issuer keys; expired refused', async () => {
    expect((await post('loginAppleByToken', { token: await idToken('apple-client', 'a-1') })).json().code).toBe(0);
    expect(
      (await post('loginAppleByToken', { token: await idToken('apple-client', 'a-1', { expS: -1 }) })).json().code,
    ).toBe(422);
  });

  it('Facebook: debug_token valid for our app signs in; invalid, other app or expired refused', async () => {
    expect(
      (await post('saas/loginFacebookByToken', { token: 'fbtok-u1', canRegistWithOutUnion: 'true' })).json().code,
    ).toBe(0);
    for (const t of ['garbage', 'fbtok-otherapp', 'fbtok-expired'])
      expect((await post('saas/loginFacebookByToken', { token: t })).json().code).toBe(422);
  });

  it('WeChat and Alipay codes through the sandbox exchange; bad codes refused; authCodeUrl comes back with a code', async () => {
    const w = await post('loginByCode', { code: 'sbx_wechatuser1' });
    expect(w.json().code).toBe(0);
    expect((await post('loginByCode', { code: 'forged' })).json().code).toBe(422);
    expect((await post('loginAlipayByCode', { code: 'sbx_alipayuser1' })).json().code).toBe(0);
    const url = (await post('authCodeUrl', { url: 'http://127.0.0.1/#/login_wechat?x=1' })).json().data as string;
    const code = new URLSearchParams(new URL(url).hash.split('?')[1]).get('code')!;
    expect((await post('loginByCode', { code })).json().code).toBe(0);
  });

  it('a tourist who signs in keeps the same user (orders and wallet); the tourist token is revoked', async () => {
    const tt = await touristToken(b.app, 'dev-upgrade-1-000000001');
    const before = (await userInfo(b, tt)).json().data;
    expect(before.userType).toBe('tourist');
    const r = await post('saas/loginGoogleByCode', { androidToken: await idToken('google-client', 'g-upgrade') }, tt);
    const after = (await userInfo(b, r.json().data)).json().data;
    expect(after).toMatchObject({ pId: before.pId, userType: 'user' });
    expect((await userInfo(b, tt)).json().code).toBe(401);
  });

  it('a tourist who signs into an existing account brings ended orders and wallet balance (one ledger transfer); an open rental blocks the move', async () => {
    const account = (
      await post('saas/loginGoogleByCode', { androidToken: await idToken('google-client', 'g-existing') })
    ).json().data as string;
    const accountId = (await userInfo(b, account)).json().data.pId as number;
    const { ledger: wallet } = b.app.powerly;
    const insertOrder = (id: string, userId: number, zujie: number, settled: boolean) =>
      b.db.query(
        `insert into orders (id, user_id, cabinet_id, venue_id, zujie, settled, deposit_type, currency, plan, wire_strategy, deposit, created_at)
       select $1, $2, c.id, c.venue_id, $3, $4, 1, 'USD', '{}', '{}', 0, now() from cabinets c where c.id = 'PWL-NYC-001'`,
        [id, userId, zujie, settled],
      );
    const tourist = async (code: string, cents: number) => {
      const tt = await touristToken(b.app, code);
      const id = (await userInfo(b, tt)).json().data.pId as number;
      await b.db.tx(async () => {
        const from = await wallet.account({ type: 'provider', id: 'sandbox' }, 'clearing', 'USD');
        const to = await wallet.account({ type: 'user', id: String(id) }, 'wallet', 'USD');
        await wallet.transfer({ debit: from, credit: to, amount: cents, code: 'test_topup', at: b.clock.now() });
      });
      return { tt, id };
    };
    const t1 = await tourist('dev-merge-1-000000001', 1234);
    await insertOrder('PO-MERGE-ENDED', t1.id, 3, true);
    const r = await post(
      'saas/loginGoogleByCode',
      { androidToken: await idToken('google-client', 'g-existing') },
      t1.tt,
    );
    const me = (await userInfo(b, r.json().data)).json().data;
    expect(me).toMatchObject({ pId: accountId, pbalance: 12.34 });
    expect(
      (await b.db.query<{ user_id: number }>(`select user_id from orders where id = 'PO-MERGE-ENDED'`)).rows[0]!
        .user_id,
    ).toBe(accountId);
    expect((await userInfo(b, t1.tt)).json().code).toBe(401);
    const sums = await b.db.query<{ s: number }>(
      `select coalesce(sum(case when flag in ('posted','post_pending') then amount else 0 end), 0)::bigint as s from ledger_transfers where code = 'account_merge'`,
    );
    expect(Number(sums.rows[0]!.s)).toBe(1234);

    const t2 = await tourist('dev-merge-2-000000002', 500);
    await insertOrder('PO-MERGE-OPEN', t2.id, 1, false);
    const r2 = await post(
      'saas/loginGoogleByCode',
      { androidToken: await idToken('google-client', 'g-existing') },
      t2.tt,
    );
    expect((await userInfo(b, r2.json().data)).json().data).toMatchObject({ pId: accountId, pbalance: 12.34 });
    expect(
      (await b.db.query<{ user_id: number }>(`select user_id from orders where id = 'PO-MERGE-OPEN'`)).rows[0]!.user_id,
    ).toBe(t2.id);
  });

  it('logout revokes the token at once; sessions expire after 30 days', async () => {
    const t = (await post('loginAppleByToken', { token: await idToken('apple-client', 'a-2') })).json().data as string;
    expect((await userInfo(b, t)).json().code).toBe(0);
    expect((await b.app.inject({ method: 'POST', url: `${P}/logout`, headers: { token: t } })).json().code).toBe(0);
    expect((await userInfo(b, t)).json().code).toBe(401);
    const t2 = (await post('loginAppleByToken', { token: await idToken('apple-client', 'a-2') })).json().data as string;
    const { rows } = await b.db.query<{ token_hash: string }>('select token_hash from sessions where token_hash = $1', [
      sha256(t2),
    ]);
    expect(rows).toHaveLength(1); // only the hash is stored
    b.clock.advance(30 * 24 * 3600_000 + 1);
    expect((await userInfo(b, t2)).json().code).toBe(401);
  });
});

describe('sandbox issuer and Twilio gateway', () => {
  it('the sandbox issuer mints tokens the default (sandbox) verifiers accept', async () => {
    const b = await build({ simulator: false });
    try {
      const res = await b.app.inject({
        method: 'POST',
        url: '/sandbox-oauth/v1/token',
        payload: { provider: 'google', sub: 'demo-1' },
      });
      const r = await b.app.inject({
        method: 'POST',
        url: `${P}/saas/loginGoogleByCode`,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: `androidToken=${encodeURIComponent(res.json().token)}`,
      });
      expect(r.json().code).toBe(0);
      expect((await b.app.inject({ method: 'GET', url: `${P}/loginConfig` })).json().data.sandbox).toContain('google');
    } finally {
      await b.close();
    }
  });

  it('Twilio: form POST with basic auth to a local peer; errors surface', async () => {
    const seen: { auth?: string; body?: string; url?: string }[] = [];
    const peer = await twilioPeer((body, req) => {
      seen.push({ auth: req.headers.authorization, body, url: req.url });
      return body.includes('To=%2B000')
        ? { status: 400, json: { message: 'invalid To' } }
        : { status: 201, json: { sid: 'SM123' } };
    });
    try {
      const sms = new TwilioSms({ accountSid: 'AC1', authToken: 'tok', from: '+15550001', baseUrl: peer.url });
      expect(await sms.send('8613800000009', 'code 1234')).toEqual({ ref: 'SM123' });
      expect(seen[0]).toMatchObject({
        url: '/2010-04-01/Accounts/AC1/Messages.json',
        auth: 'Basic ' + Buffer.from('AC1:tok').toString('base64'),
      });
      expect(new URLSearchParams(seen[0]!.body)).toEqual(
        new URLSearchParams({ To: '+8613800000009', From: '+15550001', Body: 'code 1234' }),
      );
      await expect(sms.send('000', 'x')).rejects.toMatchObject({
        provider: 'twilio',
        code: 503,
        cause: expect.objectContaining({ message: expect.stringMatching(/^400/) }),
      });
    } finally {
      peer.server.close();
    }
  });
});

describe('tourist login', () => {
  it('is refused in the WeChat browser, allowed elsewhere', async () => {
    const b = await build({ simulator: false });
    try {
      const wx = await b.app.inject({
        method: 'POST',
        url: `${P}/saas/tourist/login?code=dev-wx-0000000000001`,
        headers: { 'user-agent': 'Mozilla/5.0 (iPhone) MicroMessenger/8.0.40', lang: 'zh-CN' },
      });
      expect(wx.json()).toMatchObject({ code: 422, msg: '请使用微信登录。' });
      const ok = await b.app.inject({
        method: 'POST',
        url: `${P}/saas/tourist/login?code=dev-wx-0000000000001`,
        headers: { 'user-agent': 'Mozilla/5.0 Chrome/120' },
      });
      expect(ok.json().code).toBe(0);
    } finally {
      await b.close();
    }
  });
});

describe('a real SMS gateway that fails', () => {
  it('the send is not counted and the code is void; the user can retry at once; a working gateway then delivers', async () => {
    let fail = true;
    const bodies: string[] = [];
    const peer = await twilioPeer((body) => {
      if (fail) return { status: 503, json: { message: 'unavailable' } };
      bodies.push(body);
      return { status: 201, json: { sid: 'SM1' } };
    });
    const b = await build({
      simulator: false,
      signIn: { sms: { provider: 'twilio', accountSid: 'AC1', authToken: 't', from: '+1555', baseUrl: peer.url } },
    });
    try {
      expect((await sendCode(b, '8613700000001')).json()).toMatchObject({
        code: 422,
        msg: 'The SMS could not be sent. Please try again.',
      });
      const { rows } = await b.db.query<{ n: number }>(
        `select count(*)::int as n from otp_sends where mobile = '8613700000001'`,
      );
      expect(Number(rows[0]!.n)).toBe(0);
      fail = false;
      expect((await sendCode(b, '8613700000001')).json().code).toBe(0);
      const code = /\b(\d{4})\b/.exec(new URLSearchParams(bodies[0]).get('Body')!)![1]!;
      expect((await login(b, '13700000001', code)).json().code).toBe(0);
      // The sandbox outbox is not served when a real gateway is configured.
      expect((await b.app.inject({ method: 'GET', url: '/sandbox-sms/v1/messages' })).statusCode).toBe(404);
    } finally {
      await b.close();
      peer.server.close();
    }
  });
});
