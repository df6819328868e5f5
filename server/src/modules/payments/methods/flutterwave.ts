// Flutterwave (v3 API, https://developer.flutterwave.com/v3.0): card direct charge and mobile money.
//
//   card     POST /v3/charges?type=card {client: base64(3DES-24-ECB(PKCS#7)(JSON payload), encryption key)}; the
//            answer's meta.authorization.mode says what the card needs: `redirect` (3-D Secure page), `otp` (the
//            app's OTP screen, OTP_SCREEN; POST /v3/validate-charge {otp, flw_ref} in our complete() with {otp}), `pin` / `avs_noauth` (the PIN or billing address,
//            which our card form does not collect: the payment fails with `authorization_required`); no mode and
//            data.status `successful` is a charge without customer authentication. `preauthorize: true` holds the
//            amount (status `pending-capture`): POST /v3/charges/{flw_ref}/capture {amount} (≤ held) or /void.
//   mobile   POST /v3/charges?type=mpesa|mobile_money_<country>: pending until the customer confirms on the phone
//            (or on the page meta.authorization.redirect names: Ghana, Uganda).
//   status   GET /v3/transactions/{id}/verify, or /v3/transactions/verify_by_reference?tx_ref= while the id is not
//            known yet; the amount and currency Flutterwave reports must be what we asked (else failed,
//            `amount_mismatch`): Flutterwave's own advice for every verification.
//   refund   POST /v3/transactions/{id}/refund {amount} (partial allowed); a preauth charge: /v3/charges/{flw_ref}/refund.
//   saved    a payer who ticked "save this card" (saveCardFlag): once paid, the verify's data.card.token (with the
//            charge's e-mail) is the saved card; POST /v3/tokenized-charges {token, email, currency, amount, tx_ref}
//            charges it again (no customer step; preauthorize for a hold).
//   payout   POST /v3/transfers {account_bank, account_number, amount, currency, reference, narration, callback_url}.
//   webhook  `verif-hash` header = the secret hash set on the dashboard (legacy), and/or `flutterwave-signature` =
//            base64(HMAC-SHA256(secret hash, raw body)); every header present must verify. Events charge.completed
//            and transfer.completed; any 2xx acknowledges (we answer 200).
//
// v3 has no idempotency header: our outTradeNo is the charge's tx_ref and our idempotency key the transfer's
// reference, both unique at Flutterwave, so a retried call cannot charge or pay twice.
// Amounts on the wire are major units (numbers, e.g. 12.5 NGN); ours are integer minor units.
import {
  ProviderError,
  type Action,
  type AdapterDefinition,
  type AdapterDeps,
  type Notification,
  type NotificationRequest,
  type ProviderCall,
  type StartInput,
  type StartResult,
  type StatusResult,
} from './adapter.ts';
import { MethodProvider } from './external.ts';
import { flutterwaveSettlements } from '../settlements/flutterwave.ts';
import type { PayoutInput, Settlements } from '../provider.ts';
import { httpClient } from './http.ts';
import {
  CARD_CURRENCIES,
  MOBILE_MONEY_TYPES,
  TX_PREFIX,
  cardRefOf,
  chargeState,
  encrypt3des,
  errorCode,
  failureCode,
  francoCountry,
  mobileNetwork,
  parseCardRef,
  readNotification,
  toMajor,
  toMinor,
  type FlwBody,
  type Tx,
} from './flutterwave-wire.ts';

export {
  MOBILE_MONEY_TYPES,
  cardRefOf,
  encrypt3des,
  failureCode,
  parseCardRef,
  toMajor,
  toMinor,
} from './flutterwave-wire.ts';

export type FlutterwaveConfig = {
  /** FLWSECK-… (FLWSECK_TEST-… in test mode): the Bearer token of every call. */
  secretKey: string;
  /** The 24-character encryption key of the dashboard's API settings (card payloads are 3DES-encrypted with it). */
  encryptionKey: string;
  /** The webhook secret hash set on the dashboard (Settings → Webhooks). */
  secretHash: string;
  /** FLWPUBK-…: not needed server-side; handed to a client that uses Flutterwave's inline checkout. */
  publicKey?: string;
  /** API root; default https://api.flutterwave.com (test and live keys use the same host). */
  apiBase?: string;
  /** Email sent when the payer has none (Flutterwave requires one on every charge). */
  defaultEmail?: string;
};

