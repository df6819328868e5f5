// SANDBOX=on|off: one switch for every sandbox provider and its routes (/sandbox-pay, /sandbox-oauth,
// /sandbox-sms, /demo-api, the sandbox reCAPTCHA and WeChat/Alipay code exchanges).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stripeSettingsFromEnv } from '../src/config/stripe.ts';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { migrate } from '../src/db/migrate.ts';
import { openPglite, type Db } from '../src/db/db.ts';
import { startEmbeddedBroker, type EmbeddedBroker } from '../src/mqtt/broker.ts';
import { signInSettingsFromEnv } from '../src/modules/auth/signin-config.ts';
import { MqttCabinetLink } from '../src/modules/cabinets/link.ts';
import { WeChatApi } from '../src/modules/content/wechat.ts';
import { build, TestClock, type Built } from './helper.ts';

describe('SANDBOX=on (the default)', () => {
  let b: Built;
  beforeAll(async () => {
    b = await build();
  });
  afterAll(async () => {
    await b.close();
  });

  it('is the default and only on or off is accepted', () => {
    expect(loadConfig({}).sandbox).toBe('on');
    expect(loadConfig({ SANDBOX: 'off' }).sandbox).toBe('off');
    expect(() => loadConfig({ SANDBOX: 'maybe' })).toThrow(/SANDBOX must be on or off/);
  });

  it('serves the sandbox providers and the demo API', async () => {
    const token = await b.app.inject({
      method: 'POST',
      url: '/sandbox-pay/v1/tokens',
      payload: {
        publicKey: 'pk_sandbox_powerly',
        number: '4242424242424242',
        expMonth: '12',
        expYear: '2030',
        cvc: '123',
      },
    });
    expect(token.statusCode).toBe(200);
    expect((await b.app.inject({ method: 'GET', url: '/sandbox-oauth/v1/jwks' })).json().keys.length).toBeGreaterThan(
      0,
    );
    expect((await b.app.inject({ method: 'GET', url: '/sandbox-sms/v1/messages' })).statusCode).toBe(200);
    expect((await b.app.inject({ method: 'GET', url: '/demo-api/cabinets' })).statusCode).toBe(200);
    const sb = (await b.app.inject({ method: 'GET', url: '/cdb-app-api/v1/app/loginConfig' })).json();
    expect(sb.data.sandbox).toEqual(
      expect.arrayContaining(['sms', 'recaptcha', 'google', 'apple', 'facebook', 'wechat', 'alipay']),
    );
  });
});

