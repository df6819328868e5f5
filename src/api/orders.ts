// Rental order calls.
import { api } from './client.ts';
import type { Order, OrderCheck, OrderPage, OrderShare, PublicOrder } from '../contract/rentals.ts';

export type { Order, OrderCheck, OrderPage, OrderShare, PublicOrder };

export const ORDER_PAGE_SIZE = 10;

/** GET cdb/mine/order/list?page&pageSize — open orders first, then newest. */
export function listOrders(page: number, pageSize = ORDER_PAGE_SIZE): Promise<OrderPage> {
  return api.get<OrderPage>('cdb/mine/order/list', { query: { page, pageSize } });
}

/** GET cdb/mine/order/detail?orderId. */
export function getOrder(orderId: string): Promise<Order> {
  return api.get<Order>('cdb/mine/order/detail', { query: { orderId } });
}

/** POST cdb/mine/order/check/{tradeNo}/{payMode} — code 1 'Processing' until the cabinet answered. */
export function checkOrder(tradeNo: string, payMode: string, signal?: AbortSignal): Promise<OrderCheck> {
  // The contract's data is null only with code 1 ('Processing'), which the client raises as an ApiError.
  return api.post<OrderCheck>(`cdb/mine/order/check/${encodeURIComponent(tradeNo)}/${encodeURIComponent(payMode)}`, {
    signal,
  });
}

/** POST cdb/order/buyOrder {orderId} — keep the power bank of an open rental for the buy-out fee. */
export function buyOrder(orderId: string, idempotencyKey?: string): Promise<Order> {
  return api.post<Order>('cdb/order/buyOrder', { body: { orderId }, idempotencyKey });
}

/** POST cdb/mine/order/share {orderId} — the owner's share sign for the token-less detail. */
export function shareOrder(orderId: string): Promise<OrderShare> {
  return api.post<OrderShare>('cdb/mine/order/share', { body: { orderId } });
}

/** GET cdb/mine/order/detail/public?orderId&sign — no token on this call. */
export function getPublicOrder(orderId: string, sign: string): Promise<PublicOrder> {
  return api.get<PublicOrder>('cdb/mine/order/detail/public', { query: { orderId, sign }, noToken: true });
}