/** The app's OTP entry screen (src/pay/CardOtp.tsx): a card charge answering `meta.authorization.mode: otp`. */
export const OTP_SCREEN = '#/CardOtp';

export const flutterwaveDefinition: AdapterDefinition<FlutterwaveConfig, FlutterwaveMethod> = {
  payoutChannel: { label: 'Flutterwave bank transfer', fields: ['account_bank', 'account_number'] },
  id: 'flutterwave',
  payTypes: [
    { type: 'Flutterwave', kind: 'card', label: 'Card', directCard: true },
    { type: 'Flutterwave_Mobile', kind: 'push', label: 'Mobile money' },
  ],
  capabilities: { hold: true, partialCapture: true, offSession: false, refund: true, payout: true, webhook: true },
  savesCards: 'afterPayment',
  currencies: CARD_CURRENCIES,
  required: ['secretKey', 'encryptionKey', 'secretHash'],
  optional: ['publicKey', 'apiBase', 'defaultEmail'],
  // Flutterwave's v3 test cards and mobile money numbers (developer.flutterwave.com/docs/testing), test keys only.
  testValues: [
    {
      value: '4187427415564246',
      outcome: 'succeeds',
      note: 'Visa 3-D Secure: cvv 828, exp 09/32, OTP 12345 on the 3DS page',
      card: true,
    },
    {
      value: '5438898014560229',
      outcome: 'succeeds',
      note: 'Mastercard 3-D Secure: cvv 564, exp 10/31, OTP 12345 on the 3DS page',
      card: true,
    },
    {
      value: '5061460166976054667',
      outcome: 'succeeds',
      note: 'Verve, no authentication: cvv 564, exp 10/29',
      card: true,
    },
    {
      value: '5377283645077450',
      outcome: 'succeeds',
      note: 'preauthorisation card (hold, capture, void): cvv 789, exp 09/31',
      card: true,
    },
    {
      value: '5531886652142950',
      outcome: 'declined',
      note: 'Mastercard PIN card (cvv 564, exp 09/32, PIN 3310, OTP 12345): asks for the PIN, which our card form does not collect → authorization_required',
      card: true,
    },
    {
      value: '4556052704172643',
      outcome: 'declined',
      note: 'Visa AVS card (cvv 899, exp 09/32): asks for the billing address → authorization_required',
      card: true,
    },
    { value: '5143010522339965', outcome: 'declined', note: 'Do Not Honour: cvv 276, exp 08/31', card: true },
    { value: '5590131743294314', outcome: 'declined', note: 'fraudulent card: cvv 887, exp 11/32', card: true },
    {
      value: '5258585922666506',
      outcome: 'insufficient_funds',
      note: 'insufficient funds: cvv 883, exp 09/31',
      card: true,
    },
    { value: '25454709929220', outcome: 'succeeds', note: 'M-Pesa (KES) test number' },
    {
      value: '054709929220',
      outcome: 'succeeds',
      note: 'Ghana mobile money (GHS) test number, network MTN; OTP on the redirect page',
    },
    { value: '24709929220', outcome: 'succeeds', note: 'Francophone mobile money (XAF/XOF) test number' },
  ],
  create: (config, deps) => new FlutterwaveMethod(config, deps),
};

