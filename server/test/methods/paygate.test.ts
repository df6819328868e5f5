// The PayGate PayWeb3 adapter against the PayWeb3 test server (server/test/providers/paygate.ts): initiate with
// PayGate's MD5 checksums, the form action, the customer paying with PayGate's test cards, the return checksum,
// query.trans, and the NOTIFY_URL delivery.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProviderError, type StartInput } from '../../src/modules/payments/methods/adapter.ts';
import type { MethodProvider } from '../../src/modules/payments/methods/external.ts';
import { md5, paygateDefinition, type PayGateConfig } from '../../src/modules/payments/methods/paygate.ts';
import { PayGateTestServer } from '../providers/paygate.ts';

const ID = '10011072130';
const KEY = 'secret';
let server: PayGateTestServer;
let adapter: MethodProvider;
let seq = 0;
const call = { idempotencyKey: 'k' };
const now = new Date('2026-11-23T08:30:05Z');
const deps = { fetch: (...a: Parameters<typeof fetch>) => fetch(...a), now: () => now };
const PAYHOST_PASSWORD = 'test&<pw>';
const cfg = (over: Partial<PayGateConfig> = {}): PayGateConfig => ({
  paygateId: ID,
  encryptionKey: KEY,
  apiBase: server.base,
  email: '',
  locale: '',
  country: '',
  payHostId: '',
  payHostPassword: PAYHOST_PASSWORD,
  ...over,
});

function input(over: Partial<StartInput> = {}): StartInput {
  const n = ++seq;
  return {
    outTradeNo: `PW${Date.now()}${n}`,
    amount: 3299,
    currency: 'ZAR',
    description: 'Powerly rental',
    capture: 'automatic',
    returnUrl: 'https://api.example/result/paygate',
    cancelUrl: 'https://app.example/result?cancel=1',
    notifyUrl: 'https://api.example/webhooks/methods/paygate',
    idempotencyKey: `idem-${n}`,
    payType: 'PayGate',
    payer: { userId: 1, email: 'rider@example.com' },
    ...over,
  };
}

beforeAll(async () => {
  server = await new PayGateTestServer({ [ID]: KEY, '10011013800': 'other-key' }, { [ID]: PAYHOST_PASSWORD }).start();
  adapter = paygateDefinition.create(cfg(), deps);
});
afterAll(async () => {
  await server.stop();
});

async function paid(card: string, over: Partial<StartInput> = {}) {
  const inp = input(over);
  const r = await adapter.start(inp);
  const back = server.pay(r.ref, card);
  return { inp, r, back };
}

