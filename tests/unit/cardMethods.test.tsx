// Component test (happy-dom): the confirm screen's card forms beyond the plain card, against a real local HTTP
// server playing the API and the sandbox card provider —
//   Flutterwave's card form (fields, checks inline in the user's language): live, the card fields go to
//   the payer endpoint; in test mode the sandbox tokenises the card and no card field leaves for our server;
//   debitcard: the card form says only debit cards pass, test mode's hint marks which test cards do, and the
//   server's debit_only decline is what the person reads.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { act } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import Confirm from '../../src/pay/Confirm.tsx';
import { usableOn } from '../../src/pay/PayMethod.tsx';
import { stripeKind } from '../../src/pay/stripe.ts';
import { validateDirectCard } from '../../src/core/card.ts';
import { $dialogs, FeedbackHost } from '../../src/ui/feedback.tsx';
import { setApiBase } from '../../src/api/client.ts';
import { loadLocale } from '../../src/i18n/index.ts';
import { $lang } from '../../src/stores/locale.ts';
import { navigate } from '../../src/stores/router.ts';
import { $token } from '../../src/stores/session.ts';
import { until } from './until.ts';

declare global {
  var IS_REACT_ACT_ENVIRONMENT: boolean;
}

const base = { currencySymbol: '₦', pCurrencyType: 'NGN', configDetails: { accountCountry: 'NG', currency: 'ngn' } };
let methods: Record<string, unknown>[] = [];
const calls: { path: string; body: URLSearchParams }[] = [];
let server: Server;

beforeAll(async () => {
  globalThis.IS_REACT_ACT_ENVIRONMENT = true;
  server = createServer((req, res) => {
    res.setHeader('access-control-allow-origin', '*');
    res.setHeader('access-control-allow-headers', '*');
    res.setHeader('access-control-allow-methods', 'GET, POST');
    if (req.method === 'OPTIONS') return res.end();
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      res.setHeader('content-type', 'application/json');
      const path = new URL(req.url!, 'http://x').pathname;
      const body =
        path === '/sandbox-pay/v1/tokens'
          ? new URLSearchParams(JSON.parse(raw) as Record<string, string>)
          : new URLSearchParams(raw);
      calls.push({ path, body });
      const reply = (data: unknown, code = 0, status = 200) => {
        res.statusCode = status;
        res.end(JSON.stringify({ code, msg: code ? String(data) : 'success', data: code ? null : data }));
      };
      if (path.endsWith('/cdb/payment/method/list')) return reply(methods);
      // The card form offers the person's saved cards first (SavedCardPay): none here.
      if (path.endsWith('/cdb/user/card')) return reply([]);
      if (path === '/sandbox-pay/v1/tokens')
        return res.end(JSON.stringify({ id: `tok_${body.get('number')!.slice(-4)}`, card: {} }));
      if (path.endsWith('/cdb/payment/method/payer')) return reply({ token: 'mt_1' });
      if (path.endsWith('/cdb/payment/multicurrency/recharge'))
        return reply({ outTradeNo: 'CZ1', pBalance: 15, pCurrencyType: 'NGN' });
      if (path.endsWith('/cdb/cabinet/useDepositToRent'))
        return reply('Only debit cards are accepted for this payment. Please use a debit card.', 422, 422);
      reply('no', 404, 404);
    });
  });
  server.keepAliveTimeout = 0; // idle connections stay open until close(): no reset on a loaded machine
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  setApiBase(`http://127.0.0.1:${(server.address() as AddressInfo).port}/cdb-app-api/v1/app/`);
  $token.set('tok-test');
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));
beforeEach(() => {
  calls.length = 0;
});

let root: Root | null = null;
afterEach(() => {
  act(() => root?.unmount());
  // A dialog left open is answered (cancelled), as leaving the screen does: the flow awaiting it ends now.
  const left = $dialogs.get();
  $dialogs.set([]);
  for (const d of left) d.resolve(false);
  root = null;
  document.body.innerHTML = '';
});

function byLabel(text: string): HTMLInputElement {
  const label = [...document.querySelectorAll('label')].find((l) => l.textContent === text);
  if (!label) throw new Error(`no label ${text}`);
  return document.getElementById(label.htmlFor) as HTMLInputElement;
}

function type(input: HTMLInputElement, value: string) {
  const setter = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value')!.set!;
  act(() => {
    setter.call(input, value);
    input.dispatchEvent(new Event('input', { bubbles: true }));
  });
}

async function mount(query: string, form: string) {
  navigate(`/confirm?${query}`, { replace: true });
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
  return until(() => document.querySelector<HTMLFormElement>(form));
}
/**
 * The top-up went through: its success message is on screen. Waiting for what the person sees, not for the server
 * to have heard the call, so that no answer still in flight opens its dialog during the next test (a stale dialog
 * on top would keep that test's own dialog from opening).
 */
const paid = () =>
  until(() => [...document.querySelectorAll('dialog[open]')].find((d) => d.textContent?.includes('Top-up successful')));
