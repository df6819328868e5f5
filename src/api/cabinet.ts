// Scan and rent calls.
import { api } from './client.ts';
import type { WirePriceStrategy } from '../core/pricing.ts';

export interface Cabinet {
  cabinetID: string;
  qrcode: string;
  shopid?: string | number;
  shopname?: string;
  shoplogo?: string;
  shopAddress?: string;
  shopTime?: string;
  shopContent?: string;
  currencyName?: string;
  currency?: string;
  jifei?: number;
  jifeiDanwei?: number;
  mianfei?: number;
  fengding?: number;
  yajin?: number;
  yajintype?: number;
  myyue?: number;
  chongzhi?: string;
  overtimeAmount?: number;
  zujieNum?: number;
  haveBatteryCount?: number;
  yajinChongzhi?: string;
  online?: boolean;
  priceStrategy?: WirePriceStrategy;
  /** Wi-Fi battery fields (spec §4 scan flow; the Wi-Fi flows are not part of this product yet). */
  haveMifiBattery?: boolean;
  mifiBatteryCount?: number;
  typeName?: string;
  userWallet?: { pBalance?: number; pCurrencySymbol?: string; pDailiId?: string | number };
}

/** POST cdb/cabinet/checkisok?url={code or code link} — the scan. */
export function checkCabinet(url: string, id?: string): Promise<Cabinet> {
  return api.post<Cabinet>('cdb/cabinet/checkisok', { query: { url, id } });
}

/** GET cdb/cabinet/useBalanceToRent?qrcode — borrow with the wallet balance. */
export function rentWithBalance(qrcode: string, idempotencyKey?: string): Promise<{ outTradNo: string }> {
  return api.get<{ outTradNo: string }>('cdb/cabinet/useBalanceToRent', { query: { qrcode }, idempotencyKey });
}

/** POST cdb/cabinet/useDepositToRent {qrcode, stripeToken, paymentId} — pay the deposit and rent. */
export function rentWithDeposit(
  p: { qrcode: string; stripeToken: string; paymentId: string | number },
  idempotencyKey: string,
): Promise<{ outTradeNo: string }> {
  return api.post<{ outTradeNo: string }>('cdb/cabinet/useDepositToRent', {
    body: { qrcode: p.qrcode, stripeToken: p.stripeToken, paymentId: p.paymentId },
    idempotencyKey,
  });
}
