// The Alipay test server's records, keys, signatures and errors (see ../alipay.ts).
import { createSign, createVerify, generateKeyPairSync } from 'node:crypto';

export const pem = () => {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return {
    privateKey: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    publicKey: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
  };
};

/** A fresh RSA key pair in PEM (the app's key pair, as the Open Platform's key tool makes it). */
export const makeKeys = pem;

export const content = (p: Record<string, string>, exclude: string[]) =>
  Object.keys(p)
    .filter((k) => !exclude.includes(k) && p[k] !== '')
    .sort()
    .map((k) => `${k}=${p[k]}`)
    .join('&');
export const sign = (text: string, key: string) => createSign('RSA-SHA256').update(text, 'utf8').sign(key, 'base64');
export const verify = (text: string, sig: string, key: string) => {
  try {
    return createVerify('RSA-SHA256').update(text, 'utf8').verify(key, sig, 'base64');
  } catch {
    return false;
  }
};
export const fen = (yuan: unknown): number | null => {
  const s = typeof yuan === 'number' ? yuan.toFixed(2) : String(yuan ?? '');
  if (!/^\d+(\.\d{1,2})?$/.test(s)) return null;
  const [w, f = ''] = s.split('.');
  return Number(w) * 100 + Number((f + '00').slice(0, 2));
};
export const yuan = (n: number) => `${Math.floor(n / 100)}.${String(n % 100).padStart(2, '0')}`;
export const chinaTime = (ms: number) => new Date(ms + 8 * 3600_000).toISOString().slice(0, 19).replace('T', ' ');

export class Fail extends Error {
  constructor(
    readonly code: string,
    readonly msg: string,
    readonly subCode?: string,
    readonly subMsg?: string,
    readonly extra: Record<string, string> = {},
  ) {
    super(subMsg ?? msg);
  }
}
export const business = (subCode: string, subMsg: string, extra: Record<string, string> = {}) =>
  new Fail('40004', 'Business Failed', subCode, subMsg, extra);
export const invalid = (subCode: string, subMsg: string) => new Fail('40002', 'Invalid Arguments', subCode, subMsg);
export const missing = (name: string) =>
  new Fail('40001', 'Missing Required Arguments', `isv.missing-${name.replaceAll('_', '-')}`, `缺少必选参数 ${name}`);

export interface Buyer {
  userId: string;
  openId: string;
  logonId: string;
  name: string;
  /** Balance in fen. */
  balance: number;
  /** Account restricted by Alipay (trade creation refused: ACQ.BUYER_ENABLE_STATUS_FORBID). */
  forbidden?: boolean;
}

export interface Trade {
  tradeNo: string;
  outTradeNo: string;
  status: 'WAIT_BUYER_PAY' | 'TRADE_SUCCESS' | 'TRADE_CLOSED' | 'TRADE_FINISHED';
  total: number;
  refunded: number;
  subject: string;
  buyerId?: string;
  buyerOpenId?: string;
  notifyUrl?: string;
  created: number;
  paidAt?: number;
  authNo?: string;
  refunds: Map<string, { amount: number; answer: Record<string, string> }>;
  bizHash: string;
}

export interface AuthOrder {
  authNo: string;
  outOrderNo: string;
  outRequestNo: string;
  operationId: string;
  title: string;
  /** INIT while the operation was cancelled/not frozen, AUTHORIZED while frozen, FINISH once all settled, CLOSED when cancelled. */
  orderStatus: 'INIT' | 'AUTHORIZED' | 'FINISH' | 'CLOSED';
  /** The freeze operation's status. */
  status: 'INIT' | 'SUCCESS' | 'CLOSED';
  frozen: number;
  rest: number;
  paid: number;
  unfrozen: number;
  payer: Buyer;
  notifyUrl?: string;
  unfreezes: Map<string, number>;
}

/** One gateway call as the API areas read it: its parameters, its biz_content and readers of that. */
export interface Call {
  p: Record<string, string>;
  b: Record<string, unknown>;
  str: (k: string) => string | undefined;
  need: (k: string) => string;
  app: { appCertSn?: string; alipayRootCertSn?: string };
}
