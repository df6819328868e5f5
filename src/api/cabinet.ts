// Scan and rent calls.
import { api } from './client.ts';
import type { RentalKind } from '../core/devices.ts';
import type { ScanResult } from '../contract/cabinets.ts';
import type { BalanceRentResult, DepositRentBody, DepositRentResult } from '../contract/rentals.ts';

/** The scan result (Cabinet), as declared in the contract. */
export type Cabinet = ScanResult;

/** POST cdb/cabinet/checkisok?url={code or code link} — the scan. */
export function checkCabinet(url: string, id?: string, deviceType?: RentalKind): Promise<ScanResult> {
  return api.post<ScanResult>('cdb/cabinet/checkisok', {
    query: { url, id, ...(deviceType && deviceType !== 'cdb' ? { deviceType } : {}) },
  });
}

/** GET cdb/cabinet/useBalanceToRent?qrcode — borrow with the wallet balance. */
export function rentWithBalance(
  qrcode: string,
  idempotencyKey?: string,
  deviceType?: RentalKind,
): Promise<BalanceRentResult> {
  return api.get<BalanceRentResult>('cdb/cabinet/useBalanceToRent', {
    query: { qrcode, ...(deviceType === 'station' ? { deviceType } : {}) },
    idempotencyKey,
  });
}

/** POST cdb/cabinet/useDepositToRent {qrcode, stripeToken, paymentId} — pay the deposit and rent. */
export function rentWithDeposit(p: DepositRentBody, idempotencyKey: string): Promise<DepositRentResult> {
  return api.post<DepositRentResult>('cdb/cabinet/useDepositToRent', {
    body: {
      qrcode: p.qrcode,
      stripeToken: p.stripeToken,
      paymentId: p.paymentId,
      ...(p.deviceType === 'station' ? { deviceType: p.deviceType } : {}),
      ...(p.paymentIntent ? { paymentIntent: p.paymentIntent } : {}),
      ...(p.returnUrl ? { returnUrl: p.returnUrl } : {}),
    },
    idempotencyKey,
  });
}
