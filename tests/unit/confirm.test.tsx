// Component test (happy-dom): the confirm screen's sandbox card form, its inline checks in the user's
// language, and the pay-error dialog — against a real local HTTP server playing the API and the sandbox.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { act } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import Confirm from '../../src/pay/Confirm.tsx';
import { $dialogs, FeedbackHost } from '../../src/ui/feedback.tsx';
import { setApiBase } from '../../src/api/client.ts';
import { loadLocale } from '../../src/i18n/index.ts';
import { $lang } from '../../src/stores/locale.ts';
import { $route, navigate } from '../../src/stores/router.ts';
import { $token } from '../../src/stores/session.ts';
import { until } from './until.ts';

declare global {
  var IS_REACT_ACT_ENVIRONMENT: boolean;
}

let server: Server;
const rents: { body: string; key?: string }[] = [];
const mifiPays: Record<string, unknown>[] = [];

beforeAll(async () => {
  globalThis.IS_REACT_ACT_ENVIRONMENT = true;
  server = createServer((req, res) => {
    res.setHeader('access-control-allow-origin', '*');
    res.setHeader('access-control-allow-headers', '*');
    res.setHeader('access-control-allow-methods', 'GET, POST');
    if (req.method === 'OPTIONS') return res.end();
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      res.setHeader('content-type', 'application/json');
      const path = new URL(req.url!, 'http://x').pathname;
      if (path.endsWith('/cdb/payment/method/list')) {
        return res.end(
          JSON.stringify({
            code: 0,
            msg: 'success',
            data: [
              {
                pId: '1',
                pPaymentType: 'STRIPE_CARD',
                label: 'Card',
                currencySymbol: '€',
                pCurrencyType: 'EUR',
                publicKey: 'pk_sandbox_t',
                configDetails: { accountCountry: 'LT', currency: 'EUR' },
              },
            ],
          }),
        );
      }
      if (path === '/sandbox-pay/v1/tokens')
        return res.end(JSON.stringify({ id: 'tok_' + JSON.parse(body).number.slice(-4), card: {} }));
      if (path.endsWith('/cdb/cabinet/useDepositToRent')) {
        rents.push({ body, key: req.headers['idempotency-key'] as string });
        // stripeToken tok_0077 on its first try: the connection drops (outcome unknown to the client).
        if (body.includes('tok_0077') && rents.filter((r) => r.body.includes('tok_0077')).length === 1)
          return req.socket.destroy();
        res.statusCode = 422;
        return res.end(JSON.stringify({ code: 422, msg: 'Your card was declined.', data: null }));
      }
      // A top-up: card 0002 declined (the payment), any other refused before any payment (the order).
      if (path.endsWith('/cdb/payment/multicurrency/recharge')) {
        res.statusCode = body.includes('tok_0002') ? 422 : 409;
        return res.end(
          JSON.stringify(
            body.includes('tok_0002')
              ? { code: 422, msg: 'Your card was declined.', data: null }
              : { code: 409, msg: 'Top-ups are closed.', data: null },
          ),
        );
      }
      // Wi-Fi: a €50 wallet, the coupon HALF (half off), and the package's paying call.
      if (path.endsWith('/cdb/user/wallet/new')) {
        return res.end(
          JSON.stringify({
            code: 0,
            msg: 'success',
            data: [
              { pBalance: 50, pCurrencySymbol: '€', pCurrencyType: 'EUR', pDepositAmount: 0, pDailiId: 'powerly' },
            ],
          }),
        );
      }
      if (path.endsWith('/chargenow/mifi/coupon')) {
        const c = JSON.parse(body) as { couponNo: string; amount: number };
        if (c.couponNo !== 'HALF') {
          res.statusCode = 422;
          return res.end(JSON.stringify({ code: 422, msg: 'This coupon does not exist.', data: null }));
        }
        return res.end(JSON.stringify({ code: 0, msg: 'success', data: { discount: Math.floor(c.amount / 2) } }));
      }
      if (path.endsWith('/chargenow/mifi/confirm')) {
        mifiPays.push(JSON.parse(body) as Record<string, unknown>);
        return res.end(JSON.stringify({ code: 0, msg: 'success', data: { orderId: 'MF1-1' } }));
      }
      res.statusCode = 404;
      res.end(JSON.stringify({ code: 404, msg: 'no', data: null }));
    });
  });
  server.keepAliveTimeout = 0; // idle connections stay open until close(): no reset on a loaded machine
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  setApiBase(`http://127.0.0.1:${(server.address() as AddressInfo).port}/cdb-app-api/v1/app/`);
  $token.set('tok-test');
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

