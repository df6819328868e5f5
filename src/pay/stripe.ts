// Stripe.js on the payment screens only: loaded lazily through @stripe/stripe-js's loader (the `pure` entry
// does not touch the network until loadStripe is called), with a retry (after 500 ms, toast
// 'loading...'; a retry dialog when it still fails). Tests inject a Stripe.js double with setStripeLoader.
import type { Stripe } from '@stripe/stripe-js';
import { confirmDialog, toast } from '../ui/feedback.tsx';
import type { T } from '../i18n/index.ts';

export type StripeLoader = (
  publicKey: string,
  opts: { stripeAccount?: string; locale?: string },
) => Promise<Stripe | null>;

const realLoader: StripeLoader = async (publicKey, opts) => {
  const { loadStripe } = await import('@stripe/stripe-js/pure');
  return loadStripe(publicKey, { locale: (opts.locale ?? 'auto') as 'auto' });
};
let loader: StripeLoader = realLoader;

/** Tests only: replaces Stripe.js with a double (null restores the real loader). */
export function setStripeLoader(l: StripeLoader | null) {
  loader = l ?? realLoader;
  cache.clear();
}

const cache = new Map<string, Promise<Stripe | null>>();
export const STRIPE_RETRY_MS = 500;
const ATTEMPTS = 3;

/** The Stripe.js locale for our language ('zh-CN' → 'zh', 'pt-PT' → 'pt', …). */
export const stripeLocale = (lang: string) => (lang === 'zh-CN' ? 'zh' : lang.slice(0, 2));

/**
 * Stripe.js for a publishable key, loaded once per key. Each failed attempt shows 'loading...' and tries again
 * after 500 ms; after three, a retry dialog: Retry starts over, Cancel resolves null (the screen offers no
 * Stripe method then).
 */
export async function loadStripeWithRetry(publicKey: string, t: T, lang = 'en-US'): Promise<Stripe | null> {
  const hit = cache.get(publicKey);
  if (hit) return hit;
  const p = (async () => {
    for (;;) {
      for (let i = 0; i < ATTEMPTS; i++) {
        try {
          const s = await loader(publicKey, { locale: stripeLocale(lang) });
          if (s) return s;
        } catch {
          // the script did not load (network, blocked): try again
        }
        toast(t('stripe.loading'));
        await new Promise((r) => setTimeout(r, STRIPE_RETRY_MS));
      }
      const again = await confirmDialog({
        title: t('stripe.loadFailedTitle'),
        text: t('stripe.loadFailed'),
        okLabel: t('common.retry'),
      });
      if (!again) return null;
    }
  })();
  cache.set(publicKey, p);
  const s = await p;
  if (!s) cache.delete(publicKey);
  return s;
}

/** What a paying call answered: done (an order number), or an action the customer must finish with Stripe.js. */
export type PayAnswer = { done: string } | { action: { clientSecret: string; paymentIntent: string } };

/**
 * Runs a Stripe payment end to end: `call` sends the payment method to our server; when the server answers
 * `action` (3-D Secure, a redirect, a QR code), Stripe.js handles it in place and the call is repeated with
 * the payment intent. Returns the order number, or throws an Error with Stripe's message in the user's language.
 */
export async function payWithStripe(
  stripe: Stripe,
  call: (input: { stripeToken?: string; paymentIntent?: string }) => Promise<PayAnswer>,
  paymentMethod: string,
): Promise<string> {
  let answer = await call({ stripeToken: paymentMethod });
  for (let i = 0; i < 3 && 'action' in answer; i++) {
    const { clientSecret, paymentIntent } = answer.action;
    const r = await stripe.handleNextAction({ clientSecret });
    if (r.error) {
      // In the embed frame a bank's challenge page may refuse to be framed: finish it in a top-level popup.
      if (inFrame() && r.error.type !== 'card_error') return challengeInPopup(paymentIntent);
      throw new StripePayError(r.error.code ?? 'authentication_failed', r.error.message ?? '');
    }
    answer = await call({ stripeToken: paymentMethod, paymentIntent });
  }
  if ('action' in answer) throw new StripePayError('authentication_failed', '');
  return answer.done;
}

export class StripePayError extends Error {
  override name = 'StripePayError';
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** The payment types paid through Stripe, and how the screen takes each. */
export type StripeKind = 'card' | 'wallet' | 'redirect';
export function stripeKind(paymentType: string): StripeKind | null {
  // debitcard: the card form; the server declines a card whose funding is not debit (debit_only).
  if (paymentType === 'STRIPE_CARD' || paymentType === 'debitcard') return 'card';
  if (['STRIPE_APPLE', 'STRIPE_GOOGLE', 'APPLE_PAY', 'GOOGLE_PAY'].includes(paymentType)) return 'wallet';
  if (paymentType === 'STRIPE_IDEAL' || paymentType === 'STRIPE_WECHAT') return 'redirect';
  return null;
}

/** The channel a popup finishing a payment reports on (same origin as the frame that opened it). */
export const PAY_CHANNEL = 'powerly-pay';

export function inFrame(): boolean {
  try {
    return typeof window !== 'undefined' && window.self !== window.top;
  } catch {
    return true; // a cross-origin parent: framed
  }
}

/**
 * Opens this screen top-level with ?payment_intent (the popup finishes the challenge and resumes the payment
 * there, then reports the order number on PAY_CHANNEL and closes); resolves with that order number.
 */
export function challengeInPopup(paymentIntent: string, url = location.href): Promise<string> {
  return new Promise((resolve, reject) => {
    const target = new URL(url);
    const hash = target.hash.includes('?')
      ? `${target.hash}&payment_intent=${paymentIntent}`
      : `${target.hash}?payment_intent=${paymentIntent}`;
    target.hash = hash;
    const popup = window.open(target.toString(), 'powerly-3ds', 'popup,width=480,height=720');
    if (!popup) return reject(new StripePayError('popup_blocked', ''));
    const channel = new BroadcastChannel(PAY_CHANNEL);
    const timer = setInterval(() => {
      if (!popup.closed) return;
      clearInterval(timer);
      channel.close();
      reject(new StripePayError('authentication_failed', ''));
    }, 1000);
    channel.onmessage = (e: MessageEvent<{ paymentIntent: string; orderNo: string }>) => {
      if (e.data?.paymentIntent !== paymentIntent) return;
      clearInterval(timer);
      channel.close();
      resolve(e.data.orderNo);
    };
  });
}

/** In the popup: tell the frame the payment is done, then close. Returns false when this is not such a popup. */
export function reportToOpener(paymentIntent: string, orderNo: string): boolean {
  if (typeof window === 'undefined' || !window.opener || window.name !== 'powerly-3ds') return false;
  const channel = new BroadcastChannel(PAY_CHANNEL);
  channel.postMessage({ paymentIntent, orderNo });
  channel.close();
  window.close();
  return true;
}
