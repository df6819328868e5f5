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
import { CARD_CURRENCIES, chargeState, mobileNetwork, readNotification, toMajor } from './flutterwave-wire.ts';
import { flutterwaveWire } from './flutterwave-api.ts';

export { OTP_SCREEN } from './flutterwave-api.ts';
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
