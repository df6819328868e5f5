// Receipts (GET cdb/invoice/check, POST cdb/invoice/sendCdbOrderReceipt): built by the server, shown by the flows.
import { Type, type Static } from 'typebox';

export const Receipt = Type.Object({
  orderId: Type.String(),
  shopName: Type.String(),
  returnShopName: Type.String(),
  borrowTime: Type.String(),
  returnTime: Type.Union([Type.String(), Type.Null()]),
  ended: Type.Boolean(),
  currency: Type.String(),
  amount: Type.Number({ description: 'charged rent (ended) or the estimate so far (open), major units' }),
  deposit: Type.Number(),
  useMinutes: Type.Integer(),
  lastEmail: Type.Union([Type.String(), Type.Null()]),
  /** Powerly extension: the device rented (src/core/devices.ts) and its id. */
  deviceType: Type.Union([Type.Literal('cdb'), Type.Literal('station'), Type.Literal('mifi')]),
  deviceId: Type.String(),
});
export type Receipt = Static<typeof Receipt>;

export const InvoiceCheckQuery = Type.Object({ orderId: Type.String({ minLength: 1, maxLength: 64 }) });
export type InvoiceCheckQuery = Static<typeof InvoiceCheckQuery>;
/** The receipt, or null (not yet / cancelled). */
export const InvoiceCheckResult = Type.Union([Receipt, Type.Null()]);
export type InvoiceCheckResult = Static<typeof InvoiceCheckResult>;

export const SendReceiptBody = Type.Object({
  orderId: Type.String({ minLength: 1, maxLength: 64 }),
  email: Type.String({ maxLength: 400, default: '' }),
});
export type SendReceiptBody = Static<typeof SendReceiptBody>;
