// Sign-in and the signed-in user (login calls, userInfo).
import { Type, type Static } from 'typebox';

export const SessionToken = Type.String({ description: 'session token for the `token` header' });

/**
 * A device code is the tourist account's only credential (the same code signs the same tourist in again): at least
 * 16 characters (the flows send 32 random hex digits), so that one cannot be guessed.
 */
export const TOURIST_CODE_MIN_LENGTH = 16;
export const TouristLoginQuery = Type.Object({
  code: Type.Optional(
    Type.String({ minLength: TOURIST_CODE_MIN_LENGTH, maxLength: 128, pattern: '^[A-Za-z0-9_.-]+$' }),
  ),
});

/** GET userInfo. */
export const UserInfo = Type.Object({
  pId: Type.Integer(),
  pname: Type.String(),
  pbalance: Type.Number(),
  pcurrencyName: Type.String(),
  pyajin: Type.Number(),
  pmobile: Type.Union([Type.String(), Type.Null()]),
  email: Type.Union([Type.String(), Type.Null()]),
  p_currency: Type.String(),
  userType: Type.Union([Type.Literal('tourist'), Type.Literal('user')]),
  alUserId: Type.Union([Type.String(), Type.Null()], {
    description: "the person's Alipay user id (an Alipay sign-in); null: none",
  }),
  p_name: Type.Union([Type.String(), Type.Null()], {
    description:
      "the person's own name (pname is the display name, a guest's 'Tourist-…'); null for a guest or when no sign-in gave one",
  }),
  p_openID: Type.Union([Type.String(), Type.Null()], {
    description: "the person's WeChat openid for this app (a WeChat sign-in); null: none",
  }),
  pUnionid: Type.Union([Type.String(), Type.Null()], {
    description: "the person's WeChat unionid (where the app has one); null: none",
  }),
});
export type UserInfo = Static<typeof UserInfo>;

/** GET user/more?keys=monriBilling: each key's stored JSON text, null when none is stored. */
export const MoreQuery = Type.Object({
  keys: Type.String({ minLength: 1, maxLength: 200, description: 'comma-separated keys: monriBilling' }),
});
export type MoreQuery = Static<typeof MoreQuery>;
export const MoreValues = Type.Object({ monriBilling: Type.Optional(Type.Union([Type.String(), Type.Null()])) });
export type MoreValues = Static<typeof MoreValues>;
/** POST user/more {monriBilling}: Monri's billing details as JSON text (src/core/monriBilling.ts). */
export const MoreBody = Type.Object({
  monriBilling: Type.String({
    maxLength: 4000,
    description: 'JSON text of address, fullName, city, zip, phone, country, email, orderInfo',
  }),
});
export type MoreBody = Static<typeof MoreBody>;

export const CaptchaQuery = Type.Object({
  uuid: Type.String({ minLength: 8, maxLength: 64, pattern: '^[A-Za-z0-9-]+$' }),
});
/** GET captcha/question: the picture's accessible alternative, spoken by screen readers. */
export const CaptchaQuestion = Type.Object({ question: Type.String() });
export type CaptchaQuestion = Static<typeof CaptchaQuestion>;

export const SendVerifyCodeQuery = Type.Object({
  mobile: Type.String({ minLength: 6, maxLength: 20 }),
  timestamp: Type.String({ maxLength: 12 }),
  sign: Type.String({ maxLength: 128 }),
});
export type SendVerifyCodeQuery = Static<typeof SendVerifyCodeQuery>;
export const SendVerifyCodeBody = Type.Object({
  reCAPTCHA: Type.String({ maxLength: 4096, description: 'JSON text {token, platform}' }),
  uuid: Type.String({ maxLength: 64 }),
  captcha: Type.String({ maxLength: 16 }),
});
export type SendVerifyCodeBody = Static<typeof SendVerifyCodeBody>;

export const MobileLoginQuery = Type.Object({
  mobile: Type.String({ minLength: 4, maxLength: 20 }),
  verifyCode: Type.String({ maxLength: 8 }),
  areaCode: Type.String({ minLength: 1, maxLength: 5 }),
  registAndLoginType: Type.Optional(Type.String({ maxLength: 4 })),
});
export type MobileLoginQuery = Static<typeof MobileLoginQuery>;

export const GoogleLoginBody = Type.Object({
  androidToken: Type.String({ minLength: 1, maxLength: 8192 }),
  canRegistWithOutUnion: Type.Optional(Type.String()),
});
export type GoogleLoginBody = Static<typeof GoogleLoginBody>;
export const AppleLoginBody = Type.Object({ token: Type.String({ minLength: 1, maxLength: 8192 }) });
export type AppleLoginBody = Static<typeof AppleLoginBody>;
export const FacebookLoginBody = Type.Object({
  token: Type.String({ minLength: 1, maxLength: 8192 }),
  canRegistWithOutUnion: Type.Optional(Type.String()),
});
export type FacebookLoginBody = Static<typeof FacebookLoginBody>;
/** WeChat and Alipay code logins. */
export const CodeLoginBody = Type.Object({ code: Type.String({ minLength: 1, maxLength: 256 }) });
export type CodeLoginBody = Static<typeof CodeLoginBody>;

export const AuthCodeUrlBody = Type.Object({
  url: Type.String({
    minLength: 8,
    maxLength: 2048,
    pattern: '^https?://[^/?#\\s]+',
    description: 'an http(s) URL with a host',
  }),
  type: Type.Optional(Type.Union([Type.Literal('wechat'), Type.Literal('alipay')])),
});
export type AuthCodeUrlBody = Static<typeof AuthCodeUrlBody>;

export const LoginConfig = Type.Object({ sandbox: Type.Array(Type.String()) });
export type LoginConfig = Static<typeof LoginConfig>;

/**
 * POST openId: the openId exchange. A WeChat (default) or Alipay authorisation code becomes the person's openid and a
 * session, as loginByCode does, in one answer with the user.
 */
export const OpenIdExchangeBody = Type.Object({
  code: Type.String({ minLength: 1, maxLength: 256 }),
  type: Type.Optional(Type.Union([Type.Literal('wechat'), Type.Literal('alipay')])),
});
export type OpenIdExchangeBody = Static<typeof OpenIdExchangeBody>;
export const OpenIdSession = Type.Object({
  token: SessionToken,
  user: UserInfo,
  openId: Type.String({ description: "the person's openid for this app" }),
  openIdSign: Type.String({
    description: "the server's signature over the openid, valid 30 days: what loginByOpenId takes with it",
  }),
});
export type OpenIdSession = Static<typeof OpenIdSession>;
/** POST loginByOpenId: a session for the person of an openid the openId exchange signed (a returning WeChat or Alipay user). */
export const LoginByOpenIdBody = Type.Object({
  openId: Type.String({ minLength: 1, maxLength: 128 }),
  openIdSign: Type.String({ minLength: 1, maxLength: 200 }),
});
export type LoginByOpenIdBody = Static<typeof LoginByOpenIdBody>;
