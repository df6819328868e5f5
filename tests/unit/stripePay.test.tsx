// Component test (happy-dom): the confirm screen's Stripe path against an injected Stripe.js double (tests only)
// and a real local HTTP server playing the API: Elements card entry, 3-D Secure handled in place then resumed,
// FK paying an existing order, a Wi-Fi package and a box deposit (payType mifi) through 3-D Secure, the Express
// Checkout Element's "wallet unsupported" dialog, and the provider script's load retry (toast 'loading...' after
// each failure, then a retry dialog).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { act } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import type { Stripe } from '@stripe/stripe-js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import Confirm from '../../src/pay/Confirm.tsx';
import { StripeCardSetup } from '../../src/pay/StripeCardSetup.tsx';
import { setStripeLoader } from '../../src/pay/stripe.ts';
import { $dialogs, $toast, FeedbackHost } from '../../src/ui/feedback.tsx';
import { setApiBase } from '../../src/api/client.ts';
import { $route, navigate } from '../../src/stores/router.ts';
import { $token } from '../../src/stores/session.ts';
import { afterPaymentPath, readConfirmQuery } from '../../src/core/payTypes.ts';
import { $mifiOrder } from '../../src/stores/mifi.ts';
import { until } from './until.ts';

declare global {
  var IS_REACT_ACT_ENVIRONMENT: boolean;
}

let server: Server;
const calls: { path: string; body: URLSearchParams; key?: string }[] = [];
let methodType = 'STRIPE_CARD';

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
      // The Wi-Fi calls send JSON (its fields as a form here, to read them alike).
      const form = req.headers['content-type']?.includes('json')
        ? new URLSearchParams(
            Object.entries(JSON.parse(body) as Record<string, unknown>)
              .filter(([, v]) => v !== undefined)
              .map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]),
          )
        : new URLSearchParams(body);
      calls.push({ path, body: form, key: req.headers['idempotency-key'] as string });
      const ok = (data: unknown) => res.end(JSON.stringify({ code: 0, msg: 'success', data }));
      if (path.endsWith('/cdb/payment/method/list')) {
        return ok([
          {
            pId: `stripe:${methodType}`,
            pPaymentType: methodType,
            label: methodType === 'STRIPE_CARD' ? 'Card' : 'Apple Pay',
            currencySymbol: '€',
            pCurrencyType: 'EUR',
            publicKey: 'pk_test_double',
            configDetails: { accountCountry: 'LT', currency: 'eur' },
          },
        ]);
      }
      if (path.endsWith('/cdb/cabinet/useDepositToRent')) {
        // pm_3ds needs 3-D Secure: the first call answers action; the resumed call (paymentIntent) rents.
        if (form.get('stripeToken') === 'pm_3ds' && !form.get('paymentIntent'))
          return ok({ outTradeNo: '', action: { clientSecret: 'pi_1_secret_x', paymentIntent: 'pi_1' } });
        return ok({ outTradeNo: 'PO-1' });
      }
      if (path.endsWith('/cdb/payment/stripe/multicurrency/payOrder'))
        return ok({ outTradeNo: form.get('outTradeNo') });
      // Wi-Fi: pm_3ds answers action (the order made, unpaid); the call with paymentIntent pays it.
      const action =
        form.get('stripeToken') === 'pm_3ds' && !form.get('paymentIntent')
          ? { action: { clientSecret: 'pi_1_secret_x', paymentIntent: 'pi_1' } }
          : {};
      if (path.endsWith('/chargenow/mifi/rent')) {
        return ok({
          orderId: 'MF1-1',
          orderStatus: 'action' in action ? 33 : 0,
          type: 'mifi',
          out_trade_no: 'MF1',
          pay_type: 'mifi',
          buyOrderNo: 'MF1',
          shebei: '',
          number: 1,
          ...action,
        });
      }
      if (path.endsWith('/chargenow/mifi/cabinetDisposit'))
        return ok({ orderId: form.get('mifiOrderId'), deviceOrderStatus: 'action' in action ? 0 : 5, ...action });
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
  calls.length = 0;
  methodType = 'STRIPE_CARD';
  setStripeLoader(null);
});

