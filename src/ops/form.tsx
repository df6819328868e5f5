// The console's form fields: a labelled input whose browser validation speaks the operator's language (the
// browser's own bubble is in the browser's language), and the saving of a record read with its ETag.
import { useId, type InputHTMLAttributes } from 'react';
import { useT } from '../i18n/index.ts';
import { Problem } from './screens/Problem.tsx';

/** Validation messages in the operator's language, set on the control when the browser finds it invalid. */
export function useValidity() {
  const t = useT();
  return {
    onInvalid: (e: React.FormEvent<HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement>) => {
      const el = e.currentTarget;
      const v = el.validity;
      el.setCustomValidity(
        v.valueMissing
          ? t('ops.form.required')
          : v.rangeOverflow || v.rangeUnderflow || v.tooLong || v.tooShort || v.stepMismatch
            ? t('ops.form.range')
            : t('ops.form.invalid'),
      );
    },
    onInput: (e: React.FormEvent<HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement>) =>
      e.currentTarget.setCustomValidity(''),
  };
}

type FieldProps = Omit<InputHTMLAttributes<HTMLInputElement>, 'onChange' | 'value'> & {
  label: string;
  value: string | number;
  onValue: (v: string) => void;
  hint?: string;
};

export function Field({ label, value, onValue, hint, ...rest }: FieldProps) {
  const validity = useValidity();
  const hintId = useId();
  const input = (
    <label>
      {label}
      <input
        {...rest}
        {...validity}
        value={value}
        aria-describedby={hint ? hintId : undefined}
        onChange={(e) => onValue(e.currentTarget.value)}
      />
    </label>
  );
  // The hint outside the label: the field's name stays its label, the hint is its description.
  return hint ? (
    <span className="ops-field">
      {input}
      <small id={hintId}>{hint}</small>
    </span>
  ) : (
    input
  );
}

export function Select<V extends string>({
  label,
  value,
  options,
  onValue,
}: {
  label: string;
  value: V;
  options: Array<[V, string]>;
  onValue: (v: V) => void;
}) {
  return (
    <label>
      {label}
      <select value={value} onChange={(e) => onValue(e.currentTarget.value as V)}>
        {options.map(([v, text]) => (
          <option key={v} value={v}>
            {text}
          </option>
        ))}
      </select>
    </label>
  );
}

/** The end of a form that writes: the reason the audit log keeps, the submit button, what happened. */
export function SaveRow({
  reason,
  onReason,
  label,
  saved,
  error,
}: {
  reason: string;
  onReason: (v: string) => void;
  label?: string;
  saved: string;
  error: unknown;
}) {
  const t = useT();
  return (
    <>
      <div className="ops-form">
        <Field label={t('ops.reason')} required minLength={3} maxLength={500} value={reason} onValue={onReason} />
        <button type="submit" className="ops-primary">
          {label ?? t('ops.form.save')}
        </button>
      </div>
      {saved && <p role="status">{saved}</p>}
      <Problem error={error} />
    </>
  );
}
