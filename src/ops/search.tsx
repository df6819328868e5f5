// The support desk's search forms, written once: the draft and the submitted filter (empty fields left out, the
// date range as ISO instants), the rider's fields every search has, and the CSV export of the same search.
import { useState } from 'react';
import { useT } from '../i18n/index.ts';
import { OPS_API, withQuery } from './api.ts';

type Change = { currentTarget: { value: string } };

export function useSearch<F extends Record<string, string>>(empty: F) {
  const [draft, setDraft] = useState(empty);
  const [filter, setFilter] = useState(empty);
  const set = (k: keyof F) => (e: Change) => setDraft({ ...draft, [k]: e.currentTarget.value });
  const submit = (e: React.FormEvent) => {
    e.preventDefault();
    setFilter(Object.fromEntries(Object.entries(draft).map(([k, v]) => [k, v.trim()])) as F);
  };
  const query: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(filter))
    if (v) query[k] = k === 'from' || k === 'to' ? new Date(v).toISOString() : v;
  return { draft, set, submit, query };
}

export const WHO = { phone: '', email: '', cardLast4: '', from: '', to: '' };

/** Phone, e-mail, card (last 4) and the date range. */
export function WhoFields({ draft, set }: { draft: typeof WHO; set: (k: keyof typeof WHO) => (e: Change) => void }) {
  const t = useT();
  return (
    <>
      <label>
        {t('ops.search.phone')}
        <input type="tel" maxLength={40} value={draft.phone} onChange={set('phone')} />
      </label>
      <label>
        {t('ops.search.email')}
        <input type="email" maxLength={200} value={draft.email} onChange={set('email')} />
      </label>
      <label>
        {t('ops.rentals.cardLast4')}
        <input
          inputMode="numeric"
          pattern="[0-9]{4}"
          maxLength={4}
          value={draft.cardLast4}
          onChange={set('cardLast4')}
        />
      </label>
      <label>
        {t('ops.audit.from')}
        <input type="datetime-local" value={draft.from} onChange={set('from')} />
      </label>
      <label>
        {t('ops.audit.to')}
        <input type="datetime-local" value={draft.to} onChange={set('to')} />
      </label>
    </>
  );
}

/** The search's submit button and its CSV export (streamed by the server). */
export function SearchButtons({ csv, query }: { csv: string; query: Record<string, string | undefined> }) {
  const t = useT();
  return (
    <>
      <button type="submit">{t('ops.rentals.search')}</button>
      <a className="ops-button" href={withQuery(`${OPS_API}${csv}`, query)} download>
        {t('ops.audit.export')}
      </a>
    </>
  );
}