type Handler = (e: Record<string, unknown>) => void;
/** A Stripe.js double: Elements that record mounts and events, createPaymentMethod, handleNextAction. */
function stripeDouble(opts: { pm?: string; wallets?: boolean } = {}) {
  const log: string[] = [];
  const handlers = new Map<string, Handler>();
  const element = (kind: string) => ({
    on(ev: string, h: Handler) {
      handlers.set(`${kind}:${ev}`, h);
      return this;
    },
    mount(el: HTMLElement) {
      log.push(`mount ${kind}`);
      el.setAttribute('data-mounted', kind);
      if (kind === 'expressCheckout')
        setTimeout(
          () =>
            handlers.get('expressCheckout:ready')?.({
              availablePaymentMethods: opts.wallets ? { applePay: true } : undefined,
            }),
          0,
        );
    },
    destroy() {
      log.push(`destroy ${kind}`);
    },
  });
  const stripe = {
    elements: () => ({ create: (kind: string) => element(kind), submit: async () => ({}) }),
    createPaymentMethod: async () => ({ paymentMethod: { id: opts.pm ?? 'pm_ok' } }),
    confirmCardSetup: async (clientSecret: string) => {
      log.push(`setup ${clientSecret}`);
      return { setupIntent: { id: 'seti_1', status: 'succeeded', payment_method: 'pm_saved' } };
    },
    handleNextAction: async ({ clientSecret }: { clientSecret: string }) => {
      log.push(`3ds ${clientSecret}`);
      return { paymentIntent: { id: 'pi_1', status: 'requires_capture' } };
    },
  };
  return { stripe: stripe as unknown as Stripe, log, handlers };
}

async function mount(url: string) {
  navigate(url, { replace: true });
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
}

describe('confirm screen, Stripe', () => {
  it('card entry with Elements; 3-D Secure handled in place, then the same payment is resumed into the rental', async () => {
    const d = stripeDouble({ pm: 'pm_3ds' });
    setStripeLoader(async (key) => (key === 'pk_test_double' ? d.stripe : null));
    await mount('/confirm?price=25.00&payType=YJ&qrcode=PWL-VNO-001&yaJinType=0');
    await until(() => document.querySelector('[data-mounted="card"]'));
    // The hold is explained before paying.
    expect(document.body.textContent).toContain('How the deposit hold works');
    expect(document.body.textContent).toContain('Only the rental fee for the time used is charged.');
    act(() => d.handlers.get('card:change')!({ complete: true }));
    act(() => document.querySelector<HTMLFormElement>('form.stripe-card')!.requestSubmit());
    await until(() => $route.get().path === '/borrowSuccess');
    expect(d.log).toContain('3ds pi_1_secret_x');
    const rents = calls.filter((c) => c.path.endsWith('useDepositToRent'));
    expect(rents.map((r) => [r.body.get('stripeToken'), r.body.get('paymentIntent')])).toEqual([
      ['pm_3ds', null],
      ['pm_3ds', 'pi_1'],
    ]);
    expect(rents.every((r) => r.key)).toBe(true);
    expect($route.get().query.get('tradeNo')).toBe('PO-1');
  });

  it('an incomplete card is not sent', async () => {
    const d = stripeDouble();
    setStripeLoader(async () => d.stripe);
    await mount('/confirm?price=25.00&payType=YJ&qrcode=PWL-VNO-001&yaJinType=0');
    await until(() => document.querySelector('[data-mounted="card"]'));
    act(() => document.querySelector<HTMLFormElement>('form.stripe-card')!.requestSubmit());
    await until(() => document.querySelector('.field-error')?.textContent === 'Please complete your card details.');
    expect(calls.filter((c) => c.path.endsWith('useDepositToRent'))).toHaveLength(0);
  });

  it('FK pays the existing order (never a rental) and goes to /borrowSuccess?payType=FK', async () => {
    const d = stripeDouble();
    setStripeLoader(async () => d.stripe);
    await mount('/confirm?price=15&payType=FK&outTradeNo=PO-9&orderId=PO-9&currency=EUR');
    await until(() => document.querySelector('[data-mounted="card"]'));
    act(() => d.handlers.get('card:change')!({ complete: true }));
    act(() => document.querySelector<HTMLFormElement>('form.stripe-card')!.requestSubmit());
    await until(() => $route.get().path === '/borrowSuccess');
    expect($route.get().query.get('payType')).toBe('FK');
    expect(calls.some((c) => c.path.endsWith('useDepositToRent'))).toBe(false);
    expect(calls.find((c) => c.path.endsWith('payOrder'))!.body.get('outTradeNo')).toBe('PO-9');
  });

  it('Apple/Google Pay through the Express Checkout Element; none on the device → the wallet-unsupported dialog', async () => {
    methodType = 'STRIPE_APPLE';
    const d = stripeDouble({ wallets: false });
    setStripeLoader(async () => d.stripe);
    await mount('/confirm?price=25.00&payType=YJ&qrcode=PWL-VNO-001&yaJinType=0');
    await until(() => document.querySelector('[data-mounted="expressCheckout"]'));
    await until(() => $dialogs.get().some((x) => x.title === 'Wallet not supported'));
  });

  it('the provider script is retried every 500 ms with a "loading..." toast, then a retry dialog', async () => {
    let tries = 0;
    const d = stripeDouble();
    setStripeLoader(async () => {
      tries++;
      if (tries <= 3) throw new Error('script blocked');
      return d.stripe;
    });
    const toasts: string[] = [];
    const off = $toast.subscribe((x) => x && toasts.push(x.text));
    await mount('/confirm?price=25.00&payType=YJ&qrcode=PWL-VNO-001&yaJinType=0');
    const dialog = await until(() => $dialogs.get().find((x) => x.title === 'Payment provider unavailable'));
    expect(tries).toBe(3);
    expect(toasts.filter((x) => x === 'loading...').length).toBeGreaterThanOrEqual(3);
    act(() => (dialog as unknown as { resolve: (v: boolean) => void }).resolve(true));
    await until(() => document.querySelector('[data-mounted="card"]'));
    expect(tries).toBe(4);
    off();
  });
});

