// Wallet calls (spec §7): wallets, top-up, withdrawal, movements, saved cards.
import { api } from './client.ts';
import type { PaymentMethod } from './payment.ts';
import type { PayoutField } from '../core/wallet.ts';

export interface Wallet {
  pBalance: number;
  pCurrencySymbol: string;
  pCurrencyType: string;
  pDepositAmount: number;
  pDailiId: string;
}

export interface PayoutChannel {
  channelName: string;
  paymentId: string;
  payoutConfig: PayoutField[];
}

export interface ApplyResult {
  refundTypes: number[];
  checkNeedRemark: boolean;
  channels: PayoutChannel[];
}

export interface Movement {
  id: string;
  type: string;
  orderId: string;
  amount: number;
  currency: string;
  pDailiId: string;
  status: string;
  createdAt: string;
}

export interface SavedCard {
  pId: string;
  pCardnumber: string;
  currencyName: string;
  brand?: string;
}

/** GET cdb/user/wallet/new */
export const listWallets = () => api.get<Wallet[]>('cdb/user/wallet/new');

/** GET cdb/payment/method/list?currency&agentId — methods for a wallet's currency. */
export const walletPaymentMethods = (currency: string, agentId?: string) =>
  api.get<PaymentMethod[]>('cdb/payment/method/list', { query: { currency, agentId } });

/** POST cdb/payment/multicurrency/recharge (payType CZ). */
export const recharge = (
  body: { amount: string; currency: string; agentId?: string; paymentId: string | number; stripeToken?: string; cardId?: string },
  idempotencyKey: string,
) => api.post<{ outTradeNo: string; pBalance: number; pCurrencyType: string }>('cdb/payment/multicurrency/recharge', { body, idempotencyKey });

/** POST cdb/mine/tixian/apply {amount} */
export const applyWithdrawal = (body: { amount: string; currency: string; agentId?: string }) =>
  api.post<ApplyResult>('cdb/mine/tixian/apply', { body });

export interface RefundRequest {
  refundType: number;
  amount: string;
  amountType: 'balance';
  agentId?: string;
  currency: string;
  checkNeedRemark?: boolean;
  remark?: string;
  autoAudit?: number;
  receiverAccount?: { paymentId: string; accountData: Record<string, string> };
}

/** POST cdb/mine/tixian/create — the refund request. */
export const createWithdrawal = (r: RefundRequest, idempotencyKey: string) =>
  api.post<{ tixianOrderId: string; pBalance: number; status: string }>('cdb/mine/tixian/create', {
    body: { ...r, receiverAccount: r.receiverAccount ? JSON.stringify(r.receiverAccount) : undefined },
    idempotencyKey,
  });

/** GET cdb/user/wallet/list — movements. */
export const listMovements = (q: { currency?: string; agentId?: string; page: number; pageSize: number }) =>
  api.get<{ page: { records: Movement[]; total: number } }>('cdb/user/wallet/list', { query: q });

/** GET cdb/user/card?userEnd=web&agentId */
export const listCards = (agentId?: string) => api.get<SavedCard[]>('cdb/user/card', { query: { userEnd: 'web', agentId } });

/** POST cdb/user/card/save?paymentId → {clientSecret, paymentId} */
export const startSaveCard = (paymentId: string | number, agentId: string | undefined, currency: string) =>
  api.post<{ clientSecret: string; paymentId: string }>('cdb/user/card/save', { query: { paymentId: String(paymentId), agentId, currency } });

/** POST cdb/user/card/confirm {paymentId, paymentMethod} */
export const confirmSaveCard = (body: { paymentId: string; paymentMethod: string; clientSecret: string }, idempotencyKey: string) =>
  api.post<{ pId: string }>('cdb/user/card/confirm', { body, idempotencyKey });

/** GET cdb/user/card/remove/{cardId} */
export const removeCard = (cardId: string) => api.get<null>(`cdb/user/card/remove/${encodeURIComponent(cardId)}`);
