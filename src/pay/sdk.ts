// The providers' own card SDKs on the app's screens /MonriPay (Monri Components) and /MercadoPago (MercadoPago.js):
// the card is entered in the provider's frames and never reaches our page or server (PCI). How a live payment gets
// there and back (docs/payments.md "Card SDK screens"): the paying call answers an in-app form action
// (`#/MonriPay?…`, `#/MercadoPago?…`, src/pay/external.ts perform), the screen loads the SDK and finishes the card
// step, then sends the customer back through /payments/return/<outTradeNo>; the server keeps what the screen
// posted and sends them to the confirm screen with payment_intent, whose resume asks the provider.
// Here: reading the screens' query, loading an SDK script, and the pure rules the screens follow.
import { siblingUrl } from '../api/client.ts';
import { confirmDialog, toast } from '../ui/feedback.tsx';
import type { T } from '../i18n/index.ts';
import { perform } from './external.ts';
import { STRIPE_RETRY_MS } from './stripe.ts';
import { parseMonriBilling, type MonriBilling } from '../core/monriBilling.ts';

const REF = /^[A-Za-z0-9]{1,40}$/;
const KEY = /^[\w-]{1,200}$/;
const CURRENCY = /^[A-Z]{3}$/;

/**
 * The script URL of an action, only where it is the SDK's own file on some host: no query, no credentials, so a
 * crafted link cannot turn the SDK screen into a loader of an arbitrary script of an allowed host (the page's CSP
 * allows only the configured providers' hosts besides).
 */
export function sdkScriptUrl(kind: 'monri' | 'mercadopago', url: string | null | undefined): string | null {
  const path = kind === 'monri' ? '/dist/components\\.js' : '/js/v2';
  return url && new RegExp(`^https?://[A-Za-z0-9.-]+(:\\d{1,5})?${path}$`).test(url) ? url : null;
}

export interface MonriQuery {
  authenticityToken: string;
  clientSecret: string;
  scriptUrl: string;
  outTradeNo: string;
  /** Minor units of `currency` (shown on the button). */
  amount: number;
  currency: string;
}

/** /MonriPay's query (the action monri.ts start() answers), or null when a field is missing or malformed. */
export function readMonriQuery(q: URLSearchParams): MonriQuery | null {
  const authenticityToken = q.get('authenticityToken') ?? '';
  const clientSecret = q.get('clientSecret') ?? '';
  const scriptUrl = sdkScriptUrl('monri', q.get('scriptUrl'));
  const outTradeNo = q.get('outTradeNo') ?? '';
  const amount = Number(q.get('amount'));
  const currency = q.get('currency') ?? '';
  if (
    !KEY.test(authenticityToken) ||
    !KEY.test(clientSecret) ||
    !scriptUrl ||
    !REF.test(outTradeNo) ||
    !CURRENCY.test(currency)
  )
    return null;
  if (!Number.isSafeInteger(amount) || amount <= 0) return null;
  return { authenticityToken, clientSecret, scriptUrl, outTradeNo, amount, currency };
}

export interface MercadoPagoQuery {
  publicKey: string;
  sdkUrl: string;
  outTradeNo: string;
  /** Major units as Mercado Pago takes them ("15.00"; CLP "1500"). */
  amount: string;
  currency: string;
  /** A saved card being paid with: its id at Mercado Pago (the screen asks only its security code). */
  cardId?: string;
  /** The method (pId) a new card can be saved with ("save this card"), when it saves cards. */
  paymentId?: string;
}

/** /MercadoPago's query (the action mercadopago.ts start() answers), or null when a field is missing or malformed. */
export function readMercadoPagoQuery(q: URLSearchParams): MercadoPagoQuery | null {
  const publicKey = q.get('publicKey') ?? '';
  const sdkUrl = sdkScriptUrl('mercadopago', q.get('sdkUrl'));
  const outTradeNo = q.get('outTradeNo') ?? '';
  const amount = q.get('amount') ?? '';
  const currency = q.get('currency') ?? '';
  if (
    !KEY.test(publicKey) ||
    !sdkUrl ||
    !REF.test(outTradeNo) ||
    !/^\d{1,12}(\.\d{1,3})?$/.test(amount) ||
    Number(amount) <= 0 ||
    !CURRENCY.test(currency)
  )
    return null;
  const cardId = q.get('cardId');
  const paymentId = q.get('paymentId');
  if (cardId !== null && !/^\d{1,30}$/.test(cardId)) return null;
  return {
    publicKey,
    sdkUrl,
    outTradeNo,
    amount,
    currency,
    ...(cardId ? { cardId } : {}),
    // Saving is offered for a new card only (a saved card is saved).
    ...(!cardId && paymentId && /^[\w.-]{1,60}:[\w-]{1,40}$/.test(paymentId) ? { paymentId } : {}),
  };
}

/**
 * Monri's billing details ("Monri billing"): the full name is the billing e-mail (/MonriPay), Monri's
 * country BA; the address, city, zip and phone the user's stored billing (user/more monriBilling) had, if any.
 */
export interface MonriTransaction {
  address: string;
  fullName: string;
  city: string;
  zip: string;
  phone: string;
  country: string;
  email: string;
  orderInfo: string;
}

