// Flutterwave's v3 API as FlutterwaveMethod (flutterwave.ts) calls it: the authenticated call, the verification of a
// transaction against what we asked, and the card, saved-card and mobile money charges with their customer steps.
import {
  ProviderError,
  type Action,
  type AdapterDeps,
  type StartInput,
  type StartResult,
  type StatusResult,
} from './adapter.ts';
import { httpClient } from './http.ts';
import type { FlutterwaveConfig } from './flutterwave.ts';
import {
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
  toMajor,
  toMinor,
  type FlwBody,
  type Tx,
} from './flutterwave-wire.ts';

/** The app's OTP entry screen (src/pay/CardOtp.tsx): a card charge answering `meta.authorization.mode: otp`. */
export const OTP_SCREEN = '#/CardOtp';

/** The provider's API as FlutterwaveMethod calls it: the connection and the helpers its wire operations share. */
export function flutterwaveWire(config: FlutterwaveConfig, deps: AdapterDeps) {
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
