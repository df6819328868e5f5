// The contact and franchise form of the about-us page: Name, Email, Mobile, nation required (trimmed), each
// with its own message; Content free. Posts JSON to {host}/crmLeads/add/public; once sent, the form says so in
// words that stay (who we will answer, and where) until the person types again, rather than a passing toast.
import { useId, useRef, useState, type FormEvent } from 'react';
import { useT, errorText } from '../i18n/index.ts';
import { addLead, type ContactLead } from '../api/content.ts';
import { toast, withLoading } from '../ui/feedback.tsx';

type Field = keyof ContactLead;
const REQUIRED: [Field, string][] = [
  ['Name', 'about.form.nameRequired'],
  ['Email', 'about.form.emailRequired'],
  ['Mobile', 'about.form.mobileRequired'],
  ['nation', 'about.form.nationRequired'],
];
const EMPTY: ContactLead = { Name: '', Email: '', Mobile: '', nation: '', Content: '' };

/** Pure: the first missing required field and its message key, or null. */
export function firstMissing(v: ContactLead): [Field, string] | null {
  return REQUIRED.find(([f]) => !v[f].trim()) ?? null;
}

export function ContactForm() {
  const t = useT();
  const id = useId();
  const [v, setV] = useState<ContactLead>(EMPTY);
  const [error, setError] = useState<{ field: Field; text: string } | null>(null);
  const [busy, setBusy] = useState(false);
  const [sent, setSent] = useState('');
  const form = useRef<HTMLFormElement>(null);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const missing = firstMissing(v);
    if (missing) {
      setError({ field: missing[0], text: t(missing[1]) });
      form.current?.querySelector<HTMLElement>(`[name="${missing[0]}"]`)?.focus();
      return;
    }
    setError(null);
    setSent('');
    setBusy(true);
    try {
      const trimmed = Object.fromEntries(Object.entries(v).map(([k, x]) => [k, x.trim()])) as unknown as ContactLead;
      await withLoading(() => addLead(trimmed));
      setSent(t('about.form.success', { name: trimmed.Name, email: trimmed.Email }));
      setV(EMPTY);
    } catch (err) {
      toast(errorText(err, t));
    } finally {
      setBusy(false);
    }
  };

  const edit = (name: Field, value: string) => {
    setV({ ...v, [name]: value });
    setSent('');
  };

  const field = (name: Field, label: string, type = 'text', auto?: string) => (
    <div className="field">
      <label htmlFor={`${id}-${name}`}>
        {label}
        {name !== 'Content' ? ' *' : ''}
      </label>
      {name === 'Content' ? (
        <textarea
          id={`${id}-${name}`}
          name={name}
          rows={4}
          value={v[name]}
          maxLength={5000}
          onChange={(e) => edit(name, e.target.value)}
        />
      ) : (
        <input
          id={`${id}-${name}`}
          name={name}
          type={type}
          autoComplete={auto}
          value={v[name]}
          maxLength={200}
          aria-invalid={error?.field === name ? true : undefined}
          aria-describedby={error?.field === name ? `${id}-err` : undefined}
          onChange={(e) => edit(name, e.target.value)}
        />
      )}
      {error?.field === name ? (
        <p id={`${id}-err`} className="field-error" role="alert">
          {error.text}
        </p>
      ) : null}
    </div>
  );

  return (
    <form
      ref={form}
      className="info-card"
      id="join"
      onSubmit={(e) => void submit(e)}
      noValidate
      aria-labelledby={`${id}-title`}
    >
      <h2 id={`${id}-title`}>{t('about.form.title')}</h2>
      <p className="small muted">{t('about.form.intro')}</p>
      {field('Name', t('about.form.name'), 'text', 'given-name')}
      {field('Email', t('about.form.email'), 'email', 'email')}
      {field('Mobile', t('about.form.mobile'), 'tel', 'tel')}
      {field('nation', t('about.form.nation'), 'text', 'country-name')}
      {field('Content', t('about.form.content'))}
      <p role="status" className="form-sent">
        {sent}
      </p>
      <button type="submit" className="button primary block" disabled={busy}>
        {t('about.form.submit')}
      </button>
    </form>
  );
}
