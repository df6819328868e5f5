// Wallet calls: wallets, top-up, withdrawal, movements, saved cards.
import { api } from './client.ts';
import type { PaymentMethod } from './payment.ts';
import type {
  CardConfirmBody,
  CardConfirmResult,
  CardSetup,
  MovementPage,
  MovementsQuery,
  PayoutChannel,
  RechargeBody,
  RechargeResult,
  SavedCard,
  Wallet,
  WithdrawApplyBody,
  WithdrawApplyResult,
  WithdrawCreateBody,
  WithdrawCreateResult,
} from '../contract/wallet.ts';

export type { Movement, PayoutChannel, SavedCard, Wallet } from '../contract/wallet.ts';
/** The withdrawal apply answer. */
export type ApplyResult = WithdrawApplyResult;

/** The withdrawal request as the screens build it; receiverAccount is sent as JSON text. */
export type RefundRequest = Omit<WithdrawCreateBody, 'receiverAccount'> & {
  receiverAccount?: { paymentId: PayoutChannel['paymentId']; accountData: Record<string, string> };
};

/** GET cdb/user/wallet/new */
export const listWallets = () => api.get<Wallet[]>('cdb/user/wallet/new');

/** GET cdb/payment/method/list?currency&agentId — methods for a wallet's currency. */
export const walletPaymentMethods = (currency: string, agentId?: string) =>
  api.get<PaymentMethod[]>('cdb/payment/method/list', { query: { currency, agentId } });

/** POST cdb/payment/multicurrency/recharge (payType CZ). */
export const recharge = (body: RechargeBody, idempotencyKey: string) =>
  api.post<RechargeResult>('cdb/payment/multicurrency/recharge', { body, idempotencyKey });

/** POST cdb/mine/tixian/apply {amount} */
export const applyWithdrawal = (body: WithdrawApplyBody) =>
  api.post<WithdrawApplyResult>('cdb/mine/tixian/apply', { body });

/** POST cdb/mine/tixian/create — the refund request. */
export const createWithdrawal = (r: RefundRequest, idempotencyKey: string) =>
  api.post<WithdrawCreateResult>('cdb/mine/tixian/create', {
    body: { ...r, receiverAccount: r.receiverAccount ? JSON.stringify(r.receiverAccount) : undefined },
    idempotencyKey,
  });

/** GET cdb/user/wallet/list — movements. */
export const listMovements = (q: MovementsQuery) => api.get<MovementPage>('cdb/user/wallet/list', { query: q });

/** GET cdb/user/card?userEnd=web&agentId */
export const listCards = (agentId?: string) =>
  api.get<SavedCard[]>('cdb/user/card', { query: { userEnd: 'web', agentId } });

/** POST cdb/user/card/save?paymentId → {clientSecret, paymentId} */
export const startSaveCard = (paymentId: string, agentId: string | undefined, currency: string) =>
  api.post<CardSetup>('cdb/user/card/save', { query: { paymentId, agentId, currency } });

/** POST cdb/user/card/confirm {paymentId, paymentMethod} */
export const confirmSaveCard = (body: CardConfirmBody, idempotencyKey: string) =>
  api.post<CardConfirmResult>('cdb/user/card/confirm', { body, idempotencyKey });

/** GET cdb/user/card/remove/{cardId} */
export const removeCard = (cardId: string) => api.get<null>(`cdb/user/card/remove/${encodeURIComponent(cardId)}`);
