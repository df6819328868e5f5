// Component test (happy-dom): the confirm screen offers the person's saved card for a debt (payType FK) and for a
// Wi-Fi package, as it does for a rental's deposit, and paying with it sends the card (cardId), not a new card's
// token; a Wi-Fi box deposit (whose call takes no saved card) keeps the card form. Against a real local HTTP server
// playing the API.
import { act } from 'react';
import { beforeAll, describe, expect, it } from 'vitest';
import Confirm from '../../src/pay/Confirm.tsx';
import { navigate } from '../../src/stores/router.ts';
import { addMessages } from '../../src/i18n/index.ts';
import payEn from '../../locales/pay/en-US.json';
import { localApi, renderer } from './localApi.ts';
import { until } from './until.ts';

const paid: { path: string; body: Record<string, unknown> }[] = [];
const ok = (data: unknown) => ({ json: { code: 0, msg: 'success', data } });

localApi((path, body, req) => {
  if (path === 'cdb/payment/method/list') {
    return ok([
      {
        pId: 'card-sandbox',
        pPaymentType: 'STRIPE_CARD',
        label: 'Card',
        currencySymbol: '€',
        pCurrencyType: 'EUR',
        publicKey: 'pk_sandbox_t',
        configDetails: { accountCountry: 'LT', currency: 'EUR' },
      },
    ]);
  }
  if (path === 'cdb/user/card')
    return ok([
      {
        pId: 'card_1',
        pCardnumber: '**** **** **** 4444',
        currencyName: 'EUR',
        brand: 'mastercard',
        paymentId: 'card-sandbox',
      },
    ]);
  if (path === 'cdb/user/wallet/new') return ok([]);
  const json = (req.headers['content-type'] ?? '').includes('json');
  const parsed = body
    ? json
      ? (JSON.parse(body) as Record<string, unknown>)
      : Object.fromEntries(new URLSearchParams(body))
    : {};
  if (path === 'cdb/payment/stripe/multicurrency/payOrder') {
    paid.push({ path, body: parsed });
    return ok({ outTradeNo: 'O-1' });
  }
  if (path === 'chargenow/mifi/confirm') {
    paid.push({ path, body: parsed });
    return ok({ orderId: 'P-1', packageStatus: 0 });
  }
  return undefined;
});
const render = renderer();
beforeAll(() => addMessages('en-US', payEn));

/** The saved card's one-button payment (SavedCardPay). */
const savedPay = () => {
  const next = document.getElementById('confirm-saved-card')?.closest('.field')?.nextElementSibling;
  return next instanceof HTMLButtonElement ? next : null;
};

describe('a saved card at payment', () => {
  it('pays a debt (FK) with the saved card', async () => {
    paid.length = 0;
    navigate('/confirm?payType=FK&outTradeNo=O-1&price=4.50&currency=EUR');
    render(<Confirm />);
    await until(() => document.body.textContent?.includes('4444') && savedPay());
    act(() => savedPay()!.click());
    await until(() => paid.length > 0);
    expect(paid[0]).toMatchObject({
      path: 'cdb/payment/stripe/multicurrency/payOrder',
      body: { outTradeNo: 'O-1', paymentId: 'card-sandbox', cardId: 'card_1' },
    });
    expect(paid[0]!.body.stripeToken).toBeUndefined();
  });

  it('pays an unpaid Wi-Fi package with the saved card', async () => {
    paid.length = 0;
    navigate('/confirm?payType=mifi&mifiOrderId=P-1&price=12&currency=EUR');
    render(<Confirm />);
    await until(() => document.body.textContent?.includes('4444') && savedPay());
    act(() => savedPay()!.click());
    await until(() => paid.length > 0);
    expect(paid[0]).toMatchObject({
      path: 'chargenow/mifi/confirm',
      body: { mifiOrderId: 'P-1', paymentId: 'card-sandbox', cardId: 'card_1' },
    });
  });

  it('a Wi-Fi box deposit keeps the card form (its call takes no saved card)', async () => {
    navigate('/confirm?payType=mifi&mifiOrderId=P-1&mifiDeposit=1&price=50&currency=EUR');
    render(<Confirm />);
    await until(() => document.querySelector('form.card-form'));
    expect(document.body.textContent).not.toContain('4444');
  });
});
