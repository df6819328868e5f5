// Which sign-in adapters run: sandbox by default, the real provider when its variables are set
// (docs/operations.md lists them). Tests pass their own settings (a local issuer, a local Graph peer).
import type { JSONWebKeySet } from 'jose';
import type { Db } from '../../db/db.ts';
import { SignInRepository } from './repository.ts';
import type { Clock } from '../../lib/clock.ts';
import {
  AlipayCodeExchange,
  APPLE,
  FacebookVerifier,
  GOOGLE,
  OidcVerifier,
  RecaptchaBotCheck,
  SandboxBotCheck,
  SandboxCodeExchange,
  SandboxSms,
  TwilioSms,
  WechatCodeExchange,
  type BotCheck,
  type CodeExchange,
  type IdTokenVerifier,
  type SmsGateway,
} from './adapters.ts';
import { SANDBOX_AUDIENCE, SANDBOX_ISSUER, type SandboxIssuer } from './sandbox-issuer.ts';

export interface OidcSettings {
  issuer: string;
  audience: string;
  jwksUrl?: string;
  jwks?: JSONWebKeySet;
}

export interface SignInSettings {
  sms?: { provider: 'twilio'; accountSid: string; authToken: string; from: string; baseUrl?: string };
  recaptcha?: { secret: string; url?: string; minScore?: number };
  google?: OidcSettings;
  apple?: OidcSettings;
  facebook?: { appId: string; appSecret: string; graphUrl?: string };
  wechat?: { appId: string; secret: string; apiUrl?: string };
  alipay?: { appId: string; privateKeyPem: string; gatewayUrl?: string };
}

export function signInSettingsFromEnv(env: NodeJS.ProcessEnv): SignInSettings {
  const s: SignInSettings = {};
  if (env.TWILIO_ACCOUNT_SID && env.TWILIO_AUTH_TOKEN && env.TWILIO_FROM) {
    s.sms = {
      provider: 'twilio',
      accountSid: env.TWILIO_ACCOUNT_SID,
      authToken: env.TWILIO_AUTH_TOKEN,
      from: env.TWILIO_FROM,
    };
  }
  if (env.RECAPTCHA_SECRET) s.recaptcha = { secret: env.RECAPTCHA_SECRET };
  if (env.GOOGLE_CLIENT_ID) s.google = { ...GOOGLE, audience: env.GOOGLE_CLIENT_ID };
  if (env.APPLE_CLIENT_ID) s.apple = { ...APPLE, audience: env.APPLE_CLIENT_ID };
  if (env.FACEBOOK_APP_ID && env.FACEBOOK_APP_SECRET)
    s.facebook = { appId: env.FACEBOOK_APP_ID, appSecret: env.FACEBOOK_APP_SECRET };
  if (env.WECHAT_APP_ID && env.WECHAT_SECRET) s.wechat = { appId: env.WECHAT_APP_ID, secret: env.WECHAT_SECRET };
  if (env.ALIPAY_APP_ID && env.ALIPAY_PRIVATE_KEY)
    s.alipay = { appId: env.ALIPAY_APP_ID, privateKeyPem: env.ALIPAY_PRIVATE_KEY };
  return s;
}

/** The variables that configure each real sign-in provider (named in the SANDBOX=off start-up error). */
export const SIGN_IN_VARIABLES: Record<keyof SignInSettings, string[]> = {
  sms: ['TWILIO_ACCOUNT_SID', 'TWILIO_AUTH_TOKEN', 'TWILIO_FROM'],
  recaptcha: ['RECAPTCHA_SECRET'],
  google: ['GOOGLE_CLIENT_ID'],
  apple: ['APPLE_CLIENT_ID'],
  facebook: ['FACEBOOK_APP_ID', 'FACEBOOK_APP_SECRET'],
  wechat: ['WECHAT_APP_ID', 'WECHAT_SECRET'],
  alipay: ['ALIPAY_APP_ID', 'ALIPAY_PRIVATE_KEY'],
};

/** The sign-in methods without a real configuration, each with the variables it needs. */
export function unconfiguredSignIn(s: SignInSettings): string[] {
  return (Object.keys(SIGN_IN_VARIABLES) as (keyof SignInSettings)[])
    .filter((k) => !s[k])
    .map((k) => `${k} (${SIGN_IN_VARIABLES[k].join(', ')})`);
}

export interface SignInAdapters {
  sms: SmsGateway;
  botCheck: BotCheck;
  verifiers: { google: IdTokenVerifier; apple: IdTokenVerifier; facebook: IdTokenVerifier };
  exchanges: { wechat: CodeExchange; alipay: CodeExchange };
  /** Which providers run in sandbox mode (the client shows the sandbox sign-in path for these). */
  sandbox: string[];
}

export function signInAdapters(s: SignInSettings, db: Db, clock: Clock, issuer: SandboxIssuer): SignInAdapters {
  const sandbox: string[] = [];
  const sb = (p: keyof typeof SANDBOX_AUDIENCE) => {
    sandbox.push(p);
    return new OidcVerifier({ issuer: SANDBOX_ISSUER, audience: SANDBOX_AUDIENCE[p], jwks: issuer.jwks }, clock);
  };
  const sms = s.sms ? new TwilioSms(s.sms) : (sandbox.push('sms'), new SandboxSms(new SignInRepository(db), clock));
  const botCheck = s.recaptcha
    ? new RecaptchaBotCheck(s.recaptcha)
    : (sandbox.push('recaptcha'), new SandboxBotCheck());
  const google = s.google ? new OidcVerifier(s.google, clock) : sb('google');
  const apple = s.apple ? new OidcVerifier(s.apple, clock) : sb('apple');
  const facebook = s.facebook ? new FacebookVerifier(s.facebook, clock) : sb('facebook');
  const wechat = s.wechat
    ? new WechatCodeExchange(s.wechat)
    : (sandbox.push('wechat'), new SandboxCodeExchange('wechat'));
  const alipay = s.alipay
    ? new AlipayCodeExchange(s.alipay, clock)
    : (sandbox.push('alipay'), new SandboxCodeExchange('alipay'));
  return { sms, botCheck, verifiers: { google, apple, facebook }, exchanges: { wechat, alipay }, sandbox };
}