/** The provider's API as FlutterwaveMethod calls it: the connection and the helpers its wire operations share. */
function flutterwaveWire(config: FlutterwaveConfig, deps: AdapterDeps) {
  const base = (config.apiBase ?? 'https://api.flutterwave.com').replace(/\/+$/, '');
  /** What we asked per outTradeNo (this process); the charge's meta carries it too, for after a restart. */
  const asked = new Map<string, { amount: number; currency: string }>();

  const http = httpClient('flutterwave', deps);

  async function call(method: 'GET' | 'POST', path: string, body?: unknown): Promise<FlwBody> {
    const res = await http.json<FlwBody>({
      method,
      url: `${base}${path}`,
      headers: { authorization: `Bearer ${config.secretKey}`, accept: 'application/json' },
      ...(body === undefined ? {} : { json: body }),
    });
    const json = res.body;
    if (!res.ok || json.status !== 'success') {
      const message = json.message ?? `HTTP ${res.status}`;
      throw new ProviderError(errorCode(res.status, message), `flutterwave: ${message}`, res.status);
    }
    return json;
  }

  async function verify(ref: string, outTradeNo?: string): Promise<Tx> {
    const byId = /^\d+$/.test(ref);
    const txRef = ref.startsWith(TX_PREFIX) ? ref.slice(TX_PREFIX.length) : (outTradeNo ?? ref);
    const body = byId
      ? await call('GET', `/v3/transactions/${encodeURIComponent(ref)}/verify`)
      : await call('GET', `/v3/transactions/verify_by_reference?tx_ref=${encodeURIComponent(txRef)}`);
    if (!body.data || typeof body.data !== 'object')
      throw new ProviderError('bad_response', 'flutterwave: verify without data');
    return body.data as Tx;
  }

  function expected(tx: Tx, outTradeNo: string): { amount: number; currency: string } | undefined {
    const mine = asked.get(outTradeNo);
    if (mine) return mine;
    const meta = (tx.meta ?? {}) as Record<string, unknown>;
    const amount = Number(meta.powerly_amount);
    const currency = meta.powerly_currency;
    return Number.isInteger(amount) && typeof currency === 'string' ? { amount, currency } : undefined;
  }

  function result(tx: Tx, outTradeNo: string): StatusResult {
    const currency = String(tx.currency ?? '').toUpperCase();
    const amount = tx.amount === undefined || currency === '' ? undefined : toMinor(tx.amount, currency);
    const ref = tx.id === undefined ? `${TX_PREFIX}${outTradeNo}` : String(tx.id);
    let state = chargeState(tx.status);
    let failure: string | undefined =
      state === 'failed' ? failureCode(tx.processor_response ?? tx.narration) : undefined;
    if (tx.tx_ref !== undefined && tx.tx_ref !== outTradeNo) {
      state = 'failed';
      failure = 'reference_mismatch';
    }
    const want = expected(tx, outTradeNo);
    // A captured preauthorisation may be less than the hold (partial capture); anything else must be what we asked.
    const captured = tx.charge_type === 'preauth' && state === 'paid';
    const amountOk =
      amount !== undefined &&
      want !== undefined &&
      (captured ? amount > 0 && amount <= want.amount : amount === want.amount);
    if (want && (state === 'paid' || state === 'authorized') && (!amountOk || currency !== want.currency)) {
      state = 'failed';
      failure = 'amount_mismatch';
    }
    const c = (tx.card ?? {}) as Record<string, unknown>;
    const customer = (tx.customer ?? {}) as Record<string, unknown>;
    // The card's token comes only with a successful charge; with the e-mail it was made with, it charges again.
    const reusableCard =
      state === 'paid' && typeof c.token === 'string' && c.token && typeof customer.email === 'string' && customer.email
        ? {
            cardRef: cardRefOf(c.token, customer.email),
            brand: String(c.type ?? 'card'),
            last4: String(c.last_4digits ?? ''),
            ...(typeof c.expiry === 'string' ? { expiry: c.expiry } : {}),
          }
        : undefined;
    return {
      ref,
      state,
      amount,
      currency: currency || undefined,
      ...(failure ? { failureCode: failure } : {}),
      ...(reusableCard ? { reusableCard } : {}),
    };
  }

  function email(input: StartInput): string {
    const e = input.payer.email ?? config.defaultEmail;
    if (!e) throw new ProviderError('email_required', 'flutterwave: every charge needs the customer email', 400);
    return e;
  }

  function meta(input: StartInput) {
    return {
      powerly_amount: String(input.amount),
      powerly_currency: input.currency,
      powerly_user: String(input.payer.userId),
    };
  }

  async function startCard(input: StartInput): Promise<StartResult> {
    const c = input.card;
    if (!c?.number || !c.cvv || !c.expMonth || !c.expYear)
      throw new ProviderError('invalid_card', 'flutterwave: card number, cvv and expiry are required', 400);
    const payload: Record<string, unknown> = {
      card_number: c.number.replace(/\D/g, ''),
      cvv: c.cvv,
      expiry_month: c.expMonth.padStart(2, '0'),
      expiry_year: c.expYear.slice(-2),
      currency: input.currency,
      amount: toMajor(input.amount, input.currency),
      email: email(input),
      tx_ref: input.outTradeNo,
      redirect_url: input.returnUrl,
      meta: meta(input),
      ...(input.payer.name ? { fullname: input.payer.name } : {}),
      ...(input.payer.phone ? { phone_number: input.payer.phone } : {}),
      ...(input.payer.ip ? { client_ip: input.payer.ip } : {}),
      ...(input.capture === 'manual' ? { preauthorize: true } : {}),
    };
    const body = await charge('card', { client: encrypt3des(config.encryptionKey, JSON.stringify(payload)) }, input);
    if ('state' in body) return body;
    const mode = body.meta?.authorization?.mode;
    const tx = (body.data ?? {}) as Tx;
    if (mode === 'pin' || mode === 'avs_noauth') {
      // The PIN or the billing address would have to be sent with the card again; our form collects neither.
      return {
        ref: tx.id === undefined ? `${TX_PREFIX}${input.outTradeNo}` : String(tx.id),
        state: 'failed',
        action: { kind: 'none' },
        failureCode: 'authorization_required',
      };
    }
    return fromCharge(body, tx, input);
  }

  /** A saved card (its token and the e-mail it was made with): charged again, no customer step. */
  async function startSaved(input: StartInput, cardRef: string): Promise<StartResult> {
    const { token, email: savedEmail } = parseCardRef(cardRef);
    if (!token || !savedEmail) throw new ProviderError('token_invalid', 'flutterwave: not a saved card reference', 400);
    const body = await charge(
      'tokenized',
      {
        token,
        email: savedEmail,
        currency: input.currency,
        amount: toMajor(input.amount, input.currency),
        tx_ref: input.outTradeNo,
        narration: input.description,
        meta: meta(input),
        ...(input.payer.ip ? { client_ip: input.payer.ip } : {}),
        ...(input.capture === 'manual' ? { preauthorize: true } : {}),
      },
      input,
    );
    if ('state' in body) return body;
    return fromCharge(body, (body.data ?? {}) as Tx, input);
  }

  async function startMobile(input: StartInput): Promise<StartResult> {
    const type = MOBILE_MONEY_TYPES[input.currency];
    if (!type)
      throw new ProviderError('currency_not_supported', `flutterwave: no mobile money in ${input.currency}`, 400);
    const phone = input.payer.phone?.replace(/\D/g, '');
    if (!phone)
      throw new ProviderError('phone_required', 'flutterwave: mobile money needs the payer phone number', 400);
    const network = mobileNetwork(input.currency, phone);
    const body = await charge(
      type,
      {
        tx_ref: input.outTradeNo,
        amount: toMajor(input.amount, input.currency),
        currency: input.currency,
        email: email(input),
        phone_number: phone,
        redirect_url: input.returnUrl,
        meta: meta(input),
        ...(input.payer.name ? { fullname: input.payer.name } : {}),
        ...(network ? { network } : {}),
        ...(type === 'mobile_money_franco' ? { country: francoCountry(phone, input.currency) } : {}),
      },
      input,
    );
    if ('state' in body) return body;
    return fromCharge(body, (body.data ?? {}) as Tx, input);
  }

  /** A charge call; a tx_ref already used (our retried start) answers with that charge's current state. */
  async function charge(type: string, payload: unknown, input: StartInput): Promise<FlwBody | StartResult> {
    asked.set(input.outTradeNo, { amount: input.amount, currency: input.currency });
    try {
      return await call('POST', type === 'tokenized' ? '/v3/tokenized-charges' : `/v3/charges?type=${type}`, payload);
    } catch (err) {
      if (!(err instanceof ProviderError) || err.code !== 'duplicate_reference') throw err;
      const s = result(await verify(`${TX_PREFIX}${input.outTradeNo}`, input.outTradeNo), input.outTradeNo);
      // A pending charge's customer step (3DS page, OTP) was in the lost answer: it cannot be resumed from here.
      if (s.state === 'pending') throw err;
      return {
        ref: s.ref,
        state: s.state,
        action: { kind: 'none' },
        ...(s.failureCode ? { failureCode: s.failureCode } : {}),
      };
    }
  }

  function fromCharge(body: FlwBody, tx: Tx, input: StartInput): StartResult {
    const auth = body.meta?.authorization;
    const ref = tx.id === undefined ? `${TX_PREFIX}${input.outTradeNo}` : String(tx.id);
    if (auth?.mode === 'redirect' && auth.redirect)
      return { ref, state: 'pending', action: { kind: 'redirect', url: auth.redirect } };
    // The issuer sent the customer an OTP (validate-charge flow): the app's OTP screen takes it (submitOtp → complete).
    if (auth?.mode === 'otp' && tx.status === 'pending')
      return {
        ref,
        state: 'pending',
        action: { kind: 'form', url: OTP_SCREEN, fields: { outTradeNo: input.outTradeNo } },
      };
    if (tx.status === undefined) {
      // Mobile money answered without a transaction yet (the prompt is on its way) or an OTP is expected.
      return { ref, state: 'pending', action: { kind: 'push' } };
    }
    const s = result(tx, input.outTradeNo);
    let action: Action = { kind: 'none' };
    if (s.state === 'pending') action = { kind: 'push' };
    return { ref: s.ref, state: s.state, action, ...(s.failureCode ? { failureCode: s.failureCode } : {}) };
  }

  async function flwRefOf(ref: string, outTradeNo?: string): Promise<Tx> {
    const tx = await verify(ref, outTradeNo);
    if (!tx.flw_ref) throw new ProviderError('bad_response', 'flutterwave: transaction without flw_ref');
    return tx;
  }

  /** A refund in the charge's currency; a preauthorisation (captured) is refunded through its own endpoint. */
  async function refund(ref: string, amount: number): Promise<FlwBody> {
    const tx = await verify(ref);
    const major = toMajor(amount, String(tx.currency ?? ''));
    if (tx.charge_type === 'preauth' && tx.flw_ref)
      return call('POST', `/v3/charges/${encodeURIComponent(String(tx.flw_ref))}/refund`, { amount: major });
    return call('POST', `/v3/transactions/${encodeURIComponent(String(tx.id))}/refund`, { amount: major });
  }

  return {
    base,
    asked,
    http,
    call,
    verify,
    expected,
    result,
    email,
    meta,
    startCard,
    startSaved,
    startMobile,
    charge,
    fromCharge,
    flwRefOf,
    refund,
  };
}

