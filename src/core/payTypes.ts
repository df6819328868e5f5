// The payment types and what follows a payment, as pure rules (the confirm screen and tests use them).
//   YJ cabinet deposit · FK pay an existing order (after a failed deduction) · CZ wallet top-up ·
//   mifi device/package order (the Wi-Fi flows) · overbuy buy the power bank (then the invoice)

export const PAY_TYPES = ['YJ', 'FK', 'CZ', 'mifi', 'overbuy'] as const;
export type PayType = (typeof PAY_TYPES)[number];

/** Every query parameter /confirm reads. */
export interface ConfirmQuery {
  price: string;
  payType: PayType;
  outTradeNo: string;
  cabinetID: string;
  mifiOrderId: string;
  paymentId: string;
  pmid: string;
  formId: string;
  yaJinType: string;
  paymentWay: string;
  pType: string;
  orderId: string;
  qrcode: string;
  /** Back from a redirect method or a 3-D Secure page: the payment to resume. */
  paymentIntent: string;
  /** Powerly extension: the currency of a CZ top-up (else the cabinet's). */
  currency: string;
  /** Powerly extension: payType mifi with mifiOrderId pays that package's box deposit (cabinetDisposit), not the package. */
  mifiDeposit: boolean;
}

export function readConfirmQuery(q: URLSearchParams): ConfirmQuery {
  const get = (k: string) => q.get(k) ?? '';
  const raw = get('payType');
  const payType = (PAY_TYPES as readonly string[]).includes(raw) ? (raw as PayType) : 'YJ';
  return {
    price: get('price'),
    payType,
    outTradeNo: get('outTradeNo'),
    cabinetID: get('cabinetID'),
    mifiOrderId: get('mifiOrderId'),
    paymentId: get('paymentId') || get('pmid'),
    pmid: get('pmid'),
    formId: get('formId'),
    yaJinType: get('yaJinType'),
    paymentWay: get('paymentWay'),
    pType: get('pType'),
    orderId: get('orderId'),
    qrcode: get('qrcode'),
    paymentIntent: get('payment_intent'),
    currency: get('currency').toUpperCase(),
    mifiDeposit: get('mifiDeposit') === '1',
  };
}

/**
 * Where a successful payment leads ("After payment"): CZ → /mine (after its success dialog); overbuy →
 * /invoiceOrderDtl; FK → /borrowSuccess with payType=FK (its check then goes to /order); the others →
 * /borrowSuccess with the trade number — except mifi: a package order has no eject to wait for, so it goes to
 * the user's package orders (/scanOrder), where its box is picked up; a box deposit goes back to the pickup. A
 * WeChat Pay score authorisation goes to /result.
 */
export function afterPaymentPath(
  payType: PayType,
  orderNo: string,
  opts: { mifiDeposit?: boolean; score?: boolean } = {},
): string {
  const qs = (o: Record<string, string>) => `?${new URLSearchParams(o).toString()}`;
  // WeChat Pay score (a deposit-free rental): its authorisation, once confirmed, ends on /result.
  if (opts.score && payType === 'YJ') return `/result${qs({ tradeNo: orderNo, payMode: 'YJ', payType: 'WeChat_MP' })}`;
  switch (payType) {
    case 'CZ':
      return '/mine';
    case 'overbuy':
      return `/invoiceOrderDtl${qs({ orderId: orderNo })}`;
    case 'FK':
      return `/borrowSuccess${qs({ tradeNo: orderNo, payType: 'FK' })}`;
    case 'mifi':
      return opts.mifiDeposit
        ? `/pickUp${qs({ orderId: orderNo, deposit: 'paid' })}`
        : `/scanOrder${qs({ orderId: orderNo })}`;
    default:
      return `/borrowSuccess${qs({ tradeNo: orderNo, payType })}`;
  }
}

/** A failed CZ top-up returns to the wallet after this delay. */
export const CZ_FAILURE_BACK_MS = 1500;
