// Rental order calls.
import { api } from './client.ts';
import type { PricePlan } from '../core/pricing.ts';

export interface Order {
  pOrderid: string;
  pType?: string;
  pZujie: number;
  pJiesuanid: number;
  pBorrowtime?: string;
  pGhtime?: string | null;
  pShopName?: string;
  pGhShopName?: string | null;
  pUseMins?: number;
  pJiesuan?: number;
  pCurrency?: string;
  pCurrencyName?: string;
  pYajin?: number;
  pJifei?: number;
  pJifeiDanwei?: number;
  pFengding?: number;
  priceUnit?: number;
  overtimeAmount?: number;
  pCabinetid?: string;
  pPowerbankId?: string | null;
  palipayjsSm?: string | null;
  estimatedAmount?: number;
  /** Powerly: closed as bought out (overtime, or the user bought it). */
  boughtOut?: boolean;
  /** Powerly: when an open order is bought out if still not returned (ISO). */
  buyOutAt?: string | null;
  /** Powerly: the buy-out fee. */
  buyOutAmount?: number;
}

export interface OrderPage {
  page: { records: Order[]; total: number; current: number; size: number };
}

export const ORDER_PAGE_SIZE = 10;

/** GET cdb/mine/order/list?page&pageSize — open orders first, then newest. */
export function listOrders(page: number, pageSize = ORDER_PAGE_SIZE): Promise<OrderPage> {
  return api.get<OrderPage>('cdb/mine/order/list', { query: { page, pageSize } });
}

/** GET cdb/mine/order/detail?orderId. */
export function getOrder(orderId: string): Promise<Order> {
  return api.get<Order>('cdb/mine/order/detail', { query: { orderId } });
}

export interface OrderCheck {
  orderId: string;
  orderStatus: number;
  type?: string;
  out_trade_no?: string;
  pay_type?: string;
  shebei?: string;
  number?: string | number;
}

/** POST cdb/mine/order/check/{tradeNo}/{payMode} — code 1 'Processing' until the cabinet answered. */
export function checkOrder(tradeNo: string, payMode: string, signal?: AbortSignal): Promise<OrderCheck> {
  return api.post<OrderCheck>(`cdb/mine/order/check/${encodeURIComponent(tradeNo)}/${encodeURIComponent(payMode)}`, {
    signal,
  });
}

/** POST cdb/order/buyOrder {orderId} — keep the power bank of an open rental for the buy-out fee. */
export function buyOrder(orderId: string, idempotencyKey?: string): Promise<Order> {
  return api.post<Order>('cdb/order/buyOrder', { body: { orderId }, idempotencyKey });
}

/** The token-less order detail (spec §2): what GET cdb/mine/order/detail/public returns — no user fields. */
export interface PublicOrder
  extends Pick<Order, 'pOrderid' | 'pZujie' | 'pJiesuanid' | 'pBorrowtime' | 'pGhtime' | 'pShopName' | 'pGhShopName' | 'pUseMins'
    | 'pJiesuan' | 'pCurrency' | 'pCurrencyName' | 'pYajin' | 'pJifei' | 'pJifeiDanwei' | 'pFengding' | 'priceUnit'
    | 'overtimeAmount' | 'estimatedAmount' | 'boughtOut' | 'buyOutAt' | 'buyOutAmount'> {
  /** The order's price plan (minor units): the live estimate uses src/core/pricing.ts. */
  plan: PricePlan;
  /** Order state 4: when the power bank was reported faulty (ISO); the estimate stops there. */
  faultAt?: string | null;
  /** The server's clock when it answered (ISO): the elapsed time runs from it. */
  serverTime: string;
}

/** POST cdb/mine/order/share {orderId} — the owner's share sign for the token-less detail. */
export function shareOrder(orderId: string): Promise<{ orderId: string; sign: string }> {
  return api.post<{ orderId: string; sign: string }>('cdb/mine/order/share', { body: { orderId } });
}

/** GET cdb/mine/order/detail/public?orderId&sign — no token on this call (spec §2). */
export function getPublicOrder(orderId: string, sign: string): Promise<PublicOrder> {
  return api.get<PublicOrder>('cdb/mine/order/detail/public', { query: { orderId, sign }, noToken: true });
}