export class FlutterwaveMethod extends MethodProvider {
  private readonly w: ReturnType<typeof flutterwaveWire>;

  constructor(
    private readonly config: FlutterwaveConfig,
    deps: AdapterDeps,
  ) {
    super(flutterwaveDefinition, deps);
    this.w = flutterwaveWire(config, deps);
  }

  /** Its transaction and refund lists of [from, to) (settlements/flutterwave.ts). */
  override settlements(from: Date, to: Date): Promise<Settlements> {
    return flutterwaveSettlements((path) => this.w.call('GET', path), from, to);
  }

  async start(input: StartInput): Promise<StartResult> {
    const { startCard, startSaved, startMobile } = this.w;
    const pt = input.payType;
    if (pt === 'Flutterwave' && input.card?.saved) return startSaved(input, input.card.saved.cardRef);
    if (pt === 'Flutterwave') return startCard(input);
    if (pt === 'Flutterwave_Mobile') {
      if (input.capture === 'manual')
        throw new ProviderError('hold_not_supported', 'flutterwave: mobile money cannot be held', 400);
      return startMobile(input);
    }
    throw new ProviderError('pay_type_not_supported', `flutterwave: unknown pay type ${pt}`, 400);
  }

  async status(ref: string, outTradeNo: string): Promise<StatusResult> {
    const { verify, result } = this.w;
    return result(await verify(ref, outTradeNo), outTradeNo);
  }

