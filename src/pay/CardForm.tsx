// Card fields for a provider that tokenises raw fields (the sandbox): number, expiry, CVC, inline checks.
import { useId, useState, type FormEvent, type ReactNode } from 'react';
import { useT } from '../i18n/index.ts';
import {
  formatCardNumber,
  formatExpiry,
  digitsOnly,
  parseExpiry,
  validateCardNumber,
  validateCvc,
  validateExpiry,
  type CardFieldError,
} from '../core/card.ts';
import type { CardDetails } from './provider.ts';

export interface CardFormProps {
  submitLabel: string;
  busy: boolean;
  onSubmit: (card: CardDetails) => void;
  /** Called whenever a field changes (a new card is a new payment action). */
  onEdit: () => void;
  /** Shown between the fields and the button (a "save this card" choice). */
  children?: ReactNode;
}

type Field = 'number' | 'expiry' | 'cvc';

export function CardForm({ submitLabel, busy, onSubmit, onEdit, children }: CardFormProps) {
  const t = useT();
  const id = useId();
  const [number, setNumber] = useState('');
  const [expiry, setExpiry] = useState('');
  const [cvc, setCvc] = useState('');
  const [touched, setTouched] = useState<Record<Field, boolean>>({ number: false, expiry: false, cvc: false });

  const errors: Record<Field, CardFieldError | null> = {
    number: validateCardNumber(number),
    expiry: validateExpiry(expiry),
    cvc: validateCvc(cvc),
  };
  const message = (f: Field) => {
    const e = errors[f];
    return touched[f] && e ? t(`card.errors.${f}.${e}`) : '';
  };

  const submit = (ev: FormEvent) => {
    ev.preventDefault();
    if (busy) return;
    setTouched({ number: true, expiry: true, cvc: true });
    if (errors.number || errors.expiry || errors.cvc) {
      const first = (['number', 'expiry', 'cvc'] as Field[]).find((f) => errors[f]);
      document.getElementById(`${id}-${first}`)?.focus();
      return;
    }
    const exp = parseExpiry(expiry)!;
    onSubmit({ number: digitsOnly(number), expMonth: exp.month, expYear: exp.year, cvc });
  };

  const field = (f: Field, label: string, input: React.ReactNode) => (
    <div className={`field${message(f) ? ' invalid' : ''}`}>
      <label htmlFor={`${id}-${f}`}>{label}</label>
      {input}
      <p id={`${id}-${f}-error`} className="field-error" aria-live="polite">
        {message(f)}
      </p>
    </div>
  );
  const common = (f: Field) => ({
    id: `${id}-${f}`,
    'aria-invalid': Boolean(message(f)),
    'aria-describedby': `${id}-${f}-error`,
    onBlur: () => setTouched((s) => ({ ...s, [f]: true })),
    required: true,
  });

  return (
    <form className="card-form" noValidate onSubmit={submit}>
      {field(
        'number',
        t('card.number'),
        <input
          {...common('number')}
          type="text"
          inputMode="numeric"
          autoComplete="cc-number"
          placeholder="1234 5678 9012 3456"
          maxLength={23}
          value={number}
          onChange={(e) => {
            setNumber(formatCardNumber(e.target.value));
            onEdit();
          }}
        />,
      )}
      <div className="field-row">
        {field(
          'expiry',
          t('card.expiry'),
          <input
            {...common('expiry')}
            type="text"
            inputMode="numeric"
            autoComplete="cc-exp"
            placeholder={t('card.expiryPlaceholder')}
            maxLength={5}
            value={expiry}
            onChange={(e) => {
              setExpiry(formatExpiry(e.target.value));
              onEdit();
            }}
          />,
        )}
        {field(
          'cvc',
          t('card.cvc'),
          <input
            {...common('cvc')}
            type="text"
            inputMode="numeric"
            autoComplete="cc-csc"
            placeholder="123"
            maxLength={4}
            value={cvc}
            onChange={(e) => {
              setCvc(digitsOnly(e.target.value).slice(0, 4));
              onEdit();
            }}
          />,
        )}
      </div>
      {children}
      {/* aria-disabled, not disabled, while busy: focus stays on the button (and returns to it after a dialog). */}
      <button type="submit" className="button primary block" aria-disabled={busy} aria-busy={busy}>
        {busy ? t('confirm.paying') : submitLabel}
      </button>
    </form>
  );
}
