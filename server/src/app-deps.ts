// What buildApp is given (the process's configuration and adapters), and what SANDBOX=off still lacks.
import type { MediaStore } from './modules/media/store.ts';
import type { DeskSettings } from './modules/rentals/ops-config.ts';
import type { FastifyServerOptions } from 'fastify';
import type { Db } from './db/db.ts';
import type { Clock } from './lib/clock.ts';
import type { CabinetLink } from './modules/cabinets/link.ts';
import type { BankPayoutRail } from './modules/payments/payouts/rail.ts';
import type { SandboxCardProvider } from './modules/payments/sandbox.ts';
import { STRIPE_VARIABLES, type StripeSettings } from './config/stripe.ts';
import { methodsGaps, needsPublicUrl, type MethodsConfig } from './modules/payments/methods/registry.ts';
import type { SimulatorFleet } from './demo/simulator/fleet.ts';
import type { WeChatTicketSource } from './modules/content/wechat.ts';
import type { Mailer } from './modules/notify/mailer.ts';
import { unconfiguredSignIn, type SignInSettings } from './modules/auth/signin-config.ts';
import type { SessionSettings } from './modules/staff/sessions.ts';
import type { SsoSettings } from './modules/staff/sso.ts';

export interface AppDeps {
  db: Db;
  clock: Clock;
  link: CabinetLink;
  /** The sandbox card provider is always available; pass one to share it (tests). */
  sandbox?: SandboxCardProvider;
  /** When the cabinet simulator runs in this process, the demo control API is served. */
  fleet?: SimulatorFleet;
  ejectTtlMs?: number;
  /** How long a rider may keep a failed rental's top-up in the wallet before it is refunded (default 2 min). */
  depositKeepWindowMs?: number;
  /** Web Push: the contact the push services see (VAPID subject: an https URL or mailto:). */
  vapidSubject?: string;
  /** Web Push: the TLS agent for the push services (a private CA). */
  pushAgent?: import('node:https').Agent;
  /** A cabinet not heard from for this long is offline (default 3 min: three missed 60 s heartbeats). */
  offlineAfterMs?: number;
  ejectGraceMs?: number;
  /** Poll the jobs table every N ms (0: only when runDue() is called, as tests do). */
  jobPollMs?: number;
  logger?: FastifyServerOptions['logger'];
  /** E-mail (receipts). Default: an outbox folder under data/outbox. */
  mailer?: Mailer;
  /** WeChat JS-SDK ticket source. Default: the sandbox credentials. */
  wechat?: WeChatTicketSource;
  /** Real sign-in providers (SMS gateway, reCAPTCHA, OAuth issuers); sandbox for any not given. */
  signIn?: SignInSettings;
  /**
   * SANDBOX=on|off (default on). Off: no sandbox route (/sandbox-pay, /sandbox-oauth, /sandbox-sms, /demo-api) and no
   * sandbox adapter; buildApp refuses to start when a sign-in method, the card provider or the WeChat JS-SDK has no
   * real configuration (the error names the missing variables).
   */
  sandboxMode?: 'on' | 'off';
  /** HMAC key of the embed's one-time codes (EMBED_SIGNING_KEY); every API process needs the same one. */
  embedSigningKey?: string;
  /**
   * Rate limits (plugins/rate-limit.ts; default on). Tests that are not about them turn them off: every injected
   * request comes from one address and would share one budget.
   */
  rateLimits?: boolean;
  /** Fastify's trustProxy (TRUST_PROXY): whose X-Forwarded-For gives the client address (rate limits, captchas). */
  trustProxy?: boolean | number | string[];
  /** Stripe (config/stripe.ts): card payments go through it instead of the sandbox card provider. */
  stripe?: StripeSettings;
  /** PAYMENT_METHODS: the methods beyond the card each agent switched on, with their configuration (methods/registry.ts). */
  paymentMethods?: MethodsConfig;
  /** PAYMENT_SETTINGS_KEY: seals the method keys operators enter in the console (payments/settings/seal.ts; sandbox: generated). */
  paymentSettingsKey?: string;
  /** The fetch the method adapters call their providers with (tests: a local test server's). */
  methodFetch?: typeof fetch;
  /** PUBLIC_URL: this server's address as providers reach it (return and notification URLs). */
  publicUrl?: string;
  /** APP_ORIGINS: the rider app's own origins, where payments may send customers back (default PUBLIC_URL's origin). */
  appOrigins?: string[];
  /** Which Stripe variables are missing (named when SANDBOX=off cannot start). */
  stripeMissing?: string[];
  /** CABINET_SECRETS_KEY: seals the TCP cabinets' token secrets (modules/cabinets/token-secrets.ts; sandbox: generated). */
  cabinetSecretsKey?: string;
  /** The 0xA8 cabinet family's HTTP registration (VENDOR_A8_SIGN_KEY; modules/cabinets/vendors/a8/registration.ts). */
  a8Registration?: { idPrefix: string; signKey: string; broker: { host: string; port: number } };
  /** Real bank payout adapters (config/payouts-rails.ts); a bank withdrawal none pays awaits an operator. */
  payoutRails?: BankPayoutRail[];
  /**
   * The back office (modules/staff): the console's origin for passkeys and links (OPS_ORIGIN, else PUBLIC_URL;
   * unset: each request's own), single sign-on (OPS_OIDC_*; the sandbox's own issuer when SANDBOX=on and none is
   * set), session lifetimes.
   */
  ops?: { origin?: string; sso?: SsoSettings; sessions?: SessionSettings };
  /** Where uploaded images live (modules/media): MEDIA_S3_* an S3-compatible store, else the folder MEDIA_DIR (default data/media). */
  media?: MediaStore;
  /** The support desk's settings (DESK_SUPPORT_REFUND_LIMIT: what support may refund of one rental). */
  desk?: DeskSettings;
}

/** What SANDBOX=off lacks: every sign-in method, the card provider, the embed's signing key and the WeChat JS-SDK need a real configuration. */
export function productionGaps(
  deps: Pick<
    AppDeps,
    'signIn' | 'wechat' | 'embedSigningKey' | 'stripe' | 'stripeMissing' | 'paymentMethods' | 'publicUrl'
  >,
): string[] {
  const methods = deps.paymentMethods ?? {};
  return [
    // Only the methods an agent switched on need their configuration (and providers must reach us: PUBLIC_URL).
    ...methodsGaps(methods),
    ...(needsPublicUrl(
      Object.values(methods).flatMap((m) => Object.keys(m)),
      deps.publicUrl,
    )
      ? ['PUBLIC_URL (where payment providers send customers back and post their notifications)']
      : []),
    ...unconfiguredSignIn(deps.signIn ?? {}),
    ...(deps.embedSigningKey ? [] : ['EMBED_SIGNING_KEY']),
    ...(deps.stripe
      ? []
      : [
          `card payments (Stripe: ${(deps.stripeMissing?.length ? deps.stripeMissing : [...STRIPE_VARIABLES]).join(', ')})`,
        ]),
    ...(deps.wechat ? [] : ['WeChat JS-SDK (WECHAT_APP_ID, WECHAT_APP_SECRET)']),
  ];
}
