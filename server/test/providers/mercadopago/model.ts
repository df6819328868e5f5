// The Mercado Pago test server's test cards, outcomes, records and errors (see ../mercadopago.ts).

export const TEST_CARDS: Record<string, { brand: string; type: string }> = {
  '5031433215406351': { brand: 'master', type: 'credit_card' },
  '4509953566233704': { brand: 'visa', type: 'credit_card' },
  '4235647728025682': { brand: 'visa', type: 'credit_card' },
  '5474925432670366': { brand: 'master', type: 'credit_card' },
  '371180303257522': { brand: 'amex', type: 'credit_card' },
};

/** Cardholder name → [status, status_detail]. */
export const OUTCOMES: Record<string, [string, string]> = {
  APRO: ['approved', 'accredited'],
  OTHE: ['rejected', 'cc_rejected_other_reason'],
  CALL: ['rejected', 'cc_rejected_call_for_authorize'],
  FUND: ['rejected', 'cc_rejected_insufficient_amount'],
  SECU: ['rejected', 'cc_rejected_bad_filled_security_code'],
  EXPI: ['rejected', 'cc_rejected_bad_filled_date'],
  FORM: ['rejected', 'cc_rejected_bad_filled_other'],
  CONT: ['in_process', 'pending_contingency'],
};

export interface Token {
  id: string;
  card: string;
  holder: string;
  used: boolean;
  live: boolean;
  customer?: string;
}
export interface FakePayment {
  id: number;
  status: string;
  status_detail: string;
  transaction_amount: number;
  transaction_amount_refunded: number;
  currency_id: string;
  captured: boolean;
  external_reference: string | null;
  description: string;
  payment_method_id: string;
  installments: number;
  payer: { email: string };
  notification_url: string | null;
  date_created: string;
  date_last_updated: string;
  card: { last_four_digits: string; first_six_digits: string; cardholder: { name: string } };
  refunds: { id: number; payment_id: number; amount: number; status: string }[];
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly error: string,
    message: string,
    override readonly cause: { code: number | string; description: string }[] = [],
  ) {
    super(message);
  }
}

export const round2 = (n: number) => Math.round(n * 100) / 100;
