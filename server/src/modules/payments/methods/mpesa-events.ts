// Daraja's callbacks read into our notification (mpesa.ts checks their secret token first): the STK push's result
// (the paid ref with its M-Pesa receipt), and the results of a reversal or a B2C payout posted to the ResultURL.
import type { Notification } from './adapter.ts';
import { fromShillings, paidRef, remember, stkOutcome } from './mpesa-wire.ts';

/** The STK push's callback; a paid one's ref (with its receipt) is kept in `receipts` for status() and refunds. */
export function stkCallback(
  stk: Record<string, unknown>,
  query: Record<string, string>,
  ack: Notification['ack'],
  receipts: Map<string, string>,
): Notification | null {
  const checkoutId = stk.CheckoutRequestID;
  if (typeof checkoutId !== 'string' || !checkoutId || stk.ResultCode === undefined) return null;
  const code = String(stk.ResultCode);
  const items = (stk.CallbackMetadata as { Item?: { Name?: string; Value?: unknown }[] } | undefined)?.Item ?? [];
  const item = (name: string) => items.find((i) => i.Name === name)?.Value;
  const outcome = stkOutcome(code);
  const n: Notification = {
    eventId: `${checkoutId}:${code}`,
    ref: checkoutId,
    state: outcome.state,
    ack,
    ...(query.otn ? { outTradeNo: query.otn } : {}),
  };
  const kes = Number(item('Amount'));
  const receipt = item('MpesaReceiptNumber');
  if (outcome.state === 'paid' && Number.isFinite(kes) && typeof receipt === 'string' && /^[A-Z0-9]+$/i.test(receipt)) {
    n.amount = fromShillings(kes);
    n.currency = 'KES';
    n.ref = paidRef(checkoutId, receipt, n.amount);
    remember(receipts, checkoutId, n.ref);
  }
  return n;
}

/** The result of a reversal (kind reversal) or a B2C payout (kind b2c), or its queue timeout. */
export function resultCallback(
  result: Record<string, unknown>,
  query: Record<string, string>,
  ack: Notification['ack'],
): Notification | null {
  const kind = query.kind!;
  const originator = result.OriginatorConversationID;
  if (typeof originator !== 'string' || !originator) return null;
  if (query.timeout === '1')
    return { eventId: `${kind}:${originator}:timeout`, ref: kind === 'b2c' ? originator : query.ref, ack };
  if (result.ResultCode === undefined) return null;
  const code = String(result.ResultCode);
  const n: Notification = { eventId: `${kind}:${originator}:${code}`, ack };
  if (kind === 'reversal') {
    // The payment the reversal was for (our ref, carried in the ResultURL); no payment state changes here.
    n.ref = query.ref;
    return n;
  }
  const params =
    (result.ResultParameters as { ResultParameter?: { Key?: string; Value?: unknown }[] } | undefined)
      ?.ResultParameter ?? [];
  const amount = Number(params.find((p) => p.Key === 'TransactionAmount')?.Value);
  n.ref = originator;
  n.state = code === '0' ? 'paid' : 'failed';
  if (code === '0' && Number.isFinite(amount)) {
    n.amount = fromShillings(amount);
    n.currency = 'KES';
  }
  return n;
}