describe('SANDBOX=off', () => {
  let db: Db;
  let broker: EmbeddedBroker;
  beforeAll(async () => {
    db = await openPglite();
    await migrate(db); // as main.ts does before building the app (production reads its installation's tables)
    broker = await startEmbeddedBroker({ port: null });
  });
  afterAll(async () => {
    await broker.close();
    await db.close();
  });
  const start = (extra: Parameters<typeof buildApp>[0] extends infer D ? Partial<D> : never) =>
    buildApp({
      db,
      clock: new TestClock(),
      link: new MqttCabinetLink(broker, { prefix: 'sandbox-off', log: console }),
      sandboxMode: 'off',
      ...extra,
    });

  it('refuses to start without real providers, naming every missing variable', async () => {
    const err = await start({}).then(
      () => null,
      (e: unknown) => e as Error,
    );
    expect(err).toBeInstanceOf(Error);
    for (const v of [
      'TWILIO_ACCOUNT_SID',
      'TWILIO_AUTH_TOKEN',
      'TWILIO_FROM',
      'RECAPTCHA_SECRET',
      'GOOGLE_CLIENT_ID',
      'APPLE_CLIENT_ID',
      'FACEBOOK_APP_ID',
      'FACEBOOK_APP_SECRET',
      'WECHAT_APP_ID',
      'WECHAT_SECRET',
      'ALIPAY_APP_ID',
      'ALIPAY_PRIVATE_KEY',
      'WECHAT_APP_SECRET',
    ]) {
      expect(err!.message).toContain(v);
    }
    expect(err!.message).toMatch(/^SANDBOX=off/);
    expect(err!.message).toContain('card payments');
  });

  it('names only what is still missing once the sign-in methods are configured', async () => {
    const signIn = signInSettingsFromEnv({
      TWILIO_ACCOUNT_SID: 'AC1',
      TWILIO_AUTH_TOKEN: 't',
      TWILIO_FROM: '+1555',
      RECAPTCHA_SECRET: 's',
      GOOGLE_CLIENT_ID: 'g',
      APPLE_CLIENT_ID: 'a',
      FACEBOOK_APP_ID: 'f',
      FACEBOOK_APP_SECRET: 'fs',
      WECHAT_APP_ID: 'w',
      WECHAT_SECRET: 'ws',
      ALIPAY_APP_ID: 'al',
      ALIPAY_PRIVATE_KEY: 'pem',
    });
    const err = await start({ signIn, wechat: new WeChatApi('w', 'ws') }).then(
      () => null,
      (e: unknown) => e as Error,
    );
    expect(err!.message).not.toMatch(/TWILIO|RECAPTCHA|GOOGLE|APPLE_CLIENT|FACEBOOK|WECHAT|ALIPAY/);
    // Without Stripe's keys a production start has no card provider; the message names the variables.
    expect(err!.message).toContain('card payments');
    expect(err!.message).toContain('STRIPE_SECRET_KEY, STRIPE_PUBLISHABLE_KEY, STRIPE_WEBHOOK_SECRET');
  });

  it('starts with Stripe configured, and names only the missing Stripe variable otherwise', async () => {
    const signIn = signInSettingsFromEnv({
      TWILIO_ACCOUNT_SID: 'AC1',
      TWILIO_AUTH_TOKEN: 't',
      TWILIO_FROM: '+1555',
      RECAPTCHA_SECRET: 's',
      GOOGLE_CLIENT_ID: 'g',
      APPLE_CLIENT_ID: 'a',
      FACEBOOK_APP_ID: 'f',
      FACEBOOK_APP_SECRET: 'fs',
      WECHAT_APP_ID: 'w',
      WECHAT_SECRET: 'ws',
      ALIPAY_APP_ID: 'al',
      ALIPAY_PRIVATE_KEY: 'pem',
    });
    const partial = stripeSettingsFromEnv({ STRIPE_SECRET_KEY: 'sk_test_1', STRIPE_PUBLISHABLE_KEY: 'pk_test_1' });
    const err = await start({
      signIn,
      wechat: new WeChatApi('w', 'ws'),
      stripe: partial.settings,
      stripeMissing: partial.missing,
    }).then(
      () => null,
      (e: unknown) => e as Error,
    );
    expect(err!.message).toContain('card payments (Stripe: STRIPE_WEBHOOK_SECRET)');
    expect(err!.message).not.toContain('STRIPE_SECRET_KEY');
    const full = stripeSettingsFromEnv({
      STRIPE_SECRET_KEY: 'sk_test_1',
      STRIPE_PUBLISHABLE_KEY: 'pk_test_1',
      STRIPE_WEBHOOK_SECRET: 'whsec_1',
    });
    // Production also needs the embed's signing key (no development key in production).
    const app = await start({
      signIn,
      wechat: new WeChatApi('w', 'ws'),
      stripe: full.settings,
      embedSigningKey: 'k'.repeat(32),
    });
    await app.ready();
    // The card method is Stripe's, with the publishable key; no sandbox route.
    expect(app.powerly.payments.methods('EUR', '€')[0]).toMatchObject({
      pId: 'stripe:STRIPE_CARD',
      publicKey: 'pk_test_1',
    });
    expect((await app.inject({ method: 'POST', url: '/sandbox-pay/v1/tokens', payload: {} })).statusCode).toBe(404);
    // The back office's sandbox identity provider is not served, and single sign-on is off until configured.
    expect(
      (await app.inject({ method: 'GET', url: '/sandbox-oidc/.well-known/openid-configuration' })).statusCode,
    ).toBe(404);
    expect((await app.inject({ method: 'GET', url: '/ops-api/v1/session' })).json()).toMatchObject({ sso: false });
    await app.close();
    expect(() =>
      stripeSettingsFromEnv({
        STRIPE_SECRET_KEY: 'a',
        STRIPE_PUBLISHABLE_KEY: 'b',
        STRIPE_WEBHOOK_SECRET: 'c',
        STRIPE_AGENT_ACCOUNTS: '{"x": {"secretKey": "sk"}}',
      }),
    ).toThrow(/STRIPE_AGENT_ACCOUNTS.x/);
  });
});
