// The tourist invoice e-mail box of /borrowSuccess: shown for tourist users when the invoice check returns
// data ("Tourist invoice"), after the tourist invoice's 500 ms delay.
import { useEffect, useState } from 'react';
import { useStore } from '@nanostores/react';
import { $isTourist } from '../stores/session.ts';
import { invoiceCheck, type Receipt } from '../api/content.ts';
import { InvoiceEmailBox } from './InvoiceEmailBox.tsx';
import './info.css';

export const INVOICE_DELAY_MS = 500;

export function TouristInvoice({ orderId }: { orderId: string }) {
  const tourist = useStore($isTourist);
  const [receipt, setReceipt] = useState<Receipt | null>(null);
  useEffect(() => {
    if (!tourist || !orderId) return;
    let live = true;
    const id = setTimeout(() => {
      invoiceCheck(orderId)
        .then((r) => live && setReceipt(r))
        .catch(() => undefined);
    }, INVOICE_DELAY_MS);
    return () => {
      live = false;
      clearTimeout(id);
    };
  }, [tourist, orderId]);
  return tourist && receipt ? <InvoiceEmailBox orderId={receipt.orderId} initial={receipt.lastEmail ?? ''} /> : null;
}
