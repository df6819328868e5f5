// The mercadopago adapter's live card entry on the /MercadoPago screen (MercadoPago.js) against the local Mercado Pago
// test server (server/test/providers/mercadopago.ts): the start that routes the app to the screen, the completion
// with the screen's token, and the screen's fields; the rest of the adapter is in mercadopago.test.ts, the fixtures
// in mercadopago-helpers.ts.
import { describe, expect, it } from 'vitest';
import { mercadopagoDefinition, screenCard } from '../../src/modules/payments/methods/mercadopago.ts';
import { adapter, facts, MC, mp, paymentPosts, screen, useMercadoPago } from './mercadopago-helpers.ts';

useMercadoPago();

describe('mercadopago adapter', () => {
  describe('live card entry on the /MercadoPago screen (MercadoPago.js)', () => {
    it('start without a card token routes the app to /MercadoPago with the public key, the SDK, our reference and the amount', async () => {
      const { inp, r } = await screen('APRO');
      expect(r).toEqual({
        ref: '',
        state: 'pending',
        action: {
          kind: 'form',
          url: '#/MercadoPago',
          fields: {
            publicKey: 'TEST-pk-456',
            sdkUrl: 'https://sdk.mercadopago.com/js/v2',
            outTradeNo: inp.outTradeNo,
            amount: '15.00',
            currency: 'BRL',
          },
        },
      });
      const clp = await adapter({ sdkUrl: 'http://127.0.0.1:9/js/v2' }).start({
        ...inp,
        outTradeNo: `${inp.outTradeNo}c`,
        currency: 'CLP',
        amount: 2500,
      });
      expect(clp.action).toMatchObject({
        fields: { amount: '2500', currency: 'CLP', sdkUrl: 'http://127.0.0.1:9/js/v2' },
      });
      // Until the customer is back, the payment is pending (nothing at Mercado Pago under our reference).
      expect(await adapter().status('', inp.outTradeNo)).toEqual({ ref: '', state: 'pending' });
    });

    it("complete creates the payment with the screen's token, payer and document, once however often it is called", async () => {
      const { inp } = await screen('APRO');
      const token = await mp.cardToken({ number: MC, holder: 'APRO' });
      const params = {
        token,
        paymentMethodId: 'master',
        issuerId: '24',
        installments: '3',
        email: 'ana@example.com.br',
        identificationType: 'CPF',
        identificationNumber: '123.456.789-09',
      };
      const a = adapter();
      const call = { idempotencyKey: `complete_${inp.outTradeNo}` };
      const done = await a.complete!('', inp.outTradeNo, params, call, facts());
      expect(done).toMatchObject({ state: 'paid', amount: 1500, currency: 'BRL' });
      const p = mp.payments.get(Number(done.ref))!;
      expect(p).toMatchObject({
        transaction_amount: 15,
        installments: 3,
        payment_method_id: 'master',
        external_reference: inp.outTradeNo,
        payer: { email: 'ana@example.com.br' },
      });
      const sent = paymentPosts().at(-1)!;
      expect(sent.idempotencyKey).toBe(call.idempotencyKey);
      expect(sent.body).toMatchObject({
        issuer_id: 24,
        capture: true,
        payer: { identification: { type: 'CPF', number: '12345678909' } },
      });
      // A repeated resume (no ref recorded yet) replays the same key: Mercado Pago answers the first payment.
      expect((await a.complete!('', inp.outTradeNo, params, call, facts())).ref).toBe(done.ref);
      // With the ref, only the status is read.
      const posts = paymentPosts().length;
      expect(await a.complete!(done.ref, inp.outTradeNo, params, call, facts())).toMatchObject({
        ref: done.ref,
        state: 'paid',
      });
      expect(paymentPosts().length).toBe(posts);
    });

    it('a hold is authorised; a declined card (OTHE) fails with its code; a spent or malformed token fails, never throws', async () => {
      const a = adapter();
      const held = await screen('APRO', { capture: 'manual' });
      const auth = await a.complete!(
        '',
        held.inp.outTradeNo,
        { token: await mp.cardToken({ number: MC, holder: 'APRO' }), email: 'a@b.co' },
        { idempotencyKey: `c_${held.inp.outTradeNo}` },
        facts({ capture: 'manual' }),
      );
      expect(auth.state).toBe('authorized');
      const declined = await screen('OTHE');
      const spent = await mp.cardToken({ number: MC, holder: 'OTHE' });
      expect(
        await a.complete!(
          '',
          declined.inp.outTradeNo,
          { token: spent, email: 'a@b.co' },
          { idempotencyKey: `c_${declined.inp.outTradeNo}` },
          facts(),
        ),
      ).toMatchObject({ state: 'failed', failureCode: 'card_declined' });
      const again = await screen('APRO');
      expect(
        await a.complete!(
          '',
          again.inp.outTradeNo,
          { token: spent, email: 'a@b.co' },
          { idempotencyKey: `c_${again.inp.outTradeNo}` },
          facts(),
        ),
      ).toEqual({ ref: '', state: 'failed', failureCode: '3003' });
      expect(
        await a.complete!(
          '',
          again.inp.outTradeNo,
          { token: 'x"; drop', email: 'a@b.co' },
          { idempotencyKey: 'k' },
          facts(),
        ),
      ).toMatchObject({ state: 'failed', failureCode: 'token_invalid' });
      // Back without a token (the customer left the screen): still pending.
      expect(await a.complete!('', again.inp.outTradeNo, {}, { idempotencyKey: 'k' }, facts())).toEqual({
        ref: '',
        state: 'pending',
      });
    });

    it("reads the screen's fields strictly", () => {
      expect(screenCard({ token: 'abc12345', email: 'a@b.co' })).toEqual({
        token: 'abc12345',
        email: 'a@b.co',
        installments: 1,
      });
      expect(screenCard({ token: 'abc12345', email: 'nope' })).toBeUndefined();
      expect(screenCard({ token: 'abc12345', email: 'a@b.co', installments: '99' })).toBeUndefined();
      expect(
        screenCard({
          token: 'abc12345',
          email: 'a@b.co',
          paymentMethodId: 'Visa<script>',
          issuerId: 'x',
          identificationType: 'CPF',
        }),
      ).toEqual({ token: 'abc12345', email: 'a@b.co', installments: 1 });
    });

    it("the CSP origins: MercadoPago.js's hosts by default, a stand-in SDK's own origin alone", () => {
      const cfg = { accessToken: 'a', publicKey: 'b', webhookSecret: 'c' };
      const live = mercadopagoDefinition.clientSdk!(cfg);
      expect(live.script).toContain('https://sdk.mercadopago.com');
      expect(live.frame).toContain('https://secure-fields.mercadopago.com');
      expect(live.connect).toContain('https://api.mercadopago.com');
      expect(mercadopagoDefinition.clientSdk!({ ...cfg, sdkUrl: 'http://127.0.0.1:4000/js/v2' })).toEqual({
        script: ['http://127.0.0.1:4000'],
        frame: ['http://127.0.0.1:4000'],
        connect: ['http://127.0.0.1:4000'],
      });
    });
  });
});