  override async complete(ref: string, outTradeNo: string, params: Record<string, string>): Promise<StatusResult> {
    const { call, verify, result, flwRefOf } = this.w;
    if (params.otp) {
      const tx = await flwRefOf(ref, outTradeNo);
      if (chargeState(tx.status) === 'pending') {
        try {
          await call('POST', '/v3/validate-charge', { otp: params.otp, flw_ref: tx.flw_ref, type: 'card' });
        } catch (err) {
          // A replay after a lost answer: Flutterwave says it is validated already, and the verify below tells how.
          if (!(err instanceof ProviderError && /already been validated/i.test(err.message))) throw err;
        }
      }
    }
    return result(await verify(ref, outTradeNo), outTradeNo);
  }

  override async capturePayment(ref: string, amount: number, _call?: ProviderCall): Promise<void> {
    const { call, flwRefOf } = this.w;
    const tx = await flwRefOf(ref);
    const currency = String(tx.currency ?? '');
    await call('POST', `/v3/charges/${encodeURIComponent(String(tx.flw_ref))}/capture`, {
      amount: toMajor(amount, currency),
    });
  }

  override async voidPayment(ref: string, _call?: ProviderCall): Promise<void> {
    const { call, flwRefOf } = this.w;
    const tx = await flwRefOf(ref);
    await call('POST', `/v3/charges/${encodeURIComponent(String(tx.flw_ref))}/void`, {});
  }

