// The payment methods beyond the card provider: WeChat Pay, Alipay, PayPal, Flutterwave, M-Pesa, MercadoPago,
// Monri, SumUp, PayGate, N1co, Espees, Alif Pay, debit card. Each is one definition (its payment types, how the
// customer pays, what it can do, what an operator configures) and one class, a PaymentProvider (MethodProvider,
// external.ts), made from one agent's configuration, that implements only its provider's documented wire operations
// (method-base.ts):
//
//   start             the provider creates the payment; the answer says what the customer does next (Action)
//   complete          the customer came back from the provider with its parameters (PayPal token + PayerID, …)
//   status            the provider's current state of a payment (polled by the app's check call and by the expiry job)
//   capturePayment · voidPayment · refundPayment · payout   money calls on the provider's own ref
//   readNotification  a webhook / callback delivery, verified the way the provider specifies (null when it does not)
//   saveCardToken · removeCard                              cards saved at the provider
//
// Every call that moves money carries an idempotency key derived from our ids; methods pass it to the provider
// where the API has one, and otherwise use our `outTradeNo` as the provider's merchant reference (which the
// provider refuses to reuse), so a retried call never charges twice.
import type { Capabilities, WebhookRequest } from '../provider.ts';
import type { HttpLog } from './http.ts';
import type { MethodProvider } from './external.ts';
import type { MethodHost } from './method-base.ts';

/** How the customer finishes a payment. */
export type MethodKind =
  /** The provider's hosted page (PayPal, SumUp, N1co, Alif Pay, Espees): a redirect there and back. */
  | 'redirect'
  /** A form posted to the provider's page (PayGate PayWeb3: PAY_REQUEST_ID + CHECKSUM). */
  | 'form'
  /** A payment inside an app's browser through its JS bridge (WeChat JSAPI, Alipay tradePay). */
  | 'jsapi'
  /** The customer confirms on their phone (M-Pesa STK push, mobile money, SMS): the app polls. */
  | 'push'
  /** Card fields or a card token made by the provider's client SDK (Flutterwave card, MercadoPago, Monri, debit card). */
  | 'card';

/**
 * Where a method can be offered (the method list is filtered by platform): a desktop browser (web), a phone's
 * browser outside WeChat and Alipay (mobile), or the WeChat / Alipay app's own browser.
 */
export type Platform = 'web' | 'mobile' | 'wechat' | 'alipay';

export type ExternalState = 'pending' | 'authorized' | 'paid' | 'failed' | 'cancelled';

export interface StartInput {
  /** Our reference, unique per payment: `[A-Za-z0-9]`, ≤ 32 characters (fits every provider's merchant reference). */
  outTradeNo: string;
  /** Integer minor units of `currency`. */
  amount: number;
  currency: string;
  description: string;
  /** automatic: charge now; manual: authorise (hold) to capture or void later — only when capabilities.hold. */
  capture: 'automatic' | 'manual';
  /** Where a redirect method sends the customer back (our /result page with outTradeNo). */
  returnUrl: string;
  cancelUrl: string;
  /** Our webhook for this adapter and agent (webhookPath: POST /payments/webhooks/<adapter>[/<agent>]). */
  notifyUrl: string;
  idempotencyKey: string;
  /** The chosen payment type (WeChat_MP, paypal, M-PESA, Flutterwave_Mobile, …). */
  payType: string;
  payer: {
    userId: number;
    email?: string;
    /** E.164 digits without '+', e.g. 254708374149. */
    phone?: string;
    /** The payer's id in the app that hosts the payment (WeChat openid, Alipay buyer id). */
    openId?: string;
    name?: string;
    /** The payer's IP address (WeChat Pay H5 requires it: scene_info.payer_client_ip). */
    ip?: string;
  };
  /**
   * Card kinds: a single-use token from the provider's client SDK (MercadoPago card token, Monri, …), or the card
   * fields for a provider whose API takes them encrypted (Flutterwave direct charge).
   */
  card?: {
    token?: string;
    number?: string;
    expMonth?: string;
    expYear?: string;
    cvv?: string;
    paymentMethodId?: string;
    issuerId?: string;
    installments?: number;
    /**
     * A card the customer saved with this provider (saveCard): its customer and card at the provider. Live, the
     * provider asks the card's security code again (a fresh card token of the saved card, made on the app screen).
     */
    saved?: SavedCardRef;
  };
  /** WeChat Pay score: the service's deposit-free rental (the risk fund the order may reach). */
  deposit?: number;
}

