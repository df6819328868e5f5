// The Flutterwave test server's test cards, mobile-money networks, records and errors (see ../flutterwave.ts).

export type Outcome = 'ok' | 'insufficient' | 'declined' | 'fraud';
export interface TestCard {
  auth: 'noauth' | 'pin' | 'avs_noauth' | 'redirect' | 'otp';
  outcome: Outcome;
  cvv: string;
  brand: string;
}
/** Flutterwave's v3 test cards (developer.flutterwave.com/docs/testing). */
export const TEST_CARDS: Record<string, TestCard> = {
  '5531886652142950': { auth: 'pin', outcome: 'ok', cvv: '564', brand: 'MASTERCARD' },
  '4187427415564246': { auth: 'redirect', outcome: 'ok', cvv: '828', brand: 'VISA' },
  '5438898014560229': { auth: 'redirect', outcome: 'ok', cvv: '564', brand: 'MASTERCARD' },
  '5061460166976054667': { auth: 'noauth', outcome: 'ok', cvv: '564', brand: 'VERVE' },
  '4556052704172643': { auth: 'avs_noauth', outcome: 'ok', cvv: '899', brand: 'VISA' },
  '5377283645077450': { auth: 'noauth', outcome: 'ok', cvv: '789', brand: 'MASTERCARD' },
  '5143010522339965': { auth: 'noauth', outcome: 'declined', cvv: '276', brand: 'MASTERCARD' },
  '5590131743294314': { auth: 'noauth', outcome: 'fraud', cvv: '887', brand: 'MASTERCARD' },
  '5258585922666506': { auth: 'noauth', outcome: 'insufficient', cvv: '883', brand: 'MASTERCARD' },
};
export const PROCESSOR: Record<Outcome, string> = {
  ok: 'Approved',
  insufficient: 'Insufficient Funds',
  declined: 'Do Not Honour',
  fraud: 'Transaction declined: suspected fraud',
};
export const TEST_PIN = '3310';
export const TEST_OTP = '12345';

export const MOBILE: Record<string, { currency: string[]; redirect: boolean; needs?: string[] }> = {
  mpesa: { currency: ['KES'], redirect: false },
  mobile_money_ghana: { currency: ['GHS'], redirect: true, needs: ['network'] },
  mobile_money_uganda: { currency: ['UGX'], redirect: true },
  mobile_money_rwanda: { currency: ['RWF'], redirect: false },
  mobile_money_zambia: { currency: ['ZMW'], redirect: false },
  mobile_money_tanzania: { currency: ['TZS'], redirect: false },
  mobile_money_franco: { currency: ['XAF', 'XOF'], redirect: false, needs: ['country'] },
};

export interface FlwTx {
  id: number;
  tx_ref: string;
  flw_ref: string;
  amount: number;
  charged_amount: number;
  currency: string;
  status: 'pending' | 'successful' | 'failed' | 'pending-capture' | 'voided';
  payment_type: string;
  charge_type: 'normal' | 'preauth';
  processor_response: string;
  auth_model: string;
  meta: Record<string, unknown> | null;
  customer: { email: string; phone_number: string | null };
  created_at: string;
  card?: { first_6digits: string; last_4digits: string; issuer: string; country: string; type: string; expiry: string };
  /** Model state (not on the wire). */
  cardToken?: string;
  held: number;
  refunded: number;
  awaiting: 'none' | 'otp' | 'redirect' | 'phone';
}
export interface FlwTransfer {
  id: number;
  reference: string;
  account_number: string;
  bank_code: string;
  amount: number;
  currency: string;
  status: 'NEW' | 'PENDING' | 'SUCCESSFUL' | 'FAILED';
  narration: string;
  complete_message: string;
  created_at: string;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly data: unknown = null,
  ) {
    super(message);
  }
}

export function cardOf(number: string, card: TestCard | undefined, month: string, year: string) {
  return {
    first_6digits: number.slice(0, 6),
    last_4digits: number.slice(-4),
    issuer: `${card?.brand ?? 'CARD'} CREDIT`,
    country: 'NIGERIA NG',
    type: card?.brand ?? 'CARD',
    expiry: `${month}/${year}`,
  };
}