let root: Root | null = null;
afterEach(() => {
  act(() => root?.unmount());
  $dialogs.set([]);
  root = null;
  document.body.innerHTML = '';
});

function byLabel(text: string): HTMLInputElement {
  const label = [...document.querySelectorAll('label')].find((l) => l.textContent === text);
  return document.getElementById(label!.htmlFor) as HTMLInputElement;
}

function type(input: HTMLInputElement, value: string) {
  const setter = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value')!.set!;
  act(() => {
    setter.call(input, value);
    input.dispatchEvent(new Event('input', { bubbles: true }));
  });
}

async function mount(path = '/confirm?price=25.00&payType=YJ&qrcode=PWL-VNO-001&cabinetID=PWL-VNO-001&yaJinType=0') {
  navigate(path, { replace: true });
  expect($route.get().path).toBe('/confirm');
  const host = document.createElement('div');
  document.body.appendChild(host);
  root = createRoot(host);
  act(() =>
    root!.render(
      <>
        <Confirm />
        <FeedbackHost />
      </>,
    ),
  );
  return until(() => document.querySelector('form.card-form'));
}

const submit = () => act(() => document.querySelector<HTMLFormElement>('form.card-form')!.requestSubmit());
const errors = () => [...document.querySelectorAll('.field-error')].map((e) => e.textContent).filter(Boolean);

describe('confirm screen, sandbox card form', () => {
  it('labels every field, shows the test cards, checks Luhn, expiry and CVC inline', async () => {
    await mount();
    expect(document.body.textContent).toContain('4242 4242 4242 4242');
    expect(byLabel('Card number')).toBeTruthy();
    expect(byLabel('Expiry date (MM/YY)')).toBeTruthy();
    expect(byLabel('CVC')).toBeTruthy();
    submit();
    expect(errors()).toEqual(['Enter the card number', 'Enter the expiry date', 'Enter the CVC']);
    type(byLabel('Card number'), '4242424242424241');
    type(byLabel('Expiry date (MM/YY)'), '0120');
    type(byLabel('CVC'), '12');
    submit();
    expect(byLabel('Card number').value).toBe('4242 4242 4242 4241');
    expect(errors()).toEqual(['This card number is not valid', 'This card has expired', 'The CVC has 3 or 4 digits']);
    expect(byLabel('Card number').getAttribute('aria-invalid')).toBe('true');
    expect(rents).toHaveLength(0);
  });

  it("messages follow the user's language", async () => {
    await act(async () => {
      $lang.set('lt-LT');
      await loadLocale('lt-LT');
    });
    await mount();
    submit();
    expect(errors()).toContain('Įveskite kortelės numerį');
    await act(async () => {
      $lang.set('en-US');
      await loadLocale('en-US');
    });
  });

  it('a declined card opens the error dialog with the reason; each new attempt gets its own key', async () => {
    await mount();
    type(byLabel('Card number'), '4000 0000 0000 0002');
    type(byLabel('Expiry date (MM/YY)'), '12/39');
    type(byLabel('CVC'), '123');
    submit();
    const dialog = await until(() => document.querySelector<HTMLDialogElement>('dialog[open][role="alertdialog"]'));
    expect(dialog.textContent).toContain('Payment failed');
    expect(dialog.textContent).toContain('Your card was declined.');
    expect(rents[0]!.body).toBe('qrcode=PWL-VNO-001&stripeToken=tok_0002&paymentId=1');
    expect(rents[0]!.key).toMatch(/^[0-9a-f-]{36}$/);
    const retry = [...dialog.querySelectorAll('button')].find((b) => b.textContent === 'Retry')!;
    act(() => retry.click());
    await until(() => rents.length === 2 && document.querySelector('dialog[open][role="alertdialog"]'));
    expect(rents[1]!.key).not.toBe(rents[0]!.key);
  });

  it('after an unknown outcome (connection lost) Retry repeats the same action: same key, same token', async () => {
    rents.length = 0;
    await mount();
    type(byLabel('Card number'), '4000 0000 0000 0077');
    type(byLabel('Expiry date (MM/YY)'), '12/39');
    type(byLabel('CVC'), '123');
    submit();
    const dialog = await until(() => document.querySelector<HTMLDialogElement>('dialog[open][role="alertdialog"]'));
    expect(dialog.textContent).toContain('Server error, please retry');
    act(() => [...dialog.querySelectorAll('button')].find((b) => b.textContent === 'Retry')!.click());
    await until(() => rents.length === 2 && document.querySelector('dialog[open][role="alertdialog"]'));
    expect(rents[1]!.key).toBe(rents[0]!.key);
    expect(rents[1]!.body).toBe(rents[0]!.body);
  });

  it('a top-up names its failed step: the recharge order refused, or the recharge payment', async () => {
    const fails = async (card: string) => {
      $dialogs.set([]);
      await mount('/confirm?price=10&payType=CZ&currency=EUR&paymentId=1');
      type(byLabel('Card number'), card);
      type(byLabel('Expiry date (MM/YY)'), '12/39');
      type(byLabel('CVC'), '123');
      submit();
      return (await until(() => document.querySelector<HTMLDialogElement>('dialog[open][role="alertdialog"]')))
        .textContent;
    };
    expect(await fails('4242 4242 4242 4242')).toContain('Failed to create recharge order');
    act(() => root?.unmount());
    expect(await fails('4000 0000 0000 0002')).toContain('Failed to initiate recharge payment');
  });
});