/** What the customer does next. */
export type Action =
  | { kind: 'redirect'; url: string }
  | { kind: 'form'; url: string; fields: Record<string, string> }
  | { kind: 'jsapi'; bridge: 'wechat' | 'alipay'; params: Record<string, string> }
  | { kind: 'push' }
  | { kind: 'none' };

export interface StartResult {
  /** The provider's id of this payment (used by status, complete, capture, void, refund). */
  ref: string;
  state: ExternalState;
  action: Action;
  failureCode?: string;
}

export interface StatusResult {
  /**
   * The ref to use from now on: it may change as the payment moves (PayPal: the order id, then its capture or
   * authorisation id). Every method of the adapter accepts any ref it has returned.
   */
  ref: string;
  state: ExternalState;
  /** What the provider holds or charged, when it says. */
  amount?: number;
  currency?: string;
  failureCode?: string;
  /**
   * The card the provider can charge again (Flutterwave: data.card.token of a successful charge's verify, with the
   * charge's e-mail), as the saved card's `cardRef` (StartInput.card.saved), for a payer who asked to save it. Kept
   * only inside the saved card's reference, never logged.
   */
  reusableCard?: { cardRef: string; brand: string; last4: string; expiry?: string };
}

/** A webhook delivery as received (the body exactly as received: signatures are over these bytes). */
export type NotificationRequest = WebhookRequest;

export interface Notification {
  /** Unique per delivery event: stored once, a redelivery is answered without being applied again. */
  eventId: string;
  /** Which payment: our outTradeNo and/or the provider's ref. */
  outTradeNo?: string;
  ref?: string;
  /** The state the provider reports (the service still asks status() before it fulfils). */
  state?: ExternalState;
  amount?: number;
  currency?: string;
  /** The answer the provider expects (WeChat: JSON {code:'SUCCESS'}; Alipay: 'success'; M-Pesa: {ResultCode:0}). */
  ack: { status: number; contentType: string; body: string };
}

export interface ProviderCall {
  idempotencyKey: string;
}

/**
 * What `complete` knows of the payment it completes: a live card method whose card is entered in the provider's own
 * SDK on an app screen (MercadoPago.js) returns only a card token, and the payment is created with it now.
 */
export interface PaymentFacts {
  amount: number;
  currency: string;
  capture: 'automatic' | 'manual';
  description: string;
  notifyUrl: string;
  /** The customer at the provider whose saved card this payment uses (the card token was made from that card). */
  customerRef?: string;
}

/** A saved card at the provider: the customer it is attached to and the card's id there. */
export interface SavedCardRef {
  customerRef: string;
  cardRef: string;
}

/** What saveCard takes: the single-use card token of the provider's client SDK and what came with it. */
export interface SaveCardInput {
  /** Our user's customer at the provider when one is known (else the adapter finds or creates one by e-mail). */
  customerRef?: string;
  email: string;
  token: string;
  paymentMethodId?: string;
  issuerId?: string;
}

/**
 * The browser origins a provider's client SDK needs: scripts it is loaded from, frames it opens (its card fields),
 * hosts it calls. The page's Content-Security-Policy allows them only while such a method is configured live.
 */
export interface SdkOrigins {
  script: string[];
  frame: string[];
  connect: string[];
}

/** The origin of a URL (scheme, host, port), or undefined when it is not an http(s) URL. */
export function originOf(url: string): string | undefined {
  try {
    const u = new URL(url);
    return u.protocol === 'https:' || u.protocol === 'http:' ? u.origin : undefined;
  } catch {
    return undefined;
  }
}

