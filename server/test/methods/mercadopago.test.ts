// The mercadopago adapter against the local Mercado Pago test server (server/test/providers/mercadopago.ts): charges,
// holds, refunds, saved cards, webhooks (the live card entry on the /MercadoPago screen: mercadopago-screen.test.ts;
// the fixtures: mercadopago-helpers.ts).
import { describe, expect, it } from 'vitest';
import { ProviderError } from '../../src/modules/payments/methods/adapter.ts';
import { mercadopagoDefinition, toMajor, signatureManifest } from '../../src/modules/payments/methods/mercadopago.ts';
import { adapter, input, MC, mp, paymentPosts, useMercadoPago, VISA } from './mercadopago-helpers.ts';

useMercadoPago();

describe('mercadopago adapter', () => {
  it('declares what it is', () => {
    expect(mercadopagoDefinition.payTypes).toEqual([{ type: 'MercadoPago', kind: 'card', label: 'Mercado Pago' }]);
    expect(mercadopagoDefinition.capabilities).toEqual({
      hold: true,
      partialCapture: true,
      offSession: false,
      refund: true,
      payout: false,
      webhook: true,
    });
    expect(mercadopagoDefinition.required).toEqual(['accessToken', 'publicKey', 'webhookSecret']);
    expect(adapter().clientConfig?.()).toEqual({ publicKey: 'TEST-pk-456' });
  });

  it('converts minor units for 2- and 0-decimal currencies', () => {
    expect(toMajor(1250, 'BRL')).toBe(12.5);
    expect(toMajor(1999, 'MXN')).toBe(19.99);
    expect(toMajor(1250, 'CLP')).toBe(1250);
  });

  it('charges an approved card (APRO): paid at once, no further action, our key and reference sent', async () => {
    const a = adapter();
    const inp = await input('APRO');
    const r = await a.start(inp);
    expect(r.state).toBe('paid');
    expect(r.action).toEqual({ kind: 'none' });
    const p = mp.payments.get(Number(r.ref))!;
    expect(p.transaction_amount).toBe(12.5);
    expect(p.external_reference).toBe(inp.outTradeNo);
    expect(p.captured).toBe(true);
    const req = paymentPosts().at(-1)!;
    expect(req.idempotencyKey).toBe(inp.idempotencyKey);
    expect(req.body).toMatchObject({
      token: inp.card!.token,
      installments: 1,
      payment_method_id: 'master',
      payer: { email: 'test_user_123@testuser.com' },
      notification_url: inp.notifyUrl,
      capture: true,
    });
    const s = await a.status(r.ref, inp.outTradeNo);
    expect(s).toMatchObject({ ref: r.ref, state: 'paid', amount: 1250, currency: 'BRL' });
    // No ref yet (the answer was lost): found by our reference.
    expect(await a.status('', inp.outTradeNo)).toMatchObject({ ref: r.ref, state: 'paid' });
    expect(await a.status('', 'unknownref')).toEqual({ ref: '', state: 'pending' });
  });

  it('every declared test value behaves as declared (cards approve with APRO; names pick the outcome)', async () => {
    const a = adapter();
    const expected = {
      succeeds: ['paid'],
      declined: ['failed'],
      insufficient_funds: ['failed'],
      no_answer: ['pending'],
    } as const;
    for (const tv of mercadopagoDefinition.testValues!) {
      const isCard = /\d{4}/.test(tv.value);
      const r = await a.start(await input(isCard ? 'APRO' : tv.value, {}, isCard ? tv.value : MC));
      expect(expected[tv.outcome], tv.value).toContain(r.state);
      if (tv.outcome === 'insufficient_funds') expect(r.failureCode).toBe('insufficient_funds');
    }
  });

  it('a retried start with the same idempotency key does not charge twice', async () => {
    const a = adapter();
    const inp = await input('APRO');
    const r1 = await a.start(inp);
    const r2 = await a.start(inp);
    expect(r2.ref).toBe(r1.ref);
    expect([...mp.payments.values()].filter((p) => p.external_reference === inp.outTradeNo)).toHaveLength(1);
  });

  it('declined (OTHE) and insufficient funds (FUND) fail with their codes', async () => {
    const a = adapter();
    const d = await a.start(await input('OTHE', {}, VISA));
    expect(d).toMatchObject({ state: 'failed', failureCode: 'card_declined' });
    const f = await a.start(await input('FUND'));
    expect(f).toMatchObject({ state: 'failed', failureCode: 'insufficient_funds' });
    expect(await a.status(f.ref, '')).toMatchObject({ state: 'failed', failureCode: 'insufficient_funds' });
  });

  it('pending (CONT) stays pending until Mercado Pago decides, then status says paid', async () => {
    const a = adapter();
    const inp = await input('CONT');
    const r = await a.start(inp);
    expect(r.state).toBe('pending');
    expect((await a.status(r.ref, inp.outTradeNo)).state).toBe('pending');
    mp.settle(r.ref, 'approved');
    expect((await a.status(r.ref, inp.outTradeNo)).state).toBe('paid');
  });

  it("a spent card token is refused with Mercado Pago's error", async () => {
    const a = adapter();
    const inp = await input('APRO');
    await a.start(inp);
    const again = { ...inp, idempotencyKey: `${inp.idempotencyKey}-b`, outTradeNo: `${inp.outTradeNo}b` };
    await expect(a.start(again)).rejects.toMatchObject({ code: '3003', status: 400 });
  });

  it('a hold: authorised, captured for less (the rest released), then refunds partially; over-refund refused', async () => {
    const a = adapter();
    const inp = await input('APRO', { capture: 'manual', amount: 5000 });
    const r = await a.start(inp);
    expect(r.state).toBe('authorized');
    expect(await a.status(r.ref, inp.outTradeNo)).toMatchObject({ state: 'authorized', amount: 5000 });
    await expect(a.capturePayment!(r.ref, 6000, { idempotencyKey: 'cap-x' })).rejects.toBeInstanceOf(ProviderError);
    await a.capturePayment!(r.ref, 3250, { idempotencyKey: `cap-${r.ref}` });
    expect(await a.status(r.ref, inp.outTradeNo)).toMatchObject({ state: 'paid', amount: 3250 });
    // A repeated capture (the job ran again) is a no-op.
    await a.capturePayment!(r.ref, 3250, { idempotencyKey: `cap-${r.ref}` });
    await a.refundPayment(r.ref, 1000, { idempotencyKey: `ref1-${r.ref}` });
    expect(mp.payments.get(Number(r.ref))!.transaction_amount_refunded).toBe(10);
    // The same refund retried (same key) is answered again, not refunded twice.
    await a.refundPayment(r.ref, 1000, { idempotencyKey: `ref1-${r.ref}` });
    expect(mp.payments.get(Number(r.ref))!.transaction_amount_refunded).toBe(10);
    const err = await a.refundPayment(r.ref, 2300, { idempotencyKey: `ref2-${r.ref}` }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProviderError);
    expect(err).toMatchObject({ code: '2085', status: 400 });
    await a.refundPayment(r.ref, 2250, { idempotencyKey: `ref3-${r.ref}` });
    expect(mp.payments.get(Number(r.ref))!.status).toBe('refunded');
  });

  it('voids a hold', async () => {
    const a = adapter();
    const inp = await input('APRO', { capture: 'manual' });
    const r = await a.start(inp);
    await a.voidPayment!(r.ref, { idempotencyKey: 'v1' });
    expect(await a.status(r.ref, inp.outTradeNo)).toMatchObject({ state: 'cancelled' });
    await a.voidPayment!(r.ref, { idempotencyKey: 'v1' }); // again: already cancelled, nothing to do
    await expect(a.capturePayment!(r.ref, 100, { idempotencyKey: 'c' })).rejects.toMatchObject({ code: '4305' });
  });

  it('a currency Mercado Pago does not take is refused before any call', async () => {
    const before = mp.requests.length;
    await expect(adapter().start(await input('APRO', { currency: 'USD' }))).rejects.toMatchObject({
      code: 'currency_not_supported',
    });
    expect(mp.requests.filter((r) => r.path === '/v1/payments').length).toBe(
      mp.requests.slice(0, before).filter((r) => r.path === '/v1/payments').length,
    );
  });

  it('a 0-decimal currency (CLP) sends whole pesos', async () => {
    mp.currency = 'CLP';
    try {
      const a = adapter();
      const r = await a.start(await input('APRO', { currency: 'CLP', amount: 2500 }));
      expect(mp.payments.get(Number(r.ref))!.transaction_amount).toBe(2500);
      expect(await a.status(r.ref, '')).toMatchObject({ amount: 2500, currency: 'CLP' });
    } finally {
      mp.currency = 'BRL';
    }
  });

  it('saves a card on a customer (found again by e-mail)', async () => {
    const a = adapter();
    expect(await a.findCustomer('saver@testuser.com')).toBeNull();
    const c = await a.createCustomer('saver@testuser.com', { idempotencyKey: 'cust-1' });
    expect((await a.findCustomer('saver@testuser.com'))?.id).toBe(c.id);
    const card = await a.addCard(
      c.id,
      { token: await mp.cardToken({ number: VISA, holder: 'APRO' }) },
      { idempotencyKey: 'card-1' },
    );
    expect(card).toMatchObject({ customer_id: c.id, last_four_digits: '3704' });
    await expect(a.createCustomer('saver@testuser.com', { idempotencyKey: 'cust-2' })).rejects.toMatchObject({
      code: '101',
    });
    // saveCard: finds the customer by e-mail (or is given it) and attaches the card, with its method and issuer.
    const saved = await a.saveCardToken(
      {
        email: 'saver@testuser.com',
        token: await mp.cardToken({ number: MC, holder: 'APRO' }),
        paymentMethodId: 'master',
        issuerId: '24',
      },
      { idempotencyKey: 'card-2' },
    );
    expect(saved).toEqual({
      customerRef: c.id,
      cardRef: expect.stringMatching(/^\d+$/),
      brand: 'master',
      last4: '6351',
    });
    expect(mp.requests.at(-1)!.body).toEqual({ token: expect.any(String), payment_method_id: 'master', issuer_id: 24 });
    const fresh = await a.saveCardToken(
      { email: 'new-saver@testuser.com', token: await mp.cardToken({ number: VISA, holder: 'APRO' }) },
      { idempotencyKey: 'card-3' },
    );
    expect(fresh.customerRef).not.toBe(c.id);
    expect(mp.cardsOf(fresh.customerRef)).toHaveLength(1);
    await a.removeCard({ customerRef: fresh.customerRef, cardRef: fresh.cardRef });
    expect(mp.cardsOf(fresh.customerRef)).toHaveLength(0);
    await a.removeCard({ customerRef: fresh.customerRef, cardRef: fresh.cardRef }); // gone already: removed
  });

  it('pays with a saved card: /MercadoPago asks the security code for a fresh token of the card; the payment names its customer', async () => {
    const a = adapter();
    const saved = await a.saveCardToken(
      { email: 'saved-pay@testuser.com', token: await mp.cardToken({ number: MC, holder: 'APRO' }) },
      { idempotencyKey: `sv-${Date.now()}` },
    );
    const inp = await input('APRO', { card: { saved: { customerRef: saved.customerRef, cardRef: saved.cardRef } } });
    const r = await a.start(inp);
    expect(r).toMatchObject({
      ref: '',
      state: 'pending',
      action: { kind: 'form', url: '#/MercadoPago', fields: { cardId: saved.cardRef, outTradeNo: inp.outTradeNo } },
    });
    const payment = {
      amount: 1250,
      currency: 'BRL',
      capture: 'automatic' as const,
      description: 'Powerly',
      notifyUrl: inp.notifyUrl,
    };
    // A token of the saved card paid without its customer: Mercado Pago refuses it (a failed payment, never a throw).
    const stray = await mp.savedCardToken(saved.cardRef);
    expect(
      await a.complete!(
        '',
        `${inp.outTradeNo}x`,
        { token: stray, email: 'other@testuser.com' },
        { idempotencyKey: `c-${inp.outTradeNo}x` },
        payment,
      ),
    ).toMatchObject({ state: 'failed' });
    // With its customer: no e-mail needed (the customer's), charged once.
    const tok = await mp.savedCardToken(saved.cardRef, '123');
    const done = await a.complete!(
      '',
      inp.outTradeNo,
      { token: tok },
      { idempotencyKey: `c-${inp.outTradeNo}` },
      { ...payment, customerRef: saved.customerRef },
    );
    expect(done).toMatchObject({ state: 'paid', amount: 1250, currency: 'BRL' });
    const req = paymentPosts().at(-1)!;
    expect(req.body).toMatchObject({ token: tok, payer: { type: 'customer', id: saved.customerRef } });
    expect(mp.payments.get(Number(done.ref))!.card.last_four_digits).toBe('6351');
    // Without the customer the screen's e-mail is still required (a new card's payment).
    expect(
      await a.complete!(
        '',
        `${inp.outTradeNo}y`,
        { token: await mp.savedCardToken(saved.cardRef) },
        { idempotencyKey: `c-${inp.outTradeNo}y` },
        payment,
      ),
    ).toMatchObject({ state: 'failed', failureCode: 'token_invalid' });
    // A saved card token needs the security code.
    await expect(mp.savedCardToken(saved.cardRef, '')).rejects.toThrow(/E302/);
  });

  it('a wrong access token is refused as Mercado Pago does (401)', async () => {
    const a = adapter({ accessToken: 'TEST-wrong' });
    await expect(a.status('1', '')).rejects.toMatchObject({ status: 401 });
  });

  it('a network failure is ProviderError network', async () => {
    const a = adapter({ apiBase: 'http://127.0.0.1:1' });
    const err = await a.status('123', 'x').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProviderError);
    expect((err as ProviderError).code).toBe('network');
  });

  describe('webhooks', () => {
    it('a genuine delivery is accepted and acknowledged with 200; a redelivery carries the same event id', async () => {
      const a = adapter();
      const r = await a.start(await input('CONT'));
      const w = mp.settle(r.ref, 'approved');
      const got = await a.readNotification(w);
      expect(got).toMatchObject({ eventId: `mp:${w.notificationId}`, ref: r.ref, ack: { status: 200 } });
      const again = mp.webhook(r.ref, 'payment.updated', { notificationId: w.notificationId });
      expect(again.headers['x-request-id']).not.toBe(w.headers['x-request-id']);
      expect((await a.readNotification(again))?.eventId).toBe(got!.eventId);
      expect((await a.status(got!.ref!, '')).state).toBe('paid');
    });

    it("the manifest follows Mercado Pago's template (alphanumeric ids lower-cased, absent parts left out)", () => {
      expect(signatureManifest('ABC123', 'rid', '1700')).toBe('id:abc123;request-id:rid;ts:1700;');
      expect(signatureManifest('12345', undefined, '1700')).toBe('id:12345;ts:1700;');
    });

    it('a wrong secret, a tampered query id, a body naming another payment or a missing signature is refused', async () => {
      const a = adapter();
      expect(await a.readNotification(mp.webhook('123', 'payment.updated', { secret: 'not-the-secret' }))).toBeNull();
      const w = mp.webhook('123');
      expect(await a.readNotification({ ...w, query: { ...w.query, 'data.id': '124' } })).toBeNull();
      expect(await a.readNotification({ ...w, rawBody: w.rawBody.replace('"id":"123"', '"id":"999"') })).toBeNull();
      expect(await a.readNotification({ ...w, headers: { ...w.headers, 'x-request-id': 'other' } })).toBeNull();
      const { 'x-signature': _s, ...noSig } = w.headers;
      expect(await a.readNotification({ ...w, headers: noSig })).toBeNull();
      expect(await a.readNotification(w)).not.toBeNull();
    });
  });
});