describe('confirm screen, Wi-Fi (payType mifi) with 3-D Secure', () => {
  it('a package purchase: the order is made with the first call, the challenge is done in place, the payment resumed on that order', async () => {
    const d = stripeDouble({ pm: 'pm_3ds' });
    setStripeLoader(async () => d.stripe);
    $mifiOrder.set({
      mallType: 'GM',
      skuId: 'fr-3d',
      skuPriceId: 'fr-3d:EUR',
      packageName: 'France-Daily-3Days',
      country: 'FR',
      isPackage: true,
      Day: 3,
      price: 500,
      currency: 'EUR',
      timeZoneList: ['Europe/Paris'],
      depositAmount: 5000,
      selectDays: 3,
      startTime: null,
      withDevice: false,
      qrcode: '',
      renewalOf: '',
    });
    await mount('/confirm?payType=mifi&price=5&currency=EUR');
    await until(() => document.querySelector('[data-mounted="card"]'));
    act(() => d.handlers.get('card:change')!({ complete: true }));
    act(() => document.querySelector<HTMLFormElement>('form.stripe-card')!.requestSubmit());
    await until(() => $route.get().path === '/scanOrder');
    expect(d.log).toContain('3ds pi_1_secret_x');
    const rents = calls.filter((c) => c.path.endsWith('/chargenow/mifi/rent'));
    // The resumed call names the payment only: the server finds the order it was started for (no second order).
    expect(
      rents.map((r) => [r.body.get('stripeToken'), r.body.get('paymentIntent'), r.body.has('orderSubmit')]),
    ).toEqual([
      ['pm_3ds', null, true],
      ['pm_3ds', 'pi_1', false],
    ]);
    expect(new Set(rents.map((r) => r.key)).size).toBe(2);
    expect($route.get().query.get('orderId')).toBe('MF1-1');
    expect($mifiOrder.get()).toBeNull();
  });

  it('a box deposit: held on the card (authorised, not charged), 3-D Secure in place, then back to the pickup', async () => {
    const d = stripeDouble({ pm: 'pm_3ds' });
    setStripeLoader(async () => d.stripe);
    await mount('/confirm?payType=mifi&mifiOrderId=MF2-1&mifiDeposit=1&price=50&currency=EUR');
    await until(() => document.querySelector('[data-mounted="card"]'));
    expect(document.body.textContent).toContain(
      'Wi-Fi box deposit: the amount is held by your payment method, not charged',
    );
    expect(document.querySelector('form.stripe-card button')!.textContent).toBe('Authorize €50');
    act(() => d.handlers.get('card:change')!({ complete: true }));
    act(() => document.querySelector<HTMLFormElement>('form.stripe-card')!.requestSubmit());
    await until(() => $route.get().path === '/pickUp');
    const deposits = calls.filter((c) => c.path.endsWith('/chargenow/mifi/cabinetDisposit'));
    expect(deposits.map((r) => [r.body.get('mifiOrderId'), r.body.get('paymentIntent')])).toEqual([
      ['MF2-1', null],
      ['MF2-1', 'pi_1'],
    ]);
    expect(calls.some((c) => c.path.endsWith('/chargenow/mifi/rent'))).toBe(false);
    expect(Object.fromEntries($route.get().query)).toEqual({ orderId: 'MF2-1', deposit: 'paid' });
  });
});