/** The webhook entry of a provider instance (`paypal`, `paypal.<agent>`): /payments/webhooks/paypal[/<agent>]. */
export function webhookPath(instanceId: string): string {
  const [provider, ...agent] = instanceId.split('.');
  return `/payments/webhooks/${provider}${agent.length ? `/${agent.join('.')}` : ''}`;
}

export interface AdapterDeps {
  fetch: typeof fetch;
  now: () => Date;
  /** Where the shared HTTP client (methods/http.ts) logs each call, secrets redacted. */
  log?: HttpLog;
  /** The time limit of a provider call (default http.ts DEFAULT_TIMEOUT_MS). */
  timeoutMs?: number;
  /** The app's side of a registered method (its payment rows, URLs); absent when only its wire operations are used. */
  host?: MethodHost;
}

/** An adapter as the registry knows it. */
export interface AdapterDefinition<
  C extends Record<string, string> = Record<string, string>,
  P extends MethodProvider = MethodProvider,
> {
  /** Lower-case id: the configuration key, the webhook path segment. */
  id: string;
  /**
   * The payment types this adapter serves, with how each is paid. `directCard`: a card type whose provider
   * API takes the card fields from our server (Flutterwave's direct charge): live, the payer endpoint accepts them,
   * sealed in the payer token (methods/card-seal.ts); in test mode the sandbox card form's token stands in.
   */
  /** `hold: false`: this type charges at once even where the adapter can hold (a mobile-browser payment). */
  payTypes: {
    type: string;
    kind: MethodKind;
    label: string;
    platforms?: Platform[];
    directCard?: boolean;
    hold?: false;
    currencies?: string[];
  }[];
  /**
   * The test mode of payment types that are the card provider's own live (Stripe's wallets, iDEAL, WeChat Pay:
   * methods/stripe-types.ts): offered only where the agent's card provider is the sandbox, never beside Stripe.
   */
  cardProviderTypes?: true;
  /**
   * The adapter saves cards for later payments: `true` from a client SDK's card token (saveCard, removeCard: Mercado
   * Pago); `'afterPayment'` from a paid charge the payer asked to save (saveCardFlag: the provider's reusable card
   * of StatusResult.reusableCard; Flutterwave). Its card types' saved cards are offered.
   */
  savesCards?: boolean | 'afterPayment';
  capabilities: Capabilities;
  /** ISO currencies the provider takes for these types (absent: any). */
  currencies?: string[];
  /** Configuration keys an operator must set (checked at start when the method is switched on with SANDBOX=off). */
  required: (keyof C & string)[];
  /** Optional keys (e.g. `apiBase`: the provider's API root, redirected to a local test server in the tests). */
  optional?: (keyof C & string)[];
  /**
   * The provider's own documented test-mode values (test cards, test phone numbers, test accounts), which this
   * method's sandbox honours too and docs/payments.md lists.
   */
  /** With capabilities.payout: the withdrawal channel's name and the payee's account fields it asks for. */
  payoutChannel?: { label: string; fields: string[] };
  /** `card`: a test card number (shown with a card form, never beside a phone number field). */
  testValues?: {
    value: string;
    outcome: 'succeeds' | 'declined' | 'insufficient_funds' | 'no_answer';
    note?: string;
    card?: true;
  }[];
  /**
   * A card method whose live card entry is the provider's own browser SDK on an app screen (Monri Components on
   * /MonriPay, MercadoPago.js on /MercadoPago), reached by the in-app form action that start() answers: the payer
   * step takes no card token, and these are the origins the SDK needs (the CSP allows them, only for a configured
   * method). In test mode the sandbox card form stands in.
   */
  clientSdk?(config: C): SdkOrigins;
  create(config: C, deps: AdapterDeps): P;
}

/** What the test mode of a method needs of its definition (a test-mode-only definition has no live adapter). */
export type MethodDefinition = Omit<AdapterDefinition, 'create'>;

export class ProviderError extends Error {
  constructor(
    /** The provider's error code (or 'network', 'bad_response'). */
    readonly code: string,
    message: string,
    readonly status?: number,
  ) {
    super(message);
  }
}
