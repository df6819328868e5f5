// Component test (happy-dom): a failed top-up on /wallet_in names its step as the confirm screen does — the server
// refused the recharge order: "Failed to create recharge order"; the payment itself failed (a decline): "Failed to
// initiate recharge payment" — above the reason. Against a local HTTP server playing the API.
import { act } from 'react';
import { describe, expect, it } from 'vitest';
import WalletIn from '../../src/wallet/WalletIn.tsx';
import { loadLocale } from '../../src/i18n/index.ts';
import { navigate } from '../../src/stores/router.ts';
import { localApi, renderer } from './localApi.ts';
import { until } from './until.ts';

let refusal = { status: 400, json: { code: 400, msg: 'The amount is not accepted for this wallet.', data: null } };
localApi((path) => {
  if (path === 'cdb/payment/method/list')
    return {
      json: {
        code: 0,
        msg: 'success',
        data: [
          {
            pId: 'card-sandbox',
            pPaymentType: 'STRIPE_CARD',
            label: 'Card',
            currencySymbol: '€',
            pCurrencyType: 'EUR',
            publicKey: '',
            configDetails: { accountCountry: 'PT', currency: 'eur' },
          },
        ],
      },
    };
  if (path === 'cdb/user/card')
    return {
      json: {
        code: 0,
        msg: 'success',
        data: [{ pId: 'card-1', pCardnumber: '4242', currencyName: '€', brand: 'visa', paymentId: 'card-sandbox' }],
      },
    };
  if (path === 'cdb/payment/multicurrency/recharge') return refusal;
  return undefined;
});
const render = renderer();

async function payAndRead(): Promise<string> {
  await act(async () => {
    await loadLocale('en-US');
    navigate('/wallet_in?currency=EUR&price=10', { replace: true });
  });
  render(<WalletIn />);
  // The saved card is offered (paying with it is one button) once the cards are in.
  await until(() => document.querySelector('#topup-card'));
  const pay = await until(() => [...document.querySelectorAll('button')].find((b) => b.textContent?.startsWith('Pay')));
  act(() => pay.click());
  return (await until(() => document.querySelector('[role="alert"].form-error')))!.textContent ?? '';
}

describe('a failed top-up names its step', () => {
  it('the recharge order refused: "Failed to create recharge order", then the reason', async () => {
    refusal = { status: 400, json: { code: 400, msg: 'The amount is not accepted for this wallet.', data: null } };
    const text = await payAndRead();
    expect(text).toContain('Failed to create recharge order');
    expect(text).toContain('The amount is not accepted for this wallet.');
  });

  it('the payment declined: "Failed to initiate recharge payment", then the reason', async () => {
    refusal = { status: 422, json: { code: 422, msg: 'Your card was declined.', data: null } };
    const text = await payAndRead();
    expect(text).toContain('Failed to initiate recharge payment');
    expect(text).toContain('Your card was declined.');
  });
});