const errors = () => [...document.querySelectorAll('.field-error')].map((e) => e.textContent).filter(Boolean);
const flutterwave = (sandbox: boolean) => ({
  pId: 'flutterwave:Flutterwave',
  pPaymentType: 'Flutterwave',
  label: 'Card',
  kind: 'card',
  hold: true,
  directCard: true,
  publicKey: sandbox ? 'pk_sandbox_t' : '',
  ...base,
  ...(sandbox ? { sandbox: true, testValues: [] } : {}),
});
const topUp = 'price=15&payType=CZ&currency=NGN&paymentId=flutterwave:Flutterwave';
function fillValid() {
  type(byLabel('Card number'), '5061460166976054667');
  type(byLabel('Expiry month (MM)'), '10');
  type(byLabel('Expiry year (YY)'), '29');
  type(byLabel('CVV'), '564');
  type(byLabel('E-mail'), 'ada@powerly.example');
}

describe("Flutterwave's card form", () => {
  it('has the card form fields, each labelled; checks them inline; live, the card fields go to the payer endpoint', async () => {
    methods = [flutterwave(false)];
    const form = await mount(topUp, 'form.direct-card');
    for (const l of [
      'Card number',
      'Expiry month (MM)',
      'Expiry year (YY)',
      'CVV',
      'E-mail',
      'Phone number (optional)',
    ])
      expect(byLabel(l)).toBeTruthy();
    expect(document.querySelector('.area-button')!.getAttribute('aria-label')).toMatch(/^Area code \+\d+, change$/);
    act(() => form.requestSubmit());
    expect(errors()).toEqual([
      'Enter the card number',
      'Enter the expiry month',
      'Enter the expiry year',
      'Enter the CVV',
      'Enter your e-mail',
    ]);
    type(byLabel('Card number'), '5061 4601 6697 6054 668');
    type(byLabel('Expiry month (MM)'), '13');
    type(byLabel('Expiry year (YY)'), '2x');
    type(byLabel('CVV'), '56');
    type(byLabel('E-mail'), 'ada@');
    act(() => form.requestSubmit());
    expect(errors()).toEqual([
      'This card number is not valid',
      'The expiry month has 2 digits, 01 to 12',
      'The expiry year has 2 digits',
      'The CVV has 3 digits',
      'Please enter a valid e-mail address',
    ]);
    expect(byLabel('Expiry month (MM)').getAttribute('aria-invalid')).toBe('true');
    // Digits only, at most 19 in the number, 2 in the month and year, 3 in the CVV.
    type(byLabel('CVV'), '5645');
    expect(byLabel('CVV').value).toBe('564');
    expect(calls.filter((c) => !c.path.endsWith('/list'))).toEqual([]);
    fillValid();
    type(byLabel('Phone number (optional)'), '803 000 0000');
    act(() => form.requestSubmit());
    await paid();
    const payer = calls.find((c) => c.path.endsWith('/payer'))!.body;
    expect(Object.fromEntries(payer)).toMatchObject({
      paymentId: 'flutterwave:Flutterwave',
      cardNumber: '5061460166976054667',
      expiryMonth: '10',
      expiryYear: '29',
      cvv: '564',
      email: 'ada@powerly.example',
      phoneNumber: '803 000 0000',
    });
    expect(payer.get('areaCode')).toMatch(/^\d+$/);
    expect(payer.has('cardToken')).toBe(false);
    expect(calls.some((c) => c.path === '/sandbox-pay/v1/tokens')).toBe(false);
    expect(calls.find((c) => c.path.endsWith('/recharge'))!.body.get('stripeToken')).toBe('mt_1');
    // The card fields went to the payer endpoint only, never to the paying call.
    expect(calls.find((c) => c.path.endsWith('/recharge'))!.body.has('cardNumber')).toBe(false);
  });

  it("messages follow the user's language", async () => {
    methods = [flutterwave(false)];
    await act(async () => {
      $lang.set('lt-LT');
      await loadLocale('lt-LT');
    });
    try {
      const form = await mount(topUp, 'form.direct-card');
      // The form's strings load beside the screen: the person submits what they read, in Lithuanian.
      await until(() => [...document.querySelectorAll('label')].some((l) => l.textContent === 'Galiojimo mėnuo (MM)'));
      act(() => form.requestSubmit());
      expect(errors()).toContain('Įveskite galiojimo mėnesį');
      expect(errors()).toContain('Įveskite CVV');
    } finally {
      // Back to en-US whatever happened: the next tests read English.
      await act(async () => {
        $lang.set('en-US');
        await loadLocale('en-US');
      });
    }
  });

  it('in test mode: the same form, the sandbox card provider tokenises; no card field is sent to our server', async () => {
    methods = [flutterwave(true)];
    const form = await mount(topUp, 'form.direct-card');
    expect(document.body.textContent).toContain('4242 4242 4242 4242');
    fillValid();
    act(() => form.requestSubmit());
    await paid();
    expect(Object.fromEntries(calls.find((c) => c.path === '/sandbox-pay/v1/tokens')!.body)).toMatchObject({
      number: '5061460166976054667',
      expMonth: '10',
      expYear: '2029',
      cvc: '564',
    });
    const payer = calls.find((c) => c.path.endsWith('/payer'))!.body;
    expect(payer.get('cardToken')).toBe('tok_4667');
    expect(payer.get('email')).toBe('ada@powerly.example');
    for (const f of ['cardNumber', 'expiryMonth', 'expiryYear', 'cvv']) expect(payer.has(f)).toBe(false);
  });

  it('the card rule: at most 19 digits, 2-digit month and year, 3-digit CVV, each required', () => {
    const now = new Date('2026-11-21T10:00:00Z');
    const ok = { cardNumber: '5061460166976054667', expiryMonth: '10', expiryYear: '29', cvv: '564' };
    expect(validateDirectCard(ok, now)).toEqual({});
    expect(validateDirectCard({}, now)).toEqual({
      cardNumber: 'required',
      expiryMonth: 'required',
      expiryYear: 'required',
      cvv: 'required',
    });
    expect(validateDirectCard({ ...ok, cardNumber: '50614601669760546670' }, now).cardNumber).toBe('length');
    expect(validateDirectCard({ ...ok, expiryMonth: '1' }, now).expiryMonth).toBe('month');
    expect(validateDirectCard({ ...ok, expiryMonth: '00' }, now).expiryMonth).toBe('month');
    expect(validateDirectCard({ ...ok, expiryYear: '2029' }, now).expiryYear).toBe('year');
    expect(validateDirectCard({ ...ok, expiryMonth: '10', expiryYear: '26' }, now).expiryYear).toBe('expiryPast');
    expect(validateDirectCard({ ...ok, expiryMonth: '11', expiryYear: '26' }, now)).toEqual({});
    expect(validateDirectCard({ ...ok, cvv: '1234' }, now).cvv).toBe('cvv');
  });
});