export function monriTransaction(email: string, orderInfo = 'Powerly', saved: MonriBilling = {}): MonriTransaction {
  const e = email.trim();
  // Monri takes a cardholder name of up to 30 characters.
  return {
    address: saved.address ?? '',
    fullName: e.slice(0, 30),
    city: saved.city ?? '',
    zip: saved.zip ?? '',
    phone: saved.phone ?? '',
    country: 'BA',
    email: e,
    orderInfo,
  };
}

/** The user's stored Monri billing (user/more's JSON text), read with the server's rule: {} when none or not valid. */
export function storedMonriBilling(text: string | null | undefined): MonriBilling {
  if (!text) return {};
  const r = parseMonriBilling(text);
  return 'billing' in r ? r.billing : {};
}

/** MercadoPago.js locales (es-AR … pt-BR, en-US): Spanish by the account's country (its currency), Portuguese as Brazil's. */
export function mercadoPagoLocale(lang: string, currency: string): string {
  if (lang.startsWith('pt')) return 'pt-BR';
  if (lang.startsWith('es')) {
    const byCurrency: Record<string, string> = {
      ARS: 'es-AR',
      CLP: 'es-CL',
      COP: 'es-CO',
      MXN: 'es-MX',
      PEN: 'es-PE',
      UYU: 'es-UY',
    };
    return byCurrency[currency] ?? 'es-AR';
  }
  return 'en-US';
}

/** A provider SDK's rejection (an Error, MercadoPago.js's list of causes, {message}) as one line of its own text. */
export function sdkErrorText(e: unknown, fallback: string): string {
  const one = (x: unknown): string => {
    if (typeof x === 'string') return x;
    if (x && typeof x === 'object' && 'message' in x && typeof (x as { message: unknown }).message === 'string')
      return (x as { message: string }).message;
    return '';
  };
  const text = Array.isArray(e) ? e.map(one).filter(Boolean).join(' ') : one(e);
  return text.trim() || fallback;
}

/**
 * Back to the paying flow: a form POST to /payments/return/<outTradeNo> (the server keeps the fields and sends the
 * customer to the screen they paid from, which resumes the payment). Only what the server checks itself is sent.
 */
export function returnToApp(outTradeNo: string, fields: Record<string, string>): Promise<boolean> {
  return perform({ kind: 'form', url: siblingUrl(`/payments/return/${encodeURIComponent(outTradeNo)}`), fields });
}

/**
 * /MonriPay: an approved payment goes to the result "in a new window on Android" (Android web-views keep
 * the payment frame's page; the result opens beside it). Elsewhere: the same window.
 */
export function approvedNavigation(userAgent: string): 'newWindow' | 'sameWindow' {
  return /\bAndroid\b/i.test(userAgent) ? 'newWindow' : 'sameWindow';
}

/**
 * Monri approved: back to the paying screen through the return URL (the server resumes the payment and asks Monri; it
 * never takes status=approved from here). On Android a new window (a GET of the return URL); where the web-view
 * refuses to open one (window.open answers null), the same window. Resolves with where it went.
 */
export async function leaveApproved(
  outTradeNo: string,
  userAgent: string,
  open: (url: string) => Window | null = (url) => window.open(url, '_blank'),
): Promise<'newWindow' | 'sameWindow'> {
  if (approvedNavigation(userAgent) === 'newWindow') {
    const url = siblingUrl(`/payments/return/${encodeURIComponent(outTradeNo)}?status=approved`);
    if (open(url)) return 'newWindow';
  }
  await returnToApp(outTradeNo, { status: 'approved' });
  return 'sameWindow';
}

const loads = new Map<string, Promise<void>>();

function addScript(url: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const s = document.createElement('script');
    s.src = url;
    s.async = true;
    s.onload = () => resolve();
    s.onerror = () => {
      s.remove();
      reject(new Error(`could not load ${url}`));
    };
    document.head.append(s);
  });
}

/**
 * Loads a provider's SDK script once and returns its global, with a retry ('loading...' and another
 * try after 500 ms; after three, a retry dialog): null when the customer gives up.
 */
export async function loadSdk<G>(url: string, global: () => G | undefined, t: T): Promise<G | null> {
  for (;;) {
    for (let i = 0; i < 3; i++) {
      const ready = global();
      if (ready) return ready;
      let p = loads.get(url);
      if (!p) {
        p = addScript(url);
        loads.set(url, p);
      }
      try {
        await p;
        const g = global();
        if (g) return g;
      } catch {
        // blocked or unreachable: try again
      }
      loads.delete(url);
      toast(t('stripe.loading'));
      await new Promise((r) => setTimeout(r, STRIPE_RETRY_MS));
    }
    if (
      !(await confirmDialog({
        title: t('stripe.loadFailedTitle'),
        text: t('stripe.loadFailed'),
        okLabel: t('common.retry'),
      }))
    )
      return null;
  }
}

/**
 * Names the frames an SDK mounts in `host` that have no title (axe: every frame is named), now and as they appear.
 * Returns the stop function.
 */
export function titleFrames(host: HTMLElement, title: string): () => void {
  const name = () => host.querySelectorAll('iframe:not([title])').forEach((f) => f.setAttribute('title', title));
  name();
  const o = new MutationObserver(name);
  o.observe(host, { childList: true, subtree: true });
  return () => o.disconnect();
}