describe('paygate adapter', () => {
  it('initiate sends PayWeb3 fields with the MD5 checksum and answers a form action to process.trans', async () => {
    const inp = input();
    const r = await adapter.start(inp);
    const sent = server.requests.at(-1)!;
    expect(sent.path).toBe('/payweb3/initiate.trans');
    expect(sent.fields.map(([k]) => k)).toEqual([
      'PAYGATE_ID',
      'REFERENCE',
      'AMOUNT',
      'CURRENCY',
      'RETURN_URL',
      'TRANSACTION_DATE',
      'LOCALE',
      'COUNTRY',
      'EMAIL',
      'NOTIFY_URL',
      'CHECKSUM',
    ]);
    const f = Object.fromEntries(sent.fields);
    expect(f).toMatchObject({
      PAYGATE_ID: ID,
      REFERENCE: inp.outTradeNo,
      AMOUNT: '3299',
      CURRENCY: 'ZAR',
      TRANSACTION_DATE: '2026-11-23 10:30:05',
      LOCALE: 'en-za',
      COUNTRY: 'ZAF',
      EMAIL: 'rider@example.com',
    });
    expect(f.CHECKSUM).toBe(
      md5(
        sent.fields
          .slice(0, -1)
          .map(([, v]) => v)
          .join('') + KEY,
      ),
    );
    expect(r.state).toBe('pending');
    expect(r.action).toEqual({
      kind: 'form',
      url: `${server.base}/payweb3/process.trans`,
      fields: { PAY_REQUEST_ID: r.ref, CHECKSUM: md5(`${ID}${r.ref}${inp.outTradeNo}${KEY}`) },
    });
  });

  it('a wrong encryption key is PayGate’s DATA_CHK; an unknown PayGate ID is ND_INV_PGID', async () => {
    const wrongKey = paygateDefinition.create(cfg({ encryptionKey: 'nope' }), deps);
    await expect(wrongKey.start(input())).rejects.toMatchObject({ code: 'DATA_CHK' });
    const wrongId = paygateDefinition.create(cfg({ paygateId: '999' }), deps);
    await expect(wrongId.start(input())).rejects.toMatchObject({ code: 'ND_INV_PGID' });
  });

  it('refuses amount <= 0, an unsupported currency, and no email to send', async () => {
    await expect(adapter.start(input({ amount: 0 }))).rejects.toMatchObject({ code: 'invalid_amount' });
    await expect(adapter.start(input({ currency: 'GBP' }))).rejects.toMatchObject({ code: 'unsupported_currency' });
    await expect(adapter.start(input({ payer: { userId: 1 } }))).rejects.toMatchObject({ code: 'email_required' });
    const withEmail = paygateDefinition.create(cfg({ email: 'ops@powerly.example' }), deps);
    await withEmail.start(input({ payer: { userId: 1 } }));
    expect(Object.fromEntries(server.requests.at(-1)!.fields).EMAIL).toBe('ops@powerly.example');
  });

  it('an initiate answer that does not verify is refused', async () => {
    // PayGate's answer altered on the way (the PAY_REQUEST_ID swapped): its CHECKSUM no longer matches.
    const tampered = paygateDefinition.create(cfg(), {
      ...deps,
      fetch: async (url, init) => {
        const res = await fetch(url, init);
        const body = new URLSearchParams(await res.text());
        body.set('PAY_REQUEST_ID', '00000000-0000-0000-0000-000000000000');
        return new Response(body.toString(), { status: res.status });
      },
    });
    await expect(tampered.start(input())).rejects.toMatchObject({ code: 'bad_checksum' });
  });

  it('approved card → the return checksum verifies and complete says paid', async () => {
    const { inp, r, back } = await paid('4000000000000002');
    expect(back.url).toBe(inp.returnUrl);
    const s = await adapter.complete!(r.ref, inp.outTradeNo, back.fields, call);
    expect(s).toEqual({ ref: r.ref, state: 'paid', amount: 3299, currency: 'ZAR' });
    expect(server.requests.at(-1)!.path).toBe('/payweb3/query.trans');
  });

  it('a tampered return (status changed, wrong reference) is refused', async () => {
    const { inp, r, back } = await paid('4000000000000036');
    await expect(
      adapter.complete!(r.ref, inp.outTradeNo, { ...back.fields, TRANSACTION_STATUS: '1' }, call),
    ).rejects.toMatchObject({ code: 'bad_checksum' });
    await expect(adapter.complete!(r.ref, 'PWother', back.fields, call)).rejects.toBeInstanceOf(ProviderError);
  });

  it('declined and insufficient-funds cards fail with their result codes', async () => {
    const d = await paid('4000000000000036');
    expect(await adapter.status(d.r.ref, d.inp.outTradeNo)).toMatchObject({ state: 'failed', failureCode: 'declined' });
    const i = await paid('5200000000000023');
    expect(await adapter.complete!(i.r.ref, i.inp.outTradeNo, i.back.fields, call)).toMatchObject({
      state: 'failed',
      failureCode: 'insufficient_funds',
    });
    const bad = await paid('4111111111111111');
    expect(await adapter.status(bad.r.ref, bad.inp.outTradeNo)).toMatchObject({
      state: 'failed',
      failureCode: 'invalid_card',
    });
  });

  it('the unprocessed card leaves it pending; a customer cancel is cancelled', async () => {
    const u = await paid('5200000000000064');
    expect((await adapter.status(u.r.ref, u.inp.outTradeNo)).state).toBe('pending');
    const inp = input();
    const r = await adapter.start(inp);
    expect((await adapter.status(r.ref, inp.outTradeNo)).state).toBe('pending');
    const back = server.cancel(r.ref);
    expect(await adapter.complete!(r.ref, inp.outTradeNo, back.fields, call)).toMatchObject({
      state: 'cancelled',
      failureCode: 'cancelled',
    });
  });

  it('a genuine notify is accepted with "OK"; a redelivery has the same eventId', async () => {
    const { inp, r } = await paid('5200000000000015');
    const d = server.notify(r.ref);
    expect(d.url).toBe(inp.notifyUrl);
    const n = await adapter.readNotification({ headers: d.headers, rawBody: d.rawBody, query: {} });
    expect(n).toMatchObject({
      ref: r.ref,
      outTradeNo: inp.outTradeNo,
      state: 'paid',
      amount: 3299,
      currency: 'ZAR',
      ack: { status: 200, contentType: 'text/plain', body: 'OK' },
    });
    const again = await adapter.readNotification({ headers: d.headers, rawBody: d.rawBody, query: {} });
    expect(again!.eventId).toBe(n!.eventId);
  });

  it('a tampered or wrongly-signed notify is refused', async () => {
    const { r } = await paid('4000000000000036');
    const d = server.notify(r.ref);
    expect(
      await adapter.readNotification({
        headers: d.headers,
        rawBody: d.rawBody.replace('TRANSACTION_STATUS=2', 'TRANSACTION_STATUS=1'),
        query: {},
      }),
    ).toBeNull();
    const body = new URLSearchParams(d.rawBody);
    const values = [...body].filter(([k]) => k !== 'CHECKSUM').map(([, v]) => v);
    body.set('CHECKSUM', md5(values.join('') + 'not-our-key'));
    expect(await adapter.readNotification({ headers: d.headers, rawBody: body.toString(), query: {} })).toBeNull();
    body.delete('CHECKSUM');
    expect(await adapter.readNotification({ headers: d.headers, rawBody: body.toString(), query: {} })).toBeNull();
  });

  it('refunds through PayHost: partial, then the rest; an over-refund is PayHost’s error', async () => {
    const { r } = await paid('4000000000000002');
    await adapter.refundPayment(r.ref, 1000, call);
    const soap = server.requests.at(-1)!.fields[0]![1];
    expect(soap).toContain('<SingleFollowUpRequest xmlns="http://www.paygate.co.za/PayHOST"><RefundRequest>');
    expect(soap).toContain(`<PayGateId>${ID}</PayGateId><Password>test&amp;&lt;pw&gt;</Password>`);
    expect(soap).toContain(
      `<TransactionId>${server.txns.get(r.ref)!.transactionId}</TransactionId><Amount>1000</Amount>`,
    );
    expect(server.txns.get(r.ref)!.refunded).toBe(1000);
    const err = await adapter.refundPayment(r.ref, 2300, call).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProviderError);
    expect(err).toMatchObject({ code: '900210' });
    await adapter.refundPayment(r.ref, 2299, call);
    expect(server.txns.get(r.ref)!.refunded).toBe(3299);
  });

  it('a declined payment is not refunded; wrong PayHost credentials are a SOAP fault; no password, no refunds', async () => {
    const { r } = await paid('4000000000000036');
    await expect(adapter.refundPayment(r.ref, 100, call)).rejects.toMatchObject({ code: 'not_paid' });
    const ok = await paid('5200000000000015');
    const wrong = paygateDefinition.create(cfg({ payHostPassword: 'wrong' }), deps);
    await expect(wrong.refundPayment(ok.r.ref, 100, call)).rejects.toMatchObject({
      code: 'payhost_fault',
      status: 500,
    });
    const none = paygateDefinition.create(cfg({ payHostPassword: '' }), deps);
    await expect(none.refundPayment(ok.r.ref, 100, call)).rejects.toMatchObject({ code: 'refund_unsupported' });
    expect(server.txns.get(ok.r.ref)!.refunded).toBe(0);
  });

  it('a network failure is ProviderError(network)', async () => {
    const down = paygateDefinition.create(cfg({ apiBase: 'http://127.0.0.1:1' }), deps);
    await expect(down.start(input())).rejects.toMatchObject({ code: 'network' });
    await expect(down.status('x', 'y')).rejects.toMatchObject({ code: 'network' });
  });
});