describe('confirm screen, a Wi-Fi package', () => {
  const click = (el: HTMLElement) => act(() => el.click());
  const button = (text: string) => [...document.querySelectorAll('button')].find((x) => x.textContent === text)!;
  const said = () => [...document.querySelectorAll('[role="status"]')].map((x) => x.textContent).join(' | ');

  it('the wallet pays first and the card only the rest; a coupon it then covers is paid from the wallet alone', async () => {
    mifiPays.length = 0;
    await mount('/confirm?payType=mifi&mifiOrderId=MF1-1&price=51.00&currency=EUR&deposit=0');
    const wallet = await until(() =>
      [...document.querySelectorAll('label')].find((l) => l.textContent?.includes('Use my wallet balance (€50)')),
    );
    expect(wallet.querySelector('input')!.checked).toBe(true);
    await until(() => said().includes('€50 from your wallet, €1 with the payment method') || null);
    expect(document.querySelector('form.card-form button[type="submit"]')!.textContent).toContain('Pay €1');
    type(byLabel('Card number'), '4242 4242 4242 4242');
    type(byLabel('Expiry date (MM/YY)'), '12/39');
    type(byLabel('CVC'), '123');
    submit();
    await until(() => mifiPays[0] ?? null);
    expect(mifiPays[0]).toMatchObject({ mifiOrderId: 'MF1-1', paymentId: '1', useWallet: 1, stripeToken: 'tok_4242' });
    expect(mifiPays[0]).not.toHaveProperty('couponNo');
    act(() => root?.unmount());

    await mount('/confirm?payType=mifi&mifiOrderId=MF1-1&price=51.00&currency=EUR&deposit=0');
    // The coupon field comes with the package's payment options, which may render after the card form.
    await until(() => [...document.querySelectorAll('label')].find((l) => l.textContent === 'Coupon code'));
    type(byLabel('Coupon code'), 'NOPE');
    click(button('Apply'));
    expect((await until(() => document.querySelector('.mifi-pay-options .field-error'))).textContent).toBe(
      'This coupon does not exist.',
    );
    expect(byLabel('Coupon code').getAttribute('aria-invalid')).toBe('true');
    type(byLabel('Coupon code'), 'HALF');
    click(button('Apply'));
    await until(() => said().includes('Coupon applied: €25.50 off') || null);
    expect(said()).toContain('Your wallet pays all of it (€25.50)');
    expect(document.querySelector('form.card-form')).toBeNull();
    click(button('Pay from my wallet'));
    await until(() => mifiPays[1] ?? null);
    expect(mifiPays[1]).toMatchObject({ mifiOrderId: 'MF1-1', paymentId: 'wallet', couponNo: 'HALF', useWallet: 1 });
    expect(mifiPays[1]).not.toHaveProperty('stripeToken');
  });
});
