// "Card form (Flutterwave)": card number, expiry month, expiry year, CVV, e-mail, phone with its area code;
// The card checks inline, in the user's language (src/core/card.ts validateDirectCard, the server's own rules).
// Live, the fields go to our payer endpoint (Flutterwave's direct charge takes them from our server, sealed there);
// in test mode the sandbox card provider tokenises them first (ExternalPay decides).
import { useId, useState, type FormEvent } from 'react';
import '../auth/auth.css';
import { useT } from '../i18n/index.ts';
import { defaultAreaCode } from '../core/countries.ts';
import { EMAIL } from '../core/email.ts';
import {
  digitsOnly,
  DIRECT_CARD_FIELDS,
  formatCardNumber,
  validateDirectCard,
  type DirectCardField,
} from '../core/card.ts';
import { AreaPicker } from '../auth/AreaPicker.tsx';

export interface DirectCard {
  cardNumber: string;
  expiryMonth: string;
  expiryYear: string;
  cvv: string;
  email: string;
  /** Optional (requires only the card fields); with its area code when given. */
  phoneNumber: string;
  areaCode: string;
  /** SaveCardFlag: save the card once the charge is paid (only where the form offers it). */
  saveCard: boolean;
}

export interface DirectCardFormProps {
  submitLabel: string;
  busy: boolean;
  onSubmit: (card: DirectCard) => void;
  onEdit: () => void;
  /** The method saves a paid card (live Flutterwave): the form offers "save this card". */
  canSave?: boolean;
}

type Field = DirectCardField | 'email';

export function DirectCardForm({ submitLabel, busy, onSubmit, onEdit, canSave = false }: DirectCardFormProps) {
  const t = useT();
  const id = useId();
  const [v, setV] = useState({ cardNumber: '', expiryMonth: '', expiryYear: '', cvv: '', email: '', phoneNumber: '' });
  const [area, setArea] = useState(() =>
    defaultAreaCode(typeof navigator === 'undefined' ? undefined : navigator.language),
  );
  const [picker, setPicker] = useState(false);
  const [saveCard, setSaveCard] = useState(false);
  const [touched, setTouched] = useState<Partial<Record<Field, boolean>>>({});

  const faults = validateDirectCard(v);
  const emailFault = !v.email.trim() ? 'required' : EMAIL.test(v.email.trim()) ? null : 'invalid';
  const message = (f: Field) => {
    if (!touched[f]) return '';
    if (f === 'email') return emailFault ? t(`directCard.errors.email.${emailFault}`) : '';
    const e = faults[f];
    return e ? t(`directCard.errors.${f}.${e}`) : '';
  };
  const order: Field[] = [...DIRECT_CARD_FIELDS, 'email'];

  const submit = (ev: FormEvent) => {
    ev.preventDefault();
    if (busy) return;
    setTouched(Object.fromEntries(order.map((f) => [f, true])));
    const first = order.find((f) => (f === 'email' ? emailFault : faults[f]));
    if (first) {
      document.getElementById(`${id}-${first}`)?.focus();
      return;
    }
    onSubmit({
      ...v,
      cardNumber: digitsOnly(v.cardNumber),
      email: v.email.trim(),
      phoneNumber: v.phoneNumber.trim(),
      areaCode: area,
      saveCard: canSave && saveCard,
    });
  };

  const set = (f: keyof typeof v, value: string) => {
    setV((s) => ({ ...s, [f]: value }));
    onEdit();
  };
  const common = (f: Field) => ({
    id: `${id}-${f}`,
    'aria-invalid': Boolean(message(f)),
    'aria-describedby': `${id}-${f}-error`,
    onBlur: () => setTouched((s) => ({ ...s, [f]: true })),
    required: true,
  });
  const field = (f: Field, label: string, input: React.ReactNode) => (
    <div className={`field${message(f) ? ' invalid' : ''}`}>
      <label htmlFor={`${id}-${f}`}>{label}</label>
      {input}
      <p id={`${id}-${f}-error`} className="field-error" aria-live="polite">
        {message(f)}
      </p>
    </div>
  );
  const digits = (f: 'expiryMonth' | 'expiryYear' | 'cvv', max: number) => (e: React.ChangeEvent<HTMLInputElement>) =>
    set(f, digitsOnly(e.target.value).slice(0, max));

  return (
    <>
      <form className="card-form direct-card" noValidate onSubmit={submit}>
        {field(
          'cardNumber',
          t('directCard.number'),
          <input
            {...common('cardNumber')}
            type="text"
            inputMode="numeric"
            autoComplete="cc-number"
            placeholder="1234 5678 9012 3456"
            maxLength={23}
            value={v.cardNumber}
            onChange={(e) => set('cardNumber', formatCardNumber(e.target.value))}
          />,
        )}
        <div className="field-row">
          {field(
            'expiryMonth',
            t('directCard.expiryMonth'),
            <input
              {...common('expiryMonth')}
              type="text"
              inputMode="numeric"
              autoComplete="cc-exp-month"
              maxLength={2}
              value={v.expiryMonth}
              onChange={digits('expiryMonth', 2)}
            />,
          )}
          {field(
            'expiryYear',
            t('directCard.expiryYear'),
            <input
              {...common('expiryYear')}
              type="text"
              inputMode="numeric"
              autoComplete="cc-exp-year"
              maxLength={2}
              value={v.expiryYear}
              onChange={digits('expiryYear', 2)}
            />,
          )}
        </div>
        {field(
          'cvv',
          t('directCard.cvv'),
          <input
            {...common('cvv')}
            type="text"
            inputMode="numeric"
            autoComplete="cc-csc"
            placeholder="123"
            maxLength={3}
            value={v.cvv}
            onChange={digits('cvv', 3)}
          />,
        )}
        {field(
          'email',
          t('directCard.email'),
          <input
            {...common('email')}
            type="email"
            autoComplete="email"
            maxLength={254}
            value={v.email}
            onChange={(e) => set('email', e.target.value)}
          />,
        )}
        <div className="field">
          <label htmlFor={`${id}-phone`}>{t('directCard.phone')}</label>
          <div className="phone-row">
            <button
              type="button"
              className="button area-button"
              onClick={() => setPicker(true)}
              aria-label={t('login.area.button', { code: area })}
            >
              +{area}
            </button>
            <input
              id={`${id}-phone`}
              type="tel"
              inputMode="tel"
              autoComplete="tel-national"
              maxLength={20}
              value={v.phoneNumber}
              onChange={(e) => set('phoneNumber', e.target.value)}
            />
          </div>
        </div>
        {canSave ? (
          <label className="check-row">
            <input type="checkbox" checked={saveCard} onChange={(e) => setSaveCard(e.target.checked)} />
            <span>{t('sdkPay.saveCard')}</span>
          </label>
        ) : null}
        <p className="muted small">{t(canSave && saveCard ? 'directCard.noteSaved' : 'directCard.note')}</p>
        {/* aria-disabled, not disabled, while busy: focus stays on the button (and returns to it after a dialog). */}
        <button type="submit" className="button primary block" aria-disabled={busy} aria-busy={busy}>
          {busy ? t('confirm.paying') : submitLabel}
        </button>
      </form>
      <AreaPicker
        open={picker}
        value={area}
        onClose={() => setPicker(false)}
        onConfirm={(o) => {
          setArea(o.value);
          setPicker(false);
          onEdit();
        }}
      />
    </>
  );
}
