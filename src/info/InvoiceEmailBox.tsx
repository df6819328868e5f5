// The receipt e-mail box: e-mail required and trimmed; sends through cdb/invoice/sendCdbOrderReceipt.
import { useId, useState, type FormEvent } from 'react';
import { useT, errorText } from '../i18n/index.ts';
import { sendReceipt } from '../api/content.ts';
import { toast, withLoading } from '../ui/feedback.tsx';

/** Pure: the e-mail to send, or null when blank. */
export function receiptEmail(raw: string): string | null {
  const e = raw.trim();
  return e ? e : null;
}

export function InvoiceEmailBox({ orderId, initial = '' }: { orderId: string; initial?: string }) {
  const t = useT();
  const id = useId();
  const [email, setEmail] = useState(initial);
  const [error, setError] = useState('');
  const [sentTo, setSentTo] = useState('');

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const to = receiptEmail(email);
    if (!to) {
      setError(t('invoice.emailRequired'));
      return;
    }
    setError('');
    try {
      await withLoading(() => sendReceipt(orderId, to));
      setSentTo(to);
      setEmail(to);
      toast(t('invoice.sent'));
    } catch (err) {
      setError(errorText(err, t));
    }
  };

  return (
    <form className="info-card" onSubmit={(e) => void submit(e)} noValidate aria-labelledby={`${id}-t`}>
      <h2 id={`${id}-t`}>{t('invoice.boxTitle')}</h2>
      <div className="field">
        <label htmlFor={`${id}-email`}>{t('invoice.email')}</label>
        <input
          id={`${id}-email`}
          type="email"
          autoComplete="email"
          inputMode="email"
          value={email}
          maxLength={320}
          aria-invalid={error ? true : undefined}
          aria-describedby={error ? `${id}-err` : undefined}
          onChange={(e) => setEmail(e.target.value)}
        />
        {error ? (
          <p id={`${id}-err`} className="field-error" role="alert">
            {error}
          </p>
        ) : null}
      </div>
      {sentTo ? (
        <p role="status" className="small">
          {t('invoice.sentTo', { email: sentTo })}
        </p>
      ) : null}
      <button type="submit" className="button primary block">
        {t('invoice.send')}
      </button>
    </form>
  );
}