describe('debitcard', () => {
  const debit = {
    pId: 'sandbox:debitcard',
    pPaymentType: 'debitcard',
    label: 'Debit card',
    publicKey: 'pk_sandbox_t',
    ...base,
    currencySymbol: '€',
    pCurrencyType: 'EUR',
  };

  it('is a card type: offered on every device, taken by the card form', () => {
    expect(stripeKind('debitcard')).toBe('card');
    expect(usableOn('ios', debit)).toBe(true);
    expect(usableOn('android', debit)).toBe(true);
  });

  it("says only debit cards are accepted, marks test mode's cards, and shows the server's debit_only decline", async () => {
    methods = [
      { pId: 'card-sandbox', pPaymentType: 'STRIPE_CARD', label: 'Card', publicKey: 'pk_sandbox_t', ...base },
      debit,
    ];
    const form = await mount(
      'price=25.00&payType=YJ&qrcode=PWL-VNO-001&yaJinType=0&paymentId=sandbox:debitcard',
      'form.card-form',
    );
    expect(document.querySelector('h2')!.textContent).toBe('Pay by debit card');
    expect(document.body.textContent).toContain(
      'Only debit cards are accepted. Credit and prepaid cards are declined.',
    );
    const hint = [...document.querySelectorAll('.sandbox-hint li')].map((li) => li.textContent);
    expect(hint).toContain('4000 0566 5566 5556 — debit card, succeeds');
    expect(hint).toContain('5200 8282 8282 8210 — debit card, succeeds');
    expect(hint).toContain('4242 4242 4242 4242 — declined here: not a debit card');
    expect(hint).toContain('5105 1051 0510 5100 — declined here: not a debit card');
    type(byLabel('Card number'), '4242 4242 4242 4242');
    type(byLabel('Expiry date (MM/YY)'), '12/39');
    type(byLabel('CVC'), '123');
    act(() => form.requestSubmit());
    const dialog = await until(() => document.querySelector<HTMLDialogElement>('dialog[open][role="alertdialog"]'));
    expect(dialog.textContent).toContain('Only debit cards are accepted for this payment. Please use a debit card.');
    expect(calls.find((c) => c.path.endsWith('/useDepositToRent'))!.body.get('paymentId')).toBe('sandbox:debitcard');
  });

  it('the plain card form keeps its own title and test cards (credit succeeds there)', async () => {
    methods = [
      { pId: 'card-sandbox', pPaymentType: 'STRIPE_CARD', label: 'Card', publicKey: 'pk_sandbox_t', ...base },
      debit,
    ];
    await mount('price=25.00&payType=YJ&qrcode=PWL-VNO-001&yaJinType=0', 'form.card-form');
    // The screen asked for the saved cards (none): no request of this file is left to meet a closed server.
    await until(() => calls.some((c) => c.path.endsWith('/cdb/user/card')));
    expect(document.querySelector('h2')!.textContent).toBe('Pay by card');
    expect([...document.querySelectorAll('.sandbox-hint li')].map((li) => li.textContent)).toContain(
      '4242 4242 4242 4242 — succeeds',
    );
    expect(document.body.textContent).not.toContain('Only debit cards are accepted');
  });
});
