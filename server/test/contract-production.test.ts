// The rider API's document holds in production as in the sandbox: SANDBOX=off with real providers, Stripe answering
// from its local test server and every other provider unreachable (a closed port), every operation gets generated
// valid inputs and answers only as the served document declares: a provider that cannot be reached is a declared
// error, never a 500.
import { generateKeyPairSync } from 'node:crypto';
import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WeChatApi } from '../src/modules/content/wechat.ts';
import { build, touristToken, type Built } from './helper.ts';
import { Conformance, type Doc, type Operation } from './openapi/conformance.ts';
import { FakeStripe } from './stripe/fake-stripe.ts';

const API = '/cdb-app-api/v1/app';
/** Nothing listens here: a provider behind it is unreachable at once. */
const CLOSED = 'http://127.0.0.1:9';
const SK = 'sk_test_production_contract';

let fake: FakeStripe;
let b: Built;
let doc: Doc;
let rider: Conformance;

beforeAll(async () => {
  fake = await new FakeStripe([SK]).start();
  const oidc = (issuer: string) => ({ issuer, audience: 'powerly', jwksUrl: `${CLOSED}/jwks` });
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  b = await build({
    production: {
      embedSigningKey: 'p'.repeat(40),
      stripe: {
        account: { secretKey: SK, publishableKey: 'pk_test_production', webhookSecret: 'whsec_production' },
        agents: {},
        transport: fake.transport(),
      },
      wechat: new WeChatApi('wx-app', 'wx-secret', CLOSED),
      signIn: {
        sms: { provider: 'twilio', accountSid: 'AC1', authToken: 't', from: '+15550000000', baseUrl: CLOSED },
        recaptcha: { secret: 's', url: `${CLOSED}/siteverify` },
        google: oidc('https://accounts.google.com'),
        apple: oidc('https://appleid.apple.com'),
        facebook: { appId: 'fb', appSecret: 'fbs', graphUrl: CLOSED },
        wechat: { appId: 'wx', secret: 'wxs', apiUrl: CLOSED },
        alipay: {
          appId: 'al',
          privateKeyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
          gatewayUrl: CLOSED,
        },
      },
    },
  });
  doc = (await b.app.inject({ url: `${API}/openapi.json` })).json() as Doc;
  rider = new Conformance(
    doc,
    (r) => b.app.inject(r as InjectOptions),
    (body) => (body as { msg: string }).msg,
  );
}, 180_000);
afterAll(async () => {
  await b?.close();
  await fake?.stop();
});

const takesToken = (op: Operation) => (op.security ?? []).some((r) => 'token' in r);

describe('SANDBOX=off: every operation answers only as declared', () => {
  it('serves no sandbox operation and registers no sandbox provider', () => {
    expect(Object.keys(doc.paths).filter((p) => p.startsWith('/demo-api/'))).toEqual([]);
    expect(b.app.powerly.payments.providers.has('sandbox')).toBe(false);
    expect(b.app.powerly.payments.providers.has('stripe')).toBe(true);
  });

  it('answers generated valid inputs only as declared, with providers unreachable', async () => {
    const failures: string[] = [];
    for (const { path, method, op } of rider.operations()) {
      if (op.responses['200']?.content?.['text/event-stream']) continue; // a stream does not end; live.test.ts covers it
      const token = takesToken(op) ? await touristToken(b.app, `production-${op.operationId}`) : undefined;
      failures.push(
        ...(await rider.fuzz(path, method, op, { runs: 3, headers: token ? { token } : {}, invalid: false })),
      );
    }
    expect(failures, failures.join('\n')).toEqual([]);
  }, 180_000);
});