  async refundPayment(ref: string, amount: number, _call?: ProviderCall): Promise<void> {
    const { refund } = this.w;
    await refund(ref, amount);
  }

  override async payout(input: PayoutInput): Promise<{ ref: string }> {
    const { call, refund } = this.w;
    const d = input.destination;
    if (d.kind === 'card_refund') {
      const body = await refund(d.paymentRef, input.amount);
      if (body.data?.id === undefined) throw new ProviderError('bad_response', 'flutterwave: refund without id');
      return { ref: String(body.data.id) };
    }
    const a = d.account;
    const accountNumber = a.account_number ?? a.accountNumber ?? a.phone;
    // Mobile money transfers name the operator as the bank (MPS: M-Pesa; MTN, VODAFONE, TIGO, AIRTEL, …).
    const accountBank =
      a.account_bank ??
      a.accountBank ??
      a.bankCode ??
      (d.channel === 'mpesa'
        ? 'MPS'
        : d.channel === 'mobile_money' && a.phone
          ? mobileNetwork(input.currency, a.phone)
          : undefined);
    if (!accountNumber || !accountBank)
      throw new ProviderError('invalid_destination', 'flutterwave: account_bank and account_number are required', 400);
    const body = await call('POST', '/v3/transfers', {
      account_bank: accountBank,
      account_number: accountNumber,
      amount: toMajor(input.amount, input.currency),
      currency: input.currency,
      reference: input.idempotencyKey,
      narration: a.narration ?? 'Powerly payout',
      ...((a.beneficiary_name ?? a.name) ? { beneficiary_name: a.beneficiary_name ?? a.name } : {}),
      ...(a.callback_url ? { callback_url: a.callback_url } : {}),
      debit_currency: input.currency,
    });
    if (body.data?.id === undefined) throw new ProviderError('bad_response', 'flutterwave: transfer without id');
    return { ref: String(body.data.id) };
  }

  async readNotification(req: NotificationRequest): Promise<Notification | null> {
    const { config } = this;
    return readNotification(req, config.secretHash);
  }

  override clientConfig(): Record<string, string> {
    const { config } = this;
    return config.publicKey ? { publicKey: config.publicKey } : {};
  }
}
