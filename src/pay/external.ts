// The methods beyond the card provider (docs/payments.md): what the server's action asks the customer to do, and
// how long the app waits for the provider's answer ("Result/order check"), as pure rules.
import type { PaymentMethod } from '../contract/payments.ts';
import { isAlipay, isWeChat } from '../core/navigation.ts';

/** The client secret of an external action starts with this (server: payments/methods/external.ts). */
export const EXTERNAL_ACTION_PREFIX = 'ext:';

export type ExternalAction =
  | { kind: 'redirect'; url: string }
  | { kind: 'form'; url: string; fields: Record<string, string> }
  | { kind: 'jsapi'; bridge: 'wechat' | 'alipay'; params: Record<string, string> }
  | { kind: 'push' }
  | { kind: 'none' };

/** The action of a server answer, or null when it is not an external method's (a Stripe client secret). */
export function externalAction(clientSecret: string): ExternalAction | null {
  if (!clientSecret.startsWith(EXTERNAL_ACTION_PREFIX)) return null;
  try {
    const a = JSON.parse(clientSecret.slice(EXTERNAL_ACTION_PREFIX.length)) as ExternalAction;
    return a && typeof a.kind === 'string' ? a : null;
  } catch {
    return null;
  }
}

/**
 * Where the app runs, for the method list (filtered by platform): the WeChat or Alipay app's browser, a phone's
 * other browsers (mobile: WeChat Pay H5 and Alipay's WAP payment open those apps from there), else web.
 */
export function platformOf(ua: string): 'web' | 'mobile' | 'wechat' | 'alipay' {
  return isWeChat(ua)
    ? 'wechat'
    : isAlipay(ua)
      ? 'alipay'
      : /Android|iPhone|iPad|iPod|Mobile/i.test(ua)
        ? 'mobile'
        : 'web';
}

export interface PollPlan {
  /** Between two checks. */
  intervalMs: number;
  /** Checks before the retry dialog. */
  tries: number;
  /** M-Pesa style SMS payments: the "I have paid" button clicks itself after this long. */
  autoConfirmMs?: number;
}

/**
 * How the app waits for a payment's outcome: Flutterwave polls each 1 s, up to 9 further tries; SumUp up
 * to 10 tries at 1 s; an M-Pesa style SMS confirm clicks itself after 20 s; WeChat Pay score's authorisation is
 * polled about every 2 s; the rest (WeChat Pay while Processing, redirects) each 1 s up to 30 s.
 */
export function pollPlan(payType: string, hold = false): PollPlan {
  if (payType === 'Flutterwave' || payType === 'Flutterwave_Mobile') return { intervalMs: 1000, tries: 10 };
  if (payType === 'SumUpOnlinePayment') return { intervalMs: 1000, tries: 10 };
  if (payType === 'M-PESA') return { intervalMs: 1000, tries: 10, autoConfirmMs: 20_000 };
  if (payType === 'WeChat_MP' && hold) return { intervalMs: 2000, tries: 15 };
  return { intervalMs: 1000, tries: 30 };
}

/**
 * What the payer must give for a method before paying. A live card method with the provider's own SDK
 * (`sdk`: Monri, Mercado Pago) takes the card, and Monri's e-mail, on its own screen after the paying call.
 */
export function payerFields(m: Pick<PaymentMethod, 'kind' | 'pPaymentType' | 'hold' | 'sdk'>, preAuth: boolean) {
  return {
    phone: m.kind === 'push',
    email: m.pPaymentType === 'Monri_WebPay' && !m.sdk,
    card: m.kind === 'card' && !m.sdk,
    /** WeChat Pay score (a deposit-free rental): the entrustment agreement must be ticked. */
    agreement: m.pPaymentType === 'WeChat_MP' && preAuth && m.hold === true,
  };
}

interface Bridges {
  WeixinJSBridge?: {
    invoke(name: string, params: Record<string, string>, cb: (r: { err_msg?: string }) => void): void;
  };
  AlipayJSBridge?: {
    call(name: string, params: Record<string, string>, cb: (r: { resultCode?: string }) => void): void;
  };
}

/**
 * Does what the action asks: leaves for the provider's page (redirect, form), or asks the in-app bridge (WeChat
 * JSAPI, Alipay tradePay; in test mode, where there is no bridge, the sandbox's checkout page). Resolves true when
 * the app should now wait for the outcome, false when the customer cancelled in the bridge.
 */
export async function perform(a: ExternalAction, w: Window & Bridges = window as Window & Bridges): Promise<boolean> {
  if (a.kind === 'redirect') {
    w.location.assign(a.url);
    return true;
  }
  if (a.kind === 'form' && a.url.startsWith('#/')) {
    // A screen of this app that mounts the provider's own card SDK (/MonriPay, /MercadoPago: src/pay/sdk.ts).
    w.location.hash = `${a.url.slice(1)}?${new URLSearchParams(a.fields).toString()}`;
    return true;
  }
  if (a.kind === 'form') {
    const form = w.document.createElement('form');
    form.method = 'POST';
    form.action = a.url;
    for (const [name, value] of Object.entries(a.fields)) {
      const input = w.document.createElement('input');
      input.type = 'hidden';
      input.name = name;
      input.value = value;
      form.append(input);
    }
    w.document.body.append(form);
    form.submit();
    return true;
  }
  if (a.kind === 'jsapi') {
    if (a.params.sandboxCheckout) {
      w.location.assign(a.params.sandboxCheckout);
      return true;
    }
    if (a.bridge === 'wechat' && w.WeixinJSBridge) {
      const bridge = w.WeixinJSBridge;
      const name = a.params.businessType ? 'openBusinessView' : 'getBrandWCPayRequest';
      return new Promise((resolve) =>
        bridge.invoke(name, a.params, (r) => resolve(!/cancel|fail/.test(r.err_msg ?? ''))),
      );
    }
    if (a.bridge === 'alipay' && w.AlipayJSBridge) {
      const bridge = w.AlipayJSBridge;
      // Alipay: result code 9000 is success.
      return new Promise((resolve) =>
        bridge.call('tradePay', { tradeNO: a.params.tradeNO ?? '', orderStr: a.params.orderStr ?? '' }, (r) =>
          resolve(r.resultCode === '9000'),
        ),
      );
    }
    return false;
  }
  return true;
}