describe('saving a card with Stripe (SetupIntent)', () => {
  it('starts the setup on our server, confirms it with Stripe.js, then records the payment method', async () => {
    const d = stripeDouble();
    setStripeLoader(async () => d.stripe);
    const confirmed: unknown[] = [];
    const host = document.createElement('div');
    document.body.appendChild(host);
    root = createRoot(host);
    const method = {
      pId: 'stripe:STRIPE_CARD',
      pPaymentType: 'STRIPE_CARD',
      label: 'Card',
      currencySymbol: '€',
      pCurrencyType: 'EUR',
      publicKey: 'pk_test_setup',
      configDetails: { accountCountry: 'LT', currency: 'eur' },
    };
    act(() =>
      root!.render(
        <StripeCardSetup
          method={method}
          submitLabel="Save card"
          start={async () => ({ paymentId: 'seti_1', clientSecret: 'seti_1_secret_z' })}
          record={async (x) => void confirmed.push(x)}
          onError={(m) => confirmed.push(`error ${m}`)}
        />,
      ),
    );
    await until(
      () => document.querySelector('[data-mounted="card"]') || document.querySelector('.stripe-element[data-mounted]'),
    );
    act(() => document.querySelector<HTMLFormElement>('form.stripe-card')!.requestSubmit());
    await until(() => confirmed.length > 0);
    expect(d.log).toContain('setup seti_1_secret_z');
    expect(confirmed).toEqual([{ paymentId: 'seti_1', clientSecret: 'seti_1_secret_z', paymentMethod: 'pm_saved' }]);
  });
});

describe('payTypes', () => {
  it('reads every /confirm parameter and navigates after payment by the pay-type rules', () => {
    const q = readConfirmQuery(
      new URLSearchParams(
        'price=3&payType=FK&outTradeNo=A&cabinetID=C&mifiOrderId=M&pmid=p1&formId=f&yaJinType=0&paymentWay=w&pType=t&orderId=O&qrcode=Q&payment_intent=pi_9',
      ),
    );
    expect(q).toMatchObject({
      price: '3',
      payType: 'FK',
      outTradeNo: 'A',
      cabinetID: 'C',
      mifiOrderId: 'M',
      paymentId: 'p1',
      formId: 'f',
      yaJinType: '0',
      paymentWay: 'w',
      pType: 't',
      orderId: 'O',
      qrcode: 'Q',
      paymentIntent: 'pi_9',
    });
    expect(readConfirmQuery(new URLSearchParams('payType=nonsense')).payType).toBe('YJ');
    expect(readConfirmQuery(new URLSearchParams('payType=mifi')).payType).toBe('mifi');
    expect(afterPaymentPath('CZ', 'X')).toBe('/mine');
    expect(afterPaymentPath('overbuy', 'PO1')).toBe('/invoiceOrderDtl?orderId=PO1');
    expect(afterPaymentPath('FK', 'PO1')).toBe('/borrowSuccess?tradeNo=PO1&payType=FK');
    expect(afterPaymentPath('YJ', 'PO1')).toBe('/borrowSuccess?tradeNo=PO1&payType=YJ');
    expect(afterPaymentPath('YJ', 'PO1', { score: true })).toBe('/result?tradeNo=PO1&payMode=YJ&payType=WeChat_MP');
    expect(afterPaymentPath('mifi', 'MF1-1')).toBe('/scanOrder?orderId=MF1-1');
    expect(afterPaymentPath('mifi', 'MF1-1', { mifiDeposit: true })).toBe('/pickUp?orderId=MF1-1&deposit=paid');
    expect(readConfirmQuery(new URLSearchParams('payType=mifi&mifiOrderId=M&mifiDeposit=1')).mifiDeposit).toBe(true);
    expect(readConfirmQuery(new URLSearchParams('payType=mifi&mifiOrderId=M')).mifiDeposit).toBe(false);
  });
});
