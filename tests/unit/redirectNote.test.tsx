// Component test (happy-dom): the note before a method's page says where the person goes — the provider live, the
// sandbox's test payment page in test mode (the method list's `sandbox: true`).
import { act } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { PaymentMethod } from '../../src/api/payment.ts';
import { addMessages, loadLocale } from '../../src/i18n/index.ts';
import { ExternalPay } from '../../src/pay/ExternalPay.tsx';
import { $lang } from '../../src/stores/locale.ts';
import enPay from '../../locales/pay/en-US.json';
import ltPay from '../../locales/pay/lt-LT.json';

declare global {
  var IS_REACT_ACT_ENVIRONMENT: boolean;
}

beforeAll(async () => {
  globalThis.IS_REACT_ACT_ENVIRONMENT = true;
  await Promise.all([loadLocale('en-US'), loadLocale('lt-LT')]);
  addMessages('en-US', enPay);
  addMessages('lt-LT', ltPay);
});

let root: Root | null = null;
afterEach(() => {
  act(() => root?.unmount());
  root = null;
  document.body.innerHTML = '';
  $lang.set('en-US');
});

const paypal = (extra: Partial<PaymentMethod>) =>
  ({
    pId: 'paypal:paypal',
    pPaymentType: 'paypal',
    label: 'PayPal',
    kind: 'redirect',
    hold: false,
    ...extra,
  }) as PaymentMethod;

function note(method: PaymentMethod) {
  const host = document.createElement('div');
  document.body.appendChild(host);
  root = createRoot(host);
  act(() =>
    root!.render(
      <ExternalPay
        method={method}
        preAuth={false}
        submitLabel="Pay"
        call={async () => ({ outTradeNo: 'x' }) as never}
        onDone={() => {}}
        onError={() => {}}
      />,
    ),
  );
  return host.querySelector('p.muted')?.textContent;
}

describe('the redirect note', () => {
  it('names the provider live, and the test payment page in test mode', () => {
    expect(note(paypal({}))).toBe('You will be taken to PayPal to pay, then brought back here.');
    act(() => root?.unmount());
    expect(note(paypal({ sandbox: true, testValues: [] }))).toBe(
      'Test mode: you will be taken to the test payment page for PayPal (no real money moves), then brought back here.',
    );
  });

  it("in the person's language", async () => {
    $lang.set('lt-LT');
    await loadLocale('lt-LT');
    expect(note(paypal({ sandbox: true, testValues: [] }))).toContain('Bandomasis režimas');
  });
});
