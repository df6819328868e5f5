// The flutterwave live card form through the product's API against the Flutterwave v3 test server: a card saved and
// paid with again, declines, a token's expiry and the sealed card (the form itself: flutterwave-card-form.test.ts).
import { describe, expect, it } from 'vitest';
import { flutterwaveDefinition } from '../../src/modules/payments/methods/flutterwave.ts';
import { touristToken } from '../helper.ts';
import { checkLedger } from '../../src/modules/wallet/reconcile.ts';
import { cardSealKey, openCard, sealCard, sealContext } from '../../src/modules/payments/methods/card-seal.ts';
import { API, KEYS, METHOD, b, fake, logLines, post, tokens, useLiveApp, verve } from './flutterwave-helpers.ts';

describe('flutterwave: the live card form through the API (payer endpoint → paying call → paid)', () => {
  useLiveApp();

  it("saveCardFlag: saved once paid (the verify's card token), once; paid with again through tokenized charges, only by its owner; a decline; removed", async () => {
    const token = await touristToken(b.app);
    const other = await touristToken(b.app);
    const get = (url: string, who: string) =>
      b.app.inject({ method: 'GET', url: `${API}/${url}`, headers: { token: who } });
    const cardsOf = async (who: string) =>
      (await get('cdb/user/card', who)).json().data as {
        pId: string;
        pCardnumber: string;
        brand: string;
        paymentId?: string;
      }[];
    const savedRows = async () =>
      (
        await b.db.query<{ id: string; payment_method_ref: string; user_id: string }>(
          "select id, payment_method_ref, user_id from saved_cards where provider = 'flutterwave' and removed_at is null",
        )
      ).rows;
    // Without the flag nothing is saved (the verve top-up above); with it, on a 3-D Secure card, only once paid.
    const before = (await savedRows()).length;
    const t = await post('cdb/payment/method/payer', token, {
      paymentId: METHOD,
      cardNumber: '4187427415564246',
      expiryMonth: '09',
      expiryYear: '32',
      cvv: '828',
      email: 'ada@powerly.example',
      saveCardFlag: true,
    } as never);
    expect(t.json(), t.body).toMatchObject({ code: 0 });
    const stored = (await tokens()).find((x) => x.id === t.json().data.token)!;
    expect(stored.details).toMatchObject({ saveCard: true });
    const started = await post('cdb/payment/multicurrency/recharge', token, {
      amount: '3000',
      currency: 'NGN',
      paymentId: METHOD,
      stripeToken: t.json().data.token,
      returnUrl: 'https://app.powerly.example/#/wallet',
    });
    const pi = (started.json().data.action as { paymentIntent: string }).paymentIntent;
    const pending = await post('cdb/payment/multicurrency/recharge', token, {
      amount: '3000',
      currency: 'NGN',
      paymentId: METHOD,
      paymentIntent: pi,
    });
    expect(pending.json().data.action, pending.body).toBeDefined();
    expect(await savedRows()).toHaveLength(before); // no token before the charge is successful
    const tx = fake.approve(pi);
    // The webhook and the app's resume both see it paid: the card is saved once.
    const hook = fake.webhook('charge.completed', tx.id);
    expect(
      (
        await b.app.inject({
          method: 'POST',
          url: '/webhooks/methods/flutterwave',
          headers: hook.headers,
          payload: hook.rawBody,
        })
      ).statusCode,
    ).toBeLessThan(500);
    const done = await post('cdb/payment/multicurrency/recharge', token, {
      amount: '3000',
      currency: 'NGN',
      paymentId: METHOD,
      paymentIntent: pi,
    });
    expect(done.json(), done.body).toMatchObject({ code: 0, data: { pBalance: 3000 } });
    await post('cdb/payment/multicurrency/recharge', token, {
      amount: '3000',
      currency: 'NGN',
      paymentId: METHOD,
      paymentIntent: pi,
    });
    const rows = await savedRows();
    expect(rows).toHaveLength(before + 1);
    const row = rows.find((r) => r.id === `card_${pi}`)!;
    const flwToken = fake.byTxRef(pi)!.cardToken!;
    expect(flwToken).toMatch(/^flw-t1nf-/);
    // What is kept: Flutterwave's token with the charge's e-mail (a tokenized charge names it), no card number or CVV.
    expect(row.payment_method_ref).toBe(
      `msc:user-${row.user_id}:${encodeURIComponent(`${flwToken} ada@powerly.example`)}`,
    );
    // (Flutterwave's token is random hex and may hold the CVV's digits by chance: what we add around it may not.)
    for (const clear of ['4187427415564246', '828'])
      expect(row.payment_method_ref.replace(flwToken, '')).not.toContain(clear);
    const mine = await cardsOf(token);
    expect(mine).toContainEqual(
      expect.objectContaining({ pId: row.id, pCardnumber: '**** **** **** 4246', paymentId: METHOD }),
    );

    // Paid with again: a tokenized charge (no card fields, no customer step).
    const again = await post('cdb/payment/multicurrency/recharge', token, {
      amount: '1200',
      currency: 'NGN',
      paymentId: METHOD,
      cardId: row.id,
    });
    expect(again.json(), again.body).toMatchObject({ code: 0, data: { pBalance: 4200 } });
    const sent = fake.requests.findLast((q) => q.path === '/v3/tokenized-charges')!.body as Record<string, unknown>;
    expect(sent).toMatchObject({
      token: flwToken,
      email: 'ada@powerly.example',
      currency: 'NGN',
      amount: 1200,
      tx_ref: expect.any(String),
    });
    expect(sent).not.toHaveProperty('card_number');
    // Another user cannot pay with it: not their card (nothing sent to Flutterwave).
    const n0 = fake.requests.filter((q) => q.path === '/v3/tokenized-charges').length;
    const stolen = await post('cdb/payment/multicurrency/recharge', other, {
      amount: '1200',
      currency: 'NGN',
      paymentId: METHOD,
      cardId: row.id,
    });
    expect(stolen.json().code, stolen.body).not.toBe(0);
    const forged = await post('cdb/payment/multicurrency/recharge', other, {
      amount: '1200',
      currency: 'NGN',
      paymentId: METHOD,
      stripeToken: row.payment_method_ref,
    });
    expect(forged.json().code, forged.body).toBe(422);
    expect(fake.requests.filter((q) => q.path === '/v3/tokenized-charges')).toHaveLength(n0);
    // A rental with it: the deposit is held by a tokenized charge (preauthorize), the rental starts.
    const rent = await post('cdb/cabinet/savedCardToRent', token, {
      qrcode: 'PWL-VNO-001',
      cardId: row.id,
      paymentId: METHOD,
    });
    const orderNo = rent.json().data?.outTradeNo as string;
    expect(orderNo, rent.body).toMatch(/^PO/);
    expect(fake.requests.findLast((q) => q.path === '/v3/tokenized-charges')!.body).toMatchObject({
      token: flwToken,
      preauthorize: true,
      amount: 25,
      currency: 'EUR',
    });
    const held = await b.db.query<{ purpose: string; status: string }>(
      'select purpose, status from payments where order_id = $1',
      [orderNo],
    );
    expect(held.rows).toEqual([{ purpose: 'deposit_preauth', status: 'authorized' }]);
    // The card has since run out of funds: Flutterwave declines the tokenized charge; nothing credited.
    fake.tokenOutcome(flwToken, 'insufficient');
    const poor = await post(
      'cdb/payment/multicurrency/recharge',
      token,
      { amount: '500', currency: 'NGN', paymentId: METHOD, cardId: row.id },
      'lt-LT',
    );
    expect(poor.json()).toMatchObject({ code: 422, msg: 'Jūsų kortelėje nepakanka lėšų.' });
    // Removed: ours alone (Flutterwave keeps no card object for a token); it cannot pay any more.
    expect((await get(`cdb/user/card/remove/${row.id}`, token)).json()).toMatchObject({ code: 0 });
    expect((await cardsOf(token)).find((c) => c.pId === row.id)).toBeUndefined();
    const gone = await post('cdb/payment/multicurrency/recharge', token, {
      amount: '500',
      currency: 'NGN',
      paymentId: METHOD,
      cardId: row.id,
    });
    expect(gone.json().code).not.toBe(0);
    const wallets = (await get('cdb/user/wallet/new', token)).json().data as {
      pCurrencyType: string;
      pBalance: number;
    }[];
    expect(wallets.find((w) => w.pCurrencyType === 'NGN')?.pBalance).toBe(4200);
    expect(await checkLedger(b.db)).toEqual([]);
    // Never logged: neither the card nor Flutterwave's token.
    expect(logLines.join('')).not.toContain(flwToken);
  });

  it("a declined card and a card without funds: refused in the user's language, nothing credited", async () => {
    const token = await touristToken(b.app);
    const pay = async (card: Record<string, string>, lang: string) => {
      const t = (
        await post('cdb/payment/method/payer', token, { paymentId: METHOD, email: 'ada@powerly.example', ...card })
      ).json().data.token as string;
      return post(
        'cdb/payment/multicurrency/recharge',
        token,
        { amount: '800', currency: 'NGN', paymentId: METHOD, stripeToken: t },
        lang,
      );
    };
    const declined = await pay(
      { cardNumber: '5143010522339965', expiryMonth: '08', expiryYear: '31', cvv: '276' },
      'es-ES',
    );
    expect(declined.json()).toMatchObject({ code: 422, msg: 'Tu tarjeta ha sido rechazada.' });
    const poor = await pay(
      { cardNumber: '5258585922666506', expiryMonth: '09', expiryYear: '31', cvv: '883' },
      'lt-LT',
    );
    expect(poor.json()).toMatchObject({ code: 422, msg: 'Jūsų kortelėje nepakanka lėšų.' });
    const wallets = (
      await b.app.inject({ method: 'GET', url: `${API}/cdb/user/wallet/new`, headers: { token } })
    ).json().data as { pCurrencyType: string; pBalance: number }[];
    expect(wallets.find((w) => w.pCurrencyType === 'NGN')?.pBalance ?? 0).toBe(0);
    expect(await checkLedger(b.db)).toEqual([]);
  });

  it('a card token waits at most 10 minutes; an expired one is refused, then swept with its sealed card', async () => {
    const token = await touristToken(b.app);
    const id = (await post('cdb/payment/method/payer', token, { paymentId: METHOD, ...verve })).json().data
      .token as string;
    b.clock.advance(10 * 60_000 + 1);
    const late = await post(
      'cdb/payment/multicurrency/recharge',
      token,
      { amount: '1500', currency: 'NGN', paymentId: METHOD, stripeToken: id },
      'en-US',
    );
    expect(late.json()).toMatchObject({
      code: 422,
      msg: 'The card details have expired or were already used. Please enter your card again.',
    });
    expect((await tokens()).find((x) => x.id === id)?.details.sealedCard).toBeDefined();
    await b.app.powerly.retention.sweep();
    expect((await tokens()).find((x) => x.id === id)).toBeUndefined();
  });

  it('a sealed card opens only for its own token, user and key', () => {
    const key = cardSealKey('flutterwave', flutterwaveDefinition, KEYS)!;
    const card = { number: '5061460166976054667', expMonth: '10', expYear: '29', cvv: '564' };
    const sealed = sealCard(key, card, sealContext('mt_a', 7, 'flutterwave'));
    expect(openCard(key, sealed, sealContext('mt_a', 7, 'flutterwave'))).toEqual(card);
    expect(openCard(key, sealed, sealContext('mt_b', 7, 'flutterwave'))).toBeUndefined();
    expect(openCard(key, sealed, sealContext('mt_a', 8, 'flutterwave'))).toBeUndefined();
    expect(
      openCard(
        cardSealKey('flutterwave.go9', flutterwaveDefinition, KEYS)!,
        sealed,
        sealContext('mt_a', 7, 'flutterwave'),
      ),
    ).toBeUndefined();
    expect(
      openCard(
        cardSealKey('flutterwave', flutterwaveDefinition, { ...KEYS, encryptionKey: 'FLWSECK_TESTrotatedkey12' })!,
        sealed,
        sealContext('mt_a', 7, 'flutterwave'),
      ),
    ).toBeUndefined();
    // Methods without a direct card type have no sealing key (they never take card fields).
    expect(
      cardSealKey(
        'monri',
        { payTypes: [{ type: 'Monri_WebPay', kind: 'card', label: 'Card' }], required: ['merchantKey'] },
        { merchantKey: 'k' },
      ),
    ).toBeUndefined();
  });
});
