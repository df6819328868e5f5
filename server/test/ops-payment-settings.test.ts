// Each agent's payment methods, set in the console: who may read and change them (role × scope), a method switched
// on is offered to that agent's riders at once (and by another API process within its cache's time), key values
// never come back (answers, audit entries, the database holds them sealed), saves are checked against the adapter's
// required keys and concurrent saves conflict.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build, touristToken, type Built } from './helper.ts';
import { accessTable, callerConsoles, type Caller } from './ops/callers.ts';
import type { OpsConsole } from './ops/console.ts';
import { ProviderRegistry } from '../src/modules/payments/provider.ts';
import { liveMethods } from '../src/modules/payments/settings/live.ts';
import { ExternalRepository } from '../src/modules/payments/methods/repository.ts';
import { SecretsRepository } from '../src/secrets/repository.ts';
import { PaymentSettingsService } from '../src/modules/payments/settings/service.ts';
import { needsPublicUrl } from '../src/modules/payments/methods/registry.ts';
import { AuditService } from '../src/modules/audit/service.ts';
import { AuditRepository } from '../src/modules/audit/repository.ts';
import { productionGaps } from '../src/app-deps.ts';
import type { AppError } from '../src/lib/errors.ts';

type Op = 'list methods of A' | 'read a method of A' | 'save a method of A' | 'list methods of the platform';
//                 none platformOwner adminA adminB supportA financeA technicianA readOnlyA partnerA
const TABLE: Record<Op, number[]> = {
  'list methods of A': [401, 200, 200, 404, 403, 200, 403, 403, 403],
  'read a method of A': [401, 200, 200, 404, 403, 200, 403, 403, 403],
  'save a method of A': [401, 200, 200, 404, 403, 403, 403, 403, 403],
  'list methods of the platform': [401, 200, 404, 404, 403, 404, 403, 403, 403],
};

const SECRETS = {
  consumerKey: 'ck-9f1d-UNIQUE-aa',
  consumerSecret: 'cs-77e0-UNIQUE-bb',
  shortCode: '174379',
  passkey: 'pk-31c2-UNIQUE-cc',
  callbackToken: 'cb-5d4a-UNIQUE-dd',
};
const ROTATED = 'ck-rotated-UNIQUE-ee';
interface Method {
  pId: string;
  pPaymentType: string;
  sandbox?: boolean;
}

