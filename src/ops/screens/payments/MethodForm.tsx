// One payment method of an agent: switched on or off, and its keys. A key's value is never shown (the server does
// not send it back): each field says whether the key is set, and a value typed in replaces it (rotation); "clear"
// removes what the console saved. Saved with If-Match on the version read.
import { useEffect, useId, useRef, useState } from 'react';
import type { PaymentMethodSetting } from '../../../contract/ops/payment-settings.ts';
import { useT } from '../../../i18n/index.ts';
import { opsCallTagged } from '../../api.ts';
import { SaveRow } from '../../form.tsx';

interface Props {
  agent: string;
  method: PaymentMethodSetting;
  canWrite: boolean;
  canSeal: boolean;
  onClose: () => void;
  onSaved: (m: PaymentMethodSetting) => void;
}

export function MethodForm({ agent, method, canWrite, canSeal, onClose, onSaved }: Props) {
  const t = useT();
  const headingId = useId();
  const heading = useRef<HTMLHeadingElement>(null);
  const [enabled, setEnabled] = useState(method.enabled);
  const [values, setValues] = useState<Record<string, string>>({});
  const [clear, setClear] = useState<Record<string, boolean>>({});
  const [reason, setReason] = useState('');
  const [saved, setSaved] = useState('');
  const [error, setError] = useState<unknown>();
  useEffect(() => heading.current?.focus(), []);
  const submit = async (e: React.FormEvent) => {
    e.preventDefault();
    setError(undefined);
    setSaved('');
    const keys: Record<string, string | null> = {};
    for (const k of method.keys) {
      if (clear[k.name]) keys[k.name] = null;
      else if (values[k.name]?.trim()) keys[k.name] = values[k.name]!.trim();
    }
    try {
      const r = await opsCallTagged<PaymentMethodSetting>(
        'PUT',
        `/agents/${encodeURIComponent(agent)}/payment-methods/${encodeURIComponent(method.method)}`,
        { enabled, keys, reason },
        { 'if-match': `"v${method.version}"` },
      );
      setValues({});
      setClear({});
      setReason('');
      setSaved(t('ops.payments.saved'));
      onSaved(r.data);
    } catch (err) {
      setError(err);
    }
  };
  const stateOf = (s: string) => t(`ops.payments.keyState.${s}`);
  return (
    <section aria-labelledby={headingId}>
      <h2 id={headingId} ref={heading} tabIndex={-1}>
        {t('ops.payments.methodOf', { method: method.method, agent })}
      </h2>
      <form onSubmit={(e) => void submit(e)}>
        <fieldset className="ops-fieldset" disabled={!canWrite}>
          <legend className="ops-sr">{method.method}</legend>
          <label className="ops-check">
            <input type="checkbox" checked={enabled} onChange={(e) => setEnabled(e.currentTarget.checked)} />
            {t('ops.payments.offer')}
          </label>
          {method.keys.length > 0 && (
            <div className="ops-form">
              {method.keys.map((k) => {
                const hint = `${k.required ? t('ops.payments.required') : t('ops.payments.optional')} · ${stateOf(k.state)}`;
                return (
                  <span className="ops-field" key={k.name}>
                    <label>
                      {k.name}
                      <input
                        type="password"
                        autoComplete="off"
                        spellCheck={false}
                        maxLength={8000}
                        disabled={!canSeal || clear[k.name]}
                        value={values[k.name] ?? ''}
                        aria-describedby={`${headingId}-${k.name}`}
                        placeholder={k.state === 'unset' ? '' : t('ops.payments.keepValue')}
                        onChange={(e) => setValues((v) => ({ ...v, [k.name]: e.currentTarget.value }))}
                      />
                    </label>
                    <small id={`${headingId}-${k.name}`}>{hint}</small>
                    {k.state === 'console' && (
                      <label className="ops-check">
                        <input
                          type="checkbox"
                          checked={!!clear[k.name]}
                          onChange={(e) => setClear((c) => ({ ...c, [k.name]: e.currentTarget.checked }))}
                        />
                        {t('ops.payments.clear', { key: k.name })}
                      </label>
                    )}
                  </span>
                );
              })}
            </div>
          )}
        </fieldset>
        {canWrite && <SaveRow reason={reason} onReason={setReason} saved={saved} error={error} />}
      </form>
      <button type="button" onClick={onClose}>
        {t('ops.staff.close')}
      </button>
    </section>
  );
}
