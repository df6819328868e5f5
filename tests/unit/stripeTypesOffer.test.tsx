// Component test (happy-dom): the payment-method picker offers Stripe's types beyond the card as the server lists
// them (against a real local HTTP server playing the API): APPLE_PAY / GOOGLE_PAY, iDEAL, WeChat Pay. In test mode
// the wallets are paid on the sandbox's test page, and are offered only where the browser has the Payment Request
// API (as Stripe offers its wallets); live, the Express Checkout Element decides, and Apple Pay is never offered on
// Android nor Google Pay on iOS.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { act } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import PayMethod, { distinctLabels, usableOn } from '../../src/pay/PayMethod.tsx';
import { setApiBase } from '../../src/api/client.ts';
import { navigate } from '../../src/stores/router.ts';
import { $token } from '../../src/stores/session.ts';
import { until } from './until.ts';

declare global {
  var IS_REACT_ACT_ENVIRONMENT: boolean;
}

const base = {
  currencySymbol: '€',
  pCurrencyType: 'EUR',
  publicKey: 'pk_sandbox_t',
  configDetails: { accountCountry: 'LT', currency: 'eur' },
};
const testMode = [
  { pId: 'card-sandbox', pPaymentType: 'STRIPE_CARD', label: 'Card', ...base },
  {
    pId: 'stripe-wallets:APPLE_PAY',
    pPaymentType: 'APPLE_PAY',
    label: 'Apple Pay',
    kind: 'redirect',
    hold: true,
    sandbox: true,
    ...base,
  },
  {
    pId: 'stripe-wallets:GOOGLE_PAY',
    pPaymentType: 'GOOGLE_PAY',
    label: 'Google Pay',
    kind: 'redirect',
    hold: true,
    sandbox: true,
    ...base,
  },
  {
    pId: 'stripe-redirects:STRIPE_IDEAL',
    pPaymentType: 'STRIPE_IDEAL',
    label: 'iDEAL',
    kind: 'redirect',
    hold: false,
    sandbox: true,
    ...base,
  },
  {
    pId: 'stripe-redirects:STRIPE_WECHAT',
    pPaymentType: 'STRIPE_WECHAT',
    label: 'WeChat Pay',
    kind: 'redirect',
    hold: false,
    sandbox: true,
    ...base,
  },
];
let server: Server;

beforeAll(async () => {
  globalThis.IS_REACT_ACT_ENVIRONMENT = true;
  server = createServer((req, res) => {
    res.setHeader('access-control-allow-origin', '*');
    res.setHeader('access-control-allow-headers', '*');
    if (req.method === 'OPTIONS') return res.end();
    res.setHeader('content-type', 'application/json');
    const path = new URL(req.url!, 'http://x').pathname;
    if (path.endsWith('/cdb/payment/method/list'))
      return res.end(JSON.stringify({ code: 0, msg: 'success', data: testMode }));
    res.statusCode = 404;
    res.end(JSON.stringify({ code: 404, msg: 'no', data: null }));
  });
  server.keepAliveTimeout = 0;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  setApiBase(`http://127.0.0.1:${(server.address() as AddressInfo).port}/cdb-app-api/v1/app/`);
  $token.set('tok-test');
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

let root: Root | null = null;
const hadPaymentRequest = 'PaymentRequest' in window;
afterEach(() => {
  act(() => root?.unmount());
  root = null;
  document.body.innerHTML = '';
  if (!hadPaymentRequest) delete (window as { PaymentRequest?: unknown }).PaymentRequest;
});

async function offered(): Promise<string[]> {
  navigate('/payMethod?payType=CZ&currency=EUR', { replace: true });
  const host = document.createElement('div');
  document.body.appendChild(host);
  root = createRoot(host);
  act(() => root!.render(<PayMethod />));
  await until(() => document.querySelector('input[type=radio]'));
  return [...document.querySelectorAll('label.radio-row')].map((l) => l.textContent ?? '');
}

describe('Stripe types beyond the card', () => {
  it('offers the test-mode wallets, iDEAL and WeChat Pay where the browser can pay with a wallet', async () => {
    (window as { PaymentRequest?: unknown }).PaymentRequest = function PaymentRequest() {};
    expect(await offered()).toEqual(['Card', 'Apple Pay', 'Google Pay', 'iDEAL', 'WeChat Pay']);
  });

  it('hides the test-mode wallets where the browser has no Payment Request API, and keeps the others', async () => {
    delete (window as { PaymentRequest?: unknown }).PaymentRequest;
    expect(await offered()).toEqual(['Card', 'iDEAL', 'WeChat Pay']);
  });

  it('offers the live wallets by device only (the Express Checkout Element checks the rest), under both names', () => {
    for (const type of ['APPLE_PAY', 'STRIPE_APPLE']) {
      expect(usableOn('ios', { pPaymentType: type }, false)).toBe(true);
      expect(usableOn('android', { pPaymentType: type }, true)).toBe(false);
    }
    for (const type of ['GOOGLE_PAY', 'STRIPE_GOOGLE']) {
      expect(usableOn('android', { pPaymentType: type }, false)).toBe(true);
      expect(usableOn('ios', { pPaymentType: type }, true)).toBe(false);
    }
    expect(usableOn('ios', { pPaymentType: 'APPLE_PAY', kind: 'redirect' }, true)).toBe(true);
    expect(usableOn('android', { pPaymentType: 'APPLE_PAY', kind: 'redirect' }, true)).toBe(false);
  });

  it('tells WeChat Pay through Stripe from WeChat Pay in the WeChat browser by the provider', () => {
    const both = [
      { pId: 'wechatpay:WeChat_MP', label: 'WeChat Pay' },
      { pId: 'stripe-redirects:STRIPE_WECHAT', label: 'WeChat Pay' },
      { pId: 'stripe.go9:APPLE_PAY', label: 'Apple Pay' },
    ];
    expect(distinctLabels(both).map((m) => m.label)).toEqual([
      'WeChat Pay · Wechatpay',
      'WeChat Pay · Stripe',
      'Apple Pay',
    ]);
  });
});
