// The sign-in calls (paths verbatim), plus logout and the sign-in configuration the client reads.
import { Type } from 'typebox';
import { Envelope } from '#contract/envelope.ts';
import {
  AppleLoginBody,
  AuthCodeUrlBody,
  CaptchaQuery,
  CaptchaQuestion,
  CodeLoginBody,
  FacebookLoginBody,
  GoogleLoginBody,
  LoginByOpenIdBody,
  LoginConfig,
  MobileLoginQuery,
  OpenIdExchangeBody,
  OpenIdSession,
  SendVerifyCodeBody,
  SendVerifyCodeQuery,
  SessionToken,
} from '#contract/auth.ts';
import { ok } from '../../lib/envelope.ts';
import { badRequest } from '../../lib/errors.ts';
import type { App } from '../../lib/route.ts';
import { userInfo, type WalletOf } from './routes.ts';
import type { AuthService } from './service.ts';
import type { SignInService } from './signin.ts';

const Token = Envelope(SessionToken);
const TokenHeader = Type.Object({ token: Type.Optional(Type.String({ maxLength: 200 })) });
const hdr = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v) || undefined;

export default async function signInRoutes(
  app: App,
  opts: { auth: AuthService; walletOf: WalletOf; signIn: SignInService; sandbox: string[] },
) {
  const { signIn } = opts;

  app.get(
    '/captcha.webp',
    {
      schema: {
        tags: ['auth'],
        summary:
          'A new captcha picture for this uuid (WebP; the answer is kept hashed for 5 minutes, single use, for this client only)',
        querystring: CaptchaQuery,
        produces: ['image/webp'],
        response: { 200: Type.Unsafe<Buffer>({ type: 'string', format: 'binary' }) },
      },
    },
    async (req, reply) => {
      const webp = await signIn.captcha(req.query.uuid, req.ip);
      return reply.header('content-type', 'image/webp').header('cache-control', 'no-store').send(webp);
    },
  );

  app.get(
    '/captcha/question',
    {
      schema: {
        tags: ['auth'],
        summary:
          "The accessible alternative to the picture: the same single-use challenge as a question in the user's language (digits spelled as words); it replaces the picture of this uuid",
        querystring: CaptchaQuery,
        response: { 200: Envelope(CaptchaQuestion) },
      },
    },
    async (req, reply) => {
      void reply.header('cache-control', 'no-store');
      return ok({ question: await signIn.captchaQuestion(req.query.uuid, req.ip, req.locale) });
    },
  );

  app.post(
    '/saas/sendVerifyCode',
    {
      schema: {
        tags: ['auth'],
        summary:
          'Send a 4-digit SMS code (timestamp sign, bot check, image captcha; 1 per 60 s and 10 per day per number, 20 per hour per IP)',
        querystring: SendVerifyCodeQuery,
        body: SendVerifyCodeBody,
        response: { 200: Envelope(Type.Null()) },
      },
    },
    async (req) => {
      let bot: { token?: unknown };
      try {
        bot = JSON.parse(req.body.reCAPTCHA) as { token?: unknown };
      } catch {
        throw badRequest('error.login.botCheck');
      }
      await signIn.sendCode({
        mobile: req.query.mobile,
        timestamp: req.query.timestamp,
        sign: req.query.sign,
        botToken: typeof bot?.token === 'string' ? bot.token : '',
        uuid: req.body.uuid,
        captcha: req.body.captcha,
        ip: req.ip,
        locale: req.locale,
      });
      return ok(null);
    },
  );

  app.post(
    '/saas/mobileLogin',
    {
      schema: {
        tags: ['auth'],
        summary: 'Phone login with the SMS code (a tourist token in the header is upgraded)',
        headers: TokenHeader,
        querystring: MobileLoginQuery,
        response: { 200: Token },
      },
    },
    async (req) => ok(await signIn.mobileLogin({ ...req.query, token: hdr(req.headers.token) })),
  );

  app.post(
    '/saas/loginGoogleByCode',
    {
      schema: {
        tags: ['auth'],
        summary: "Google sign-in with its ID token (verified against Google's keys)",
        headers: TokenHeader,
        body: GoogleLoginBody,
        response: { 200: Token },
      },
    },
    async (req) => ok(await signIn.idTokenLogin('google', req.body.androidToken, hdr(req.headers.token))),
  );

  app.post(
    '/loginAppleByToken',
    {
      schema: {
        tags: ['auth'],
        summary: "Apple sign-in with its ID token (verified against Apple's keys)",
        headers: TokenHeader,
        body: AppleLoginBody,
        response: { 200: Token },
      },
    },
    async (req) => ok(await signIn.idTokenLogin('apple', req.body.token, hdr(req.headers.token))),
  );

  app.post(
    '/saas/loginFacebookByToken',
    {
      schema: {
        tags: ['auth'],
        summary: 'Facebook sign-in with its user access token (checked with Graph debug_token)',
        headers: TokenHeader,
        body: FacebookLoginBody,
        response: { 200: Token },
      },
    },
    async (req) => ok(await signIn.idTokenLogin('facebook', req.body.token, hdr(req.headers.token))),
  );

  app.post(
    '/loginByCode',
    {
      schema: {
        tags: ['auth'],
        summary: 'WeChat code login (web authorisation or mini-program code)',
        headers: TokenHeader,
        body: CodeLoginBody,
        response: { 200: Token },
      },
    },
    async (req) => ok(await signIn.codeLogin('wechat', req.body.code, hdr(req.headers.token))),
  );

  app.post(
    '/loginAlipayByCode',
    {
      schema: {
        tags: ['auth'],
        summary: 'Alipay auth_code login',
        headers: TokenHeader,
        body: CodeLoginBody,
        response: { 200: Token },
      },
    },
    async (req) => ok(await signIn.codeLogin('alipay', req.body.code, hdr(req.headers.token))),
  );

  app.post(
    '/openId',
    {
      schema: {
        tags: ['auth'],
        summary:
          "The openId exchange: a WeChat (or Alipay) code becomes the person's openid and a session, answered with the user and the signature loginByOpenId takes (30 days)",
        headers: TokenHeader,
        body: OpenIdExchangeBody,
        response: { 200: Envelope(OpenIdSession) },
      },
    },
    async (req) => {
      const s = await signIn.openIdExchange(req.body.type ?? 'wechat', req.body.code, hdr(req.headers.token));
      return ok({ ...s, user: await userInfo(opts, await opts.auth.authenticate(s.token)) });
    },
  );

  app.post(
    '/loginByOpenId',
    {
      schema: {
        tags: ['auth'],
        summary:
          'A session for the person of an openid that the openId exchange signed (a returning WeChat or Alipay user signs in without authorising again)',
        headers: TokenHeader,
        body: LoginByOpenIdBody,
        response: { 200: Token },
      },
    },
    async (req) => ok(await signIn.loginByOpenId(req.body.openId, req.body.openIdSign, hdr(req.headers.token))),
  );

  app.post(
    '/authCodeUrl',
    {
      schema: {
        tags: ['auth'],
        summary: 'The WeChat (or Alipay) authorise URL that comes back to `url` with a code',
        body: AuthCodeUrlBody,
        response: { 200: Envelope(Type.String()) },
      },
    },
    async (req) => ok(signIn.authorizeUrl(req.body.type ?? 'wechat', req.body.url)),
  );

  app.post(
    '/logout',
    {
      schema: {
        tags: ['auth'],
        summary: 'Revoke this session token',
        headers: TokenHeader,
        response: { 200: Envelope(Type.Null()) },
      },
    },
    async (req) => {
      const t = hdr(req.headers.token);
      if (t) await opts.auth.revoke(t);
      return ok(null);
    },
  );

  app.get(
    '/loginConfig',
    {
      schema: {
        tags: ['auth'],
        summary: 'Which sign-in providers run in sandbox mode on this server',
        response: { 200: Envelope(LoginConfig) },
      },
    },
    async () => ok({ sandbox: opts.sandbox }),
  );
}
