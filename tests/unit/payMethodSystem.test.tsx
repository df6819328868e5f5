// Component test (happy-dom): /payMethod on a device whose system none of the payment's methods works on (Apple Pay
// only, on Android) says "System not supported" instead of the plain "no payment method"; with no method at all it
// says that there is none. Against a local HTTP server playing the method list.
import { act } from 'react';
import { afterEach, describe, expect, it } from 'vitest';
import PayMethod from '../../src/pay/PayMethod.tsx';
import { loadLocale } from '../../src/i18n/index.ts';
import { navigate } from '../../src/stores/router.ts';
import { localApi, renderer } from './localApi.ts';
import { until } from './until.ts';

let methods: unknown[] = [];
localApi((path) =>
  path === 'cdb/payment/method/list' ? { json: { code: 0, msg: 'success', data: methods } } : undefined,
);
const render = renderer();
const ua = navigator.userAgent;
afterEach(() => Object.defineProperty(navigator, 'userAgent', { value: ua, configurable: true }));

async function alertText(): Promise<string> {
  Object.defineProperty(navigator, 'userAgent', {
    value: 'Mozilla/5.0 (Linux; Android 14; Pixel 8) Mobile',
    configurable: true,
  });
  await act(async () => {
    await loadLocale('en-US');
    navigate('/payMethod?payType=CZ&currency=EUR', { replace: true });
  });
  render(<PayMethod />);
  return (await until(() => document.querySelector('[role="alert"]')?.textContent)) ?? '';
}

describe('/payMethod and the device system', () => {
  it('only Apple Pay, on Android: "System not supported"', async () => {
    methods = [
      {
        pId: 'apple',
        pPaymentType: 'APPLE_PAY',
        label: 'Apple Pay',
        currencySymbol: '€',
        pCurrencyType: 'EUR',
        publicKey: 'pk',
        configDetails: { accountCountry: 'PT', currency: 'eur' },
      },
    ];
    expect(await alertText()).toContain('System not supported');
  });

  it('no method at all: not a system matter', async () => {
    methods = [];
    expect(await alertText()).not.toContain('System not supported');
  });
});
