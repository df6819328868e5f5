// A cancelled rental's deposit: where it went, and the choice to keep a top-up in the wallet.
import { api } from './client.ts';
import type { DepositBack } from '../contract/returns.ts';

export type { DepositBack };

/** GET cdb/mine/order/deposit?orderId — what became of the deposit of a rental that never started. */
export function getDepositBack(orderId: string): Promise<DepositBack> {
  return api.get<DepositBack>('cdb/mine/order/deposit', { query: { orderId } });
}

/** POST cdb/mine/order/deposit/keep {orderId} — keep the top-up in the wallet instead of the scheduled refund. */
export function keepDeposit(orderId: string): Promise<DepositBack> {
  return api.post<DepositBack>('cdb/mine/order/deposit/keep', { body: { orderId } });
}