describe('payment methods of an agent, from the console', () => {
  let b: Built;
  let consoles = new Map<Caller, OpsConsole>();
  const answers: string[] = [];
  const owner = () => consoles.get('platformOwner')!;
  const adminA = () => consoles.get('adminA')!;
  const read = async (c: OpsConsole, agent: string, method: string) => {
    const r = await c.call('GET', `/agents/${agent}/payment-methods/${method}`);
    answers.push(r.body);
    return r;
  };
  const save = async (
    c: OpsConsole,
    agent: string,
    method: string,
    body: object,
    headers: Record<string, string> = {},
  ) => {
    const etag = (await read(owner(), agent, method)).headers.etag as string;
    const r = await c.call(
      'PUT',
      `/agents/${agent}/payment-methods/${method}`,
      { reason: 'payment settings test', ...body },
      { 'if-match': etag, ...headers },
    );
    answers.push(r.body);
    return r;
  };
  const riderMethods = async (agent: string) => {
    const t = await touristToken(b.app);
    const r = await b.app.inject({
      method: 'GET',
      url: `/cdb-app-api/v1/app/cdb/payment/method/list?currency=KES&agentId=${agent}`,
      headers: { token: t },
    });
    expect(r.json().code, r.body).toBe(0);
    return r.json().data as Method[];
  };

  beforeAll(async () => {
    b = await build({ simulator: false });
    consoles = await callerConsoles(b);
  });
  afterAll(() => b.close());

  const run: Record<Op, (c: OpsConsole) => Promise<{ statusCode: number }>> = {
    'list methods of A': (c) => c.call('GET', '/agents/agent-a/payment-methods'),
    'read a method of A': (c) => c.call('GET', '/agents/agent-a/payment-methods/debitcard'),
    'save a method of A': (c) => save(c, 'agent-a', 'debitcard', { enabled: false }),
    'list methods of the platform': (c) => c.call('GET', '/agents/powerly/payment-methods'),
  };
  accessTable(TABLE, () => consoles, run);

  it("offers a method switched on in the console to the agent's riders at once, with its keys sealed and never sent back", async () => {
    // Before: agent B has no settings of its own, so its riders get the platform's methods (test mode: the sandbox's);
    // agent A has its own (the debit card the table above saved), and M-Pesa is not among them.
    expect((await riderMethods('agent-b')).find((m) => m.pPaymentType === 'M-PESA')).toMatchObject({
      pId: 'mpesa:M-PESA',
      sandbox: true,
    });
    expect((await riderMethods('agent-a')).some((m) => m.pPaymentType === 'M-PESA')).toBe(false);
    // The console says so: the platform's M-Pesa runs in test mode (SANDBOX=on, no keys of its own).
    const platform = (await owner().call('GET', '/agents/powerly/payment-methods')).json<{
      items: Array<{ method: string }>;
    }>();
    expect(platform.items.find((m) => m.method === 'mpesa')).toMatchObject({
      enabled: true,
      testMode: true,
      source: 'none',
      version: 0,
    });
    const on = await save(adminA(), 'agent-a', 'mpesa', { enabled: true, keys: SECRETS });
    expect(on.statusCode, on.body).toBe(200);
    expect(on.headers.etag).toBe('"v1"');
    expect(on.json()).toMatchObject({ method: 'mpesa', enabled: true, source: 'console', version: 1 });
    expect(on.json().testMode).toBeUndefined();
    expect(
      on
        .json()
        .keys.filter((k: { required: boolean }) => k.required)
        .map((k: { state: string }) => k.state),
    ).toEqual(['console', 'console', 'console', 'console', 'console']);
    // Now: the agent's own live M-Pesa (its own instance, no sandbox), and none of the platform's methods.
    const offered = await riderMethods('agent-a');
    expect(offered.filter((m) => m.pPaymentType === 'M-PESA')).toEqual([
      expect.objectContaining({ pId: 'mpesa.agent-a:M-PESA' }),
    ]);
    expect(offered.some((m) => m.sandbox)).toBe(false);
    expect(offered.find((m) => m.pPaymentType === 'M-PESA')!.sandbox).toBeUndefined();
    // Agent B still gets the platform's.
    expect((await riderMethods('agent-b')).find((m) => m.pPaymentType === 'M-PESA')).toMatchObject({
      pId: 'mpesa:M-PESA',
      sandbox: true,
    });

    // Rotating a key is writing a new value: the provider is rebuilt with it, the other keys stay.
    const rotated = await save(adminA(), 'agent-a', 'mpesa', { enabled: true, keys: { consumerKey: ROTATED } });
    expect(rotated.statusCode, rotated.body).toBe(200);
    expect(rotated.json().version).toBe(2);
    const { rows } = await b.db.query<{ sealed_keys: Record<string, string> }>(
      "select sealed_keys from payment_method_settings where agent_id = 'agent-a' and method = 'mpesa'",
    );
    expect(Object.keys(rows[0]!.sealed_keys).sort()).toEqual(Object.keys(SECRETS).sort());
    answers.push((await adminA().call('GET', '/agents/agent-a/payment-methods')).body);
    const audit = await owner().call('GET', '/audit?entity=payment_method');
    answers.push(audit.body, (await owner().call('GET', '/audit.csv')).body);
    const { rows: logged } = await b.db.query<{ before: unknown; after: unknown }>(
      "select before, after from audit_log where entity = 'payment_method'",
    );
    expect(logged.length).toBeGreaterThanOrEqual(2);
    expect(logged.at(-1)!.after).toMatchObject({ enabled: true, keysWritten: ['consumerKey'] });
    // No value anywhere: not in any answer, not in the audit log, not in clear in the database.
    const everywhere = [...answers, JSON.stringify(logged), JSON.stringify(rows)].join('\n');
    for (const v of [...Object.values(SECRETS).filter((v) => v.includes('UNIQUE')), ROTATED])
      expect(everywhere).not.toContain(v);
  });

  it('switches a method off without a restart, and keeps its provider for the payments already made', async () => {
    const off = await save(adminA(), 'agent-a', 'mpesa', { enabled: false });
    expect(off.json()).toMatchObject({ enabled: false, version: 3 });
    expect((await riderMethods('agent-a')).some((m) => m.pPaymentType === 'M-PESA')).toBe(false);
    expect(b.app.powerly.payments.providers.has('mpesa.agent-a')).toBe(true);
    // Its late notifications still reach it at the webhook entry: read (and here refused: no callback token, 400) by
    // the method itself, never answered as an unknown provider (404).
    const late = await b.app.inject({
      method: 'POST',
      url: '/payments/webhooks/mpesa/agent-a',
      payload: '{}',
      headers: { 'content-type': 'application/json' },
    });
    expect(late.statusCode, late.body).toBe(400);
    expect(late.json()).toMatchObject({ result: 'signature' });
    const back = await save(adminA(), 'agent-a', 'mpesa', { enabled: true });
    expect(back.statusCode).toBe(200);
    expect((await riderMethods('agent-a')).map((m) => m.pId)).toContain('mpesa.agent-a:M-PESA');
  });

  it('allows the client SDK of a method switched on in the console in the page policy from the next request on', async () => {
    const policy = async () =>
      String((await b.app.inject({ method: 'GET', url: '/healthz' })).headers['content-security-policy']);
    const scriptSrc = async () => (await policy()).split(/;\s*/).find((d) => d.startsWith('script-src ')) ?? '';
    expect(await scriptSrc()).not.toContain('https://sdk.mp.example');
    const on = await save(adminA(), 'agent-a', 'mercadopago', {
      enabled: true,
      keys: {
        accessToken: 'TEST-mp-token',
        publicKey: 'TEST-mp-public',
        webhookSecret: 'mp-webhook-secret',
        sdkUrl: 'https://sdk.mp.example/v2/',
      },
    });
    expect(on.statusCode, on.body).toBe(200);
    expect(await scriptSrc()).toContain('https://sdk.mp.example');
    const off = await save(adminA(), 'agent-a', 'mercadopago', { enabled: false });
    expect(off.statusCode, off.body).toBe(200);
    expect(await scriptSrc()).not.toContain('https://sdk.mp.example');
    // Leave the installation as the other cases expect it (a method switched off stays registered).
    await b.db.query(`delete from payment_method_settings where method = 'mercadopago'`);
  });

  it("refuses a method switched on without its required keys, or a key it does not take, in the operator's language", async () => {
    const missing = await save(adminA(), 'agent-a', 'paypal', { enabled: true, keys: {} }, { lang: 'lt-LT' });
    expect(missing.statusCode).toBe(400);
    expect(missing.json().message).toMatch(
      /^paypal negalima įjungti, kol nenustatyti šie raktai: clientId, clientSecret/,
    );
    const cleared = await save(adminA(), 'agent-a', 'mpesa', { enabled: true, keys: { passkey: null } });
    expect(cleared.statusCode).toBe(400);
    expect(cleared.json().message).toBe('mpesa needs these keys before it can be switched on: passkey.');
    const unknown = await save(
      adminA(),
      'agent-a',
      'mpesa',
      { enabled: true, keys: { apiSecret: 'x' } },
      { lang: 'es-ES' },
    );
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().message).toBe('mpesa no admite ninguna clave llamada apiSecret.');
    expect((await adminA().call('GET', '/agents/agent-a/payment-methods/nosuch')).statusCode).toBe(404);
    // Nothing of the refused saves was written.
    expect((await read(owner(), 'agent-a', 'mpesa')).json()).toMatchObject({ enabled: true, version: 4 });
  });

  it('lets only one of two saves of the same version through (409), and needs If-Match (428)', async () => {
    const etag = (await read(owner(), 'agent-a', 'debitcard')).headers.etag as string;
    const first = await adminA().call(
      'PUT',
      '/agents/agent-a/payment-methods/debitcard',
      { enabled: true, reason: 'first save' },
      { 'if-match': etag },
    );
    const second = await owner().call(
      'PUT',
      '/agents/agent-a/payment-methods/debitcard',
      { enabled: false, reason: 'second save' },
      { 'if-match': etag },
    );
    expect([first.statusCode, second.statusCode]).toEqual([200, 409]);
    expect((await read(owner(), 'agent-a', 'debitcard')).json().enabled).toBe(true);
    expect(
      (
        await adminA().call('PUT', '/agents/agent-a/payment-methods/debitcard', {
          enabled: false,
          reason: 'no if-match',
        })
      ).statusCode,
    ).toBe(428);
  });

  it('reaches another API process on the same database within its cache time, without a restart', async () => {
    const other = await build({ simulator: false, shareDb: b });
    try {
      await owner().call('GET', '/session');
      const before = await riderMethodsOf(other, 'agent-b');
      expect(before.find((m) => m.pPaymentType === 'M-PESA')).toMatchObject({ sandbox: true });
      const on = await save(owner(), 'agent-b', 'mpesa', { enabled: true, keys: SECRETS });
      expect(on.statusCode, on.body).toBe(200);
      other.clock.advance(6_000);
      expect((await riderMethodsOf(other, 'agent-b')).filter((m) => m.pPaymentType === 'M-PESA')).toEqual([
        expect.objectContaining({ pId: 'mpesa.agent-b:M-PESA' }),
      ]);
    } finally {
      await other.close();
    }
  });

  it('registers no sandbox adapter with SANDBOX=off, only the methods switched on with their keys', async () => {
    const make = async (settingsKey: string) => {
      const providers = new ProviderRegistry();
      const live = await liveMethods({
        env: {},
        db: b.db,
        settingsKey,
        providers,
        clock: b.clock,
        build: {
          repo: new ExternalRepository(b.db),
          clock: b.clock,
          publicUrl: 'https://powerly.example',
          sandbox: false,
          platformAgent: 'powerly',
          cardOutcome: async () => undefined,
        },
      });
      return { providers, live };
    };
    // This installation's key (the sandbox made it): the agents' own M-Pesa, live, and nothing else.
    const { providers, live } = await make(await new SecretsRepository(b.db).get('sandbox.payment-settings-key'));
    expect(
      providers
        .all()
        .map((p) => p.id)
        .sort(),
    ).toEqual(['mpesa.agent-a', 'mpesa.agent-b']);
    expect(providers.allMethods().every((p) => !p.sandbox)).toBe(true);
    expect(live.providers.cardTypesOf('agent-a')).toEqual(['debitcard']);
    // Another key: the sealed values do not open, so nothing runs with half a configuration.
    const other = await make('k'.repeat(40));
    expect(other.providers.all()).toEqual([]);
  });

  it('refuses to switch on, with SANDBOX=off and no PUBLIC_URL, a method its provider must call back (422), as the start-up check does', async () => {
    const live = await liveMethods({
      env: {},
      db: b.db,
      settingsKey: await new SecretsRepository(b.db).get('sandbox.payment-settings-key'),
      providers: new ProviderRegistry(),
      clock: b.clock,
      build: {
        repo: new ExternalRepository(b.db),
        clock: b.clock,
        publicUrl: '',
        sandbox: false,
        platformAgent: 'powerly',
        cardOutcome: async () => undefined,
      },
    });
    const settings = new PaymentSettingsService({
      db: b.db,
      clock: b.clock,
      live,
      audit: new AuditService(new AuditRepository(b.db), b.clock),
      platformAgent: 'powerly',
      agentExists: async () => true,
    });
    const actor = { staffId: null, email: null, ip: '127.0.0.1', userAgent: 'test', reason: 'public url test' };
    const before = await settings.one({ kind: 'all' }, 'agent-c', 'paypal');
    const refusal = await settings
      .save({ kind: 'all' }, actor, 'agent-c', 'paypal', before.version, {
        reason: 'public url test',
        enabled: true,
        keys: { clientId: 'c', clientSecret: 's', webhookId: 'w' },
      })
      .then(
        () => undefined,
        (err: unknown) => err as AppError,
      );
    expect(refusal).toMatchObject({ code: 422, key: 'ops.error.paymentPublicUrl' });
    expect((await settings.one({ kind: 'all' }, 'agent-c', 'paypal')).version).toBe(before.version);
    // The same rule as at start-up: a card provider type calls nothing back; a method does.
    expect(needsPublicUrl(['debitcard'], undefined)).toBe(false);
    expect(needsPublicUrl(['debitcard', 'paypal'], undefined)).toBe(true);
    expect(needsPublicUrl(['paypal'], 'https://powerly.example')).toBe(false);
    expect(productionGaps({ paymentMethods: { powerly: { debitcard: {} } } })).not.toContainEqual(
      expect.stringContaining('PUBLIC_URL'),
    );
    expect(productionGaps({ paymentMethods: { powerly: { paypal: {} } } })).toContainEqual(
      expect.stringContaining('PUBLIC_URL'),
    );
  });

  async function riderMethodsOf(x: Built, agent: string) {
    const t = await touristToken(x.app);
    const r = await x.app.inject({
      method: 'GET',
      url: `/cdb-app-api/v1/app/cdb/payment/method/list?currency=KES&agentId=${agent}`,
      headers: { token: t },
    });
    return r.json().data as Method[];
  }
});
