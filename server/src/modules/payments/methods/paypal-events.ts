// PayPal's webhook events read into our notification: which payment, its state and amount (paypal.ts verifies
// them).
import type { ExternalState, Notification } from './adapter.ts';
import { fromPaypalValue, type Link } from './paypal-wire.ts';

/** What a verified event says about which payment and its state. */
export function readEvent(type: string, r: Record<string, unknown>): Omit<Notification, 'eventId' | 'ack'> {
  const str = (v: unknown) => (typeof v === 'string' && v ? v : undefined);
  const amountOf = (m: unknown) => {
    const x = m as { value?: string; currency_code?: string; currency?: string } | undefined;
    const currency = x?.currency_code ?? x?.currency;
    return x?.value && currency ? { amount: fromPaypalValue(x.value, currency), currency } : {};
  };
  const outTradeNo = str(r.custom_id) ?? str(r.invoice_id);
  const id = str(r.id);
  switch (type) {
    case 'PAYMENT.CAPTURE.COMPLETED':
    case 'PAYMENT.CAPTURE.PENDING':
    case 'PAYMENT.CAPTURE.DENIED':
    case 'PAYMENT.CAPTURE.DECLINED': {
      const state =
        type === 'PAYMENT.CAPTURE.COMPLETED' ? 'paid' : type === 'PAYMENT.CAPTURE.PENDING' ? 'pending' : 'failed';
      return { ref: id && `capture:${id}`, outTradeNo, state, ...amountOf(r.amount) };
    }
    case 'PAYMENT.CAPTURE.REFUNDED':
    case 'PAYMENT.CAPTURE.REVERSED': {
      // The resource is the refund; its `up` link is the capture it returns money from.
      const up = (r.links as Link[] | undefined)?.find((l) => l.rel === 'up')?.href;
      const captureId = up ? /\/captures\/([A-Za-z0-9]+)$/.exec(up)?.[1] : undefined;
      return { ref: captureId ? `capture:${captureId}` : undefined, outTradeNo, ...amountOf(r.amount) };
    }
    case 'PAYMENT.AUTHORIZATION.CREATED':
      return { ref: id && `auth:${id}`, outTradeNo, state: 'authorized', ...amountOf(r.amount) };
    case 'PAYMENT.AUTHORIZATION.VOIDED':
      return { ref: id && `auth:${id}`, outTradeNo, state: 'cancelled', ...amountOf(r.amount) };
    case 'CHECKOUT.ORDER.APPROVED':
    case 'CHECKOUT.ORDER.COMPLETED': {
      const unit = (
        r.purchase_units as
          { custom_id?: string; invoice_id?: string; reference_id?: string; amount?: unknown }[] | undefined
      )?.[0];
      return {
        ref: id && `order:${id}`,
        outTradeNo: str(unit?.custom_id) ?? str(unit?.invoice_id) ?? str(unit?.reference_id),
        state: 'pending',
        ...amountOf(unit?.amount),
      };
    }
    case 'PAYMENT.PAYOUTS-ITEM.SUCCEEDED':
    case 'PAYMENT.PAYOUTS-ITEM.FAILED':
    case 'PAYMENT.PAYOUTS-ITEM.DENIED':
    case 'PAYMENT.PAYOUTS-ITEM.BLOCKED':
    case 'PAYMENT.PAYOUTS-ITEM.RETURNED':
    case 'PAYMENT.PAYOUTS-ITEM.CANCELED':
    case 'PAYMENT.PAYOUTS-ITEM.REFUNDED':
    case 'PAYMENT.PAYOUTS-ITEM.HELD':
    case 'PAYMENT.PAYOUTS-ITEM.UNCLAIMED': {
      // UNCLAIMED: the payee has no PayPal account yet (30 days to claim); HELD: under review; REFUNDED: an
      // unclaimed item went back to us.
      const batch = str(r.payout_batch_id);
      const state: ExternalState = type.endsWith('SUCCEEDED')
        ? 'paid'
        : type.endsWith('UNCLAIMED') || type.endsWith('HELD')
          ? 'pending'
          : type.endsWith('CANCELED')
            ? 'cancelled'
            : 'failed';
      const errors = r.errors as { name?: string } | undefined;
      return {
        ref: batch && `payout:${batch}`,
        state,
        ...amountOf((r.payout_item as { amount?: unknown } | undefined)?.amount),
        ...(state === 'failed' ? { failureCode: errors?.name ?? str(r.transaction_status) ?? 'FAILED' } : {}),
      } as Omit<Notification, 'eventId' | 'ack'>;
    }
    default:
      return {};
  }
}
