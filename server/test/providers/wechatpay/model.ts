// The WeChat Pay test server's records, merchant keys and errors (see ../wechatpay.ts).
import { generateKeyPairSync, randomBytes, type KeyObject } from 'node:crypto';

export interface Merchant {
  mchId: string;
  appId: string;
  serialNo: string;
  publicKey: KeyObject;
  apiV3Key: string;
  apiV2Key: string;
  serviceId: string;
}

/** A merchant's key pair as the merchant platform issues it (PEM), with a certificate serial. */
export function merchantKeys() {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return {
    privateKeyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    publicKey,
    serialNo: randomBytes(20).toString('hex').toUpperCase(),
  };
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export interface Txn {
  appid: string;
  mchid: string;
  out_trade_no: string;
  transaction_id?: string;
  trade_type: string;
  trade_state: string;
  trade_state_desc: string;
  description: string;
  notify_url: string;
  amount: { total: number; currency: string };
  payer: { openid: string };
  prepay_id: string;
  success_time?: string;
  request: string;
  refunded: number;
}

export interface RefundRec {
  refund_id: string;
  out_refund_no: string;
  transaction_id: string;
  out_trade_no: string;
  status: string;
  create_time: string;
  success_time?: string;
  amount: { total: number; refund: number; currency: string };
  request: string;
}

export interface ServiceOrder {
  appid: string;
  mchid: string;
  service_id: string;
  out_order_no: string;
  service_introduction: string;
  state: 'CREATED' | 'DOING' | 'DONE' | 'REVOKED' | 'EXPIRED';
  state_description?: string;
  risk_fund: { name: string; amount: number; description?: string };
  time_range: { start_time: string; end_time?: string };
  notify_url: string;
  need_collection?: boolean;
  total_amount?: number;
  post_payments?: { name: string; amount: number; description?: string; count?: number }[];
  collection?: {
    state: string;
    total_amount: number;
    paying_amount: number;
    paid_amount: number;
    details: { seq: number; amount: number; paid_type: string; paid_time: string; transaction_id: string }[];
  };
  order_id: string;
  package: string;
  openid?: string;
  request: string;
}

export const iso = (d: Date) => new Date(d.getTime() + 8 * 3_600_000).toISOString().slice(0, 19) + '+08:00';

export const cstNow = (d: Date) =>
  new Date(d.getTime() + 8 * 3_600_000).toISOString().slice(0, 19).replace(/[-T:]/g, '');
