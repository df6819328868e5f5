// Calls only the payment screens make (their lazy chunks, never a first load): saving and paying with the cards of
// a method beyond the card provider (Mercado Pago card save), and Monri's remembered billing (user/more).
import { api } from './client.ts';
import type { MoreBody, MoreValues } from '../contract/auth.ts';
import type { DepositRentResult, SavedCardRentBody } from '../contract/rentals.ts';
import type { CardConfirmResult, CardTokenSaveBody } from '../contract/wallet.ts';
import type { OtpBody, OtpResult } from '../contract/payments.ts';

/** POST cdb/user/card/saveToken {paymentId, token, paymentMethodId, issuerId, email}: a method's card token saved (Mercado Pago). */
export const saveTokenCard = (body: CardTokenSaveBody, idempotencyKey: string) =>
  api.post<CardConfirmResult>('cdb/user/card/saveToken', { body, idempotencyKey });

/** POST cdb/cabinet/savedCardToRent {qrcode, cardId, paymentId} — pay the deposit with a saved card and rent. */
export function rentWithSavedCard(p: SavedCardRentBody, idempotencyKey: string): Promise<DepositRentResult> {
  return api.post<DepositRentResult>('cdb/cabinet/savedCardToRent', {
    body: {
      qrcode: p.qrcode,
      cardId: p.cardId,
      paymentId: p.paymentId,
      ...(p.deviceType === 'station' ? { deviceType: p.deviceType } : {}),
      ...(p.returnUrl ? { returnUrl: p.returnUrl } : {}),
    },
    idempotencyKey,
  });
}

/** GET user/more?keys=monriBilling → each key's stored JSON text (null when none). */
export function getUserMore(keys: string): Promise<MoreValues> {
  return api.get<MoreValues>('user/more', { query: { keys } });
}

/** POST user/more {monriBilling: JSON text}. */
export function setUserMore(body: MoreBody): Promise<null> {
  return api.post<null>('user/more', { body });
}

/** POST cdb/payment/method/otp {outTradeNo, otp}: the issuer's one-time code of a card charge (Flutterwave), once. */
export const submitCardOtp = (body: OtpBody, idempotencyKey: string) =>
  api.post<OtpResult>('cdb/payment/method/otp', { body, idempotencyKey });
