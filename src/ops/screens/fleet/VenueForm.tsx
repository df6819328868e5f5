// One venue: names in the five languages, address, the position (map or latitude/longitude fields), opening hours,
// contacts, agent and state. Saved with the ETag it was read with: a save after someone else's is refused (409)
// with the server's message, and nothing is overwritten.
import { lazy, Suspense, useEffect, useState } from 'react';
import type { AgentPage, Venue } from '../../../contract/ops/fleet.ts';
import type { Me } from '../../../contract/ops/staff.ts';
import { LOCALES, LOCALE_NAMES } from '../../../core/lang.ts';
import { useT } from '../../../i18n/index.ts';
import { opsCall, opsCallTagged } from '../../api.ts';
import { Field, SaveRow, Select } from '../../form.tsx';
import { go } from '../../route.ts';
import { Problem } from '../Problem.tsx';
import { HoursEditor, hoursDraft, hoursOf, type HoursDraft } from './HoursEditor.tsx';
import { VenueImages } from './VenueImages.tsx';

const MapPicker = lazy(() => import('./MapPicker.tsx'));
const STATES = ['draft', 'live', 'closed'] as const;

interface Draft {
  id: string;
  name: string;
  names: Record<string, string>;
  city: string;
  country: string;
  address: string;
  description: string;
  lat: string;
  lng: string;
  currency: string;
  hours: HoursDraft;
  phone: string;
  email: string;
  website: string;
  agentId: string;
  state: Venue['state'];
}

const empty = (agentId: string): Draft => ({
  id: '',
  name: '',
  names: {},
  city: '',
  country: '',
  address: '',
  description: '',
  lat: '54.6872',
  lng: '25.2797',
  currency: 'EUR',
  hours: hoursDraft(null),
  phone: '',
  email: '',
  website: '',
  agentId,
  state: 'draft',
});

const draftOf = (v: Venue): Draft => ({
  id: v.id,
  name: v.name,
  names: { ...v.names } as Record<string, string>,
  city: v.city,
  country: v.country ?? '',
  address: v.address,
  description: v.description,
  lat: String(v.lat),
  lng: String(v.lng),
  currency: v.currency,
  hours: hoursDraft(v.openingHours),
  phone: v.contacts.phone ?? '',
  email: v.contacts.email ?? '',
  website: v.contacts.website ?? '',
  agentId: v.agentId ?? '',
  state: v.state,
});

/** The fields a save sends (the id and currency only when the venue is new). */
function bodyOf(d: Draft) {
  const names = Object.fromEntries(Object.entries(d.names).filter(([, v]) => v.trim()));
  const contacts = {
    ...(d.phone && { phone: d.phone }),
    ...(d.email && { email: d.email }),
    ...(d.website && { website: d.website }),
  };
  return {
    name: d.name,
    names,
    city: d.city,
    country: d.country || null,
    address: d.address,
    description: d.description,
    lat: Number(d.lat),
    lng: Number(d.lng),
    openingHours: hoursOf(d.hours),
    contacts,
    agentId: d.agentId || null,
    state: d.state,
  };
}

export function VenueForm({ id, me }: { id: string | null; me: Me }) {
  const t = useT();
  const mayWrite = me.permissions.includes('fleet.write');
  const [draft, setDraft] = useState<Draft>();
  const [venue, setVenue] = useState<Venue>();
  const [etag, setEtag] = useState('');
  const [agents, setAgents] = useState<string[]>([]);
  const [reason, setReason] = useState('');
  const [saved, setSaved] = useState('');
  const [error, setError] = useState<unknown>();
  useEffect(() => {
    void opsCall<AgentPage>('GET', '/agents?limit=200').then(
      (p) => setAgents(p.items.map((a) => a.id)),
      () => undefined,
    );
    if (!id) return;
    opsCallTagged<Venue>('GET', `/venues/${encodeURIComponent(id)}`).then(({ data, etag: tag }) => {
      setDraft(draftOf(data));
      setVenue(data);
      setEtag(tag);
    }, setError);
  }, [id]);
  useEffect(() => {
    if (!id && !draft && agents.length) setDraft(empty(agents[0]!));
  }, [id, draft, agents]);
  const platform = me.memberships.some((m) => m.agentId === '*');
  const d = draft ?? (id ? undefined : empty(''));
  if (!d)
    return (
      <>
        <p role="status">…</p>
        <Problem error={error} />
      </>
    );
  const set =
    <K extends keyof Draft>(k: K) =>
    (v: Draft[K]) =>
      setDraft({ ...d, [k]: v });
  const submit = async (e: React.FormEvent) => {
    e.preventDefault();
    setError(undefined);
    setSaved('');
    try {
      const res = id
        ? await opsCallTagged<Venue>(
            'PATCH',
            `/venues/${encodeURIComponent(id)}`,
            { ...bodyOf(d), reason },
            { 'if-match': etag },
          )
        : await opsCallTagged<Venue>('POST', '/venues', { ...bodyOf(d), id: d.id, currency: d.currency, reason });
      setEtag(res.etag);
      setVenue(res.data);
      setDraft(draftOf(res.data));
      setReason('');
      setSaved(t('ops.form.saved'));
      if (!id) go(`/venues?id=${encodeURIComponent(res.data.id)}`);
    } catch (err) {
      setError(err);
    }
  };
  const lat = Number(d.lat);
  const lng = Number(d.lng);
  return (
    <form onSubmit={(e) => void submit(e)} aria-labelledby="ops-venue-title">
      <h2 id="ops-venue-title">{id ? d.name : t('ops.venues.new')}</h2>
      <p>
        <a href="#/venues">{t('ops.venues.back')}</a>
        {id && (
          <>
            {' '}
            · <a href={`#/plans?venueId=${encodeURIComponent(id)}`}>{t('ops.venues.prices')}</a>
          </>
        )}
      </p>
      <fieldset className="ops-fieldset" disabled={!mayWrite}>
        <legend>{t('ops.venues.identity')}</legend>
        <div className="ops-form">
          {!id && (
            <Field
              label={t('ops.venues.id')}
              required
              pattern="[A-Za-z0-9._\-]{1,64}"
              value={d.id}
              onValue={set('id')}
            />
          )}
          <Field label={t('ops.venues.name')} required maxLength={120} value={d.name} onValue={set('name')} />
          {LOCALES.map((l) => (
            <Field
              key={l}
              label={t('ops.venues.nameIn', { lang: LOCALE_NAMES[l] })}
              lang={l}
              maxLength={120}
              value={d.names[l] ?? ''}
              onValue={(v) => set('names')({ ...d.names, [l]: v })}
            />
          ))}
          <Select
            label={t('ops.venues.state')}
            value={d.state}
            options={STATES.map((s) => [s, t(`ops.venueState.${s}`)])}
            onValue={set('state')}
          />
          <label>
            {t('ops.venues.agent')}
            <select value={d.agentId} onChange={(e) => set('agentId')(e.currentTarget.value)} required={!platform}>
              {platform && <option value="">{t('ops.venues.platform')}</option>}
              {agents.map((a) => (
                <option key={a} value={a}>
                  {a}
                </option>
              ))}
            </select>
          </label>
          {!id && (
            <Field
              label={t('ops.venues.currency')}
              required
              pattern="[A-Z]{3}"
              maxLength={3}
              value={d.currency}
              onValue={(v) => set('currency')(v.toUpperCase())}
            />
          )}
        </div>
      </fieldset>
      <fieldset className="ops-fieldset" disabled={!mayWrite}>
        <legend>{t('ops.venues.place')}</legend>
        <div className="ops-form">
          <Field label={t('ops.venues.city')} required maxLength={80} value={d.city} onValue={set('city')} />
          <Field
            label={t('ops.venues.country')}
            pattern="[A-Z]{2}"
            maxLength={2}
            value={d.country}
            onValue={(v) => set('country')(v.toUpperCase())}
          />
          <Field label={t('ops.venues.address')} required maxLength={240} value={d.address} onValue={set('address')} />
          <Field
            label={t('ops.venues.lat')}
            required
            type="number"
            step="any"
            min={-90}
            max={90}
            value={d.lat}
            onValue={set('lat')}
          />
          <Field
            label={t('ops.venues.lng')}
            required
            type="number"
            step="any"
            min={-180}
            max={180}
            value={d.lng}
            onValue={set('lng')}
          />
        </div>
        <p className="ops-note" id="ops-map-hint">
          {t('ops.venues.mapHint')}
        </p>
        <Suspense fallback={<p role="status">…</p>}>
          {Number.isFinite(lat) && Number.isFinite(lng) && (
            <MapPicker
              lat={lat}
              lng={lng}
              onPick={(la, ln) => setDraft((x) => x && { ...x, lat: String(la), lng: String(ln) })}
            />
          )}
        </Suspense>
        <label className="ops-wide">
          {t('ops.venues.description')}
          <textarea maxLength={500} value={d.description} onChange={(e) => set('description')(e.currentTarget.value)} />
        </label>
      </fieldset>
      <fieldset className="ops-fieldset" disabled={!mayWrite}>
        <legend>{t('ops.venues.contacts')}</legend>
        <div className="ops-form">
          <Field
            label={t('ops.venues.phone')}
            type="tel"
            pattern="\+?[0-9 ()\-]{5,30}"
            value={d.phone}
            onValue={set('phone')}
          />
          <Field label={t('ops.venues.email')} type="email" maxLength={200} value={d.email} onValue={set('email')} />
          <Field
            label={t('ops.venues.website')}
            type="url"
            pattern="https?://.+"
            maxLength={200}
            value={d.website}
            onValue={set('website')}
          />
        </div>
      </fieldset>
      <HoursEditor value={d.hours} onChange={set('hours')} />
      {id && venue && mayWrite && (
        <VenueImages
          venue={venue}
          etag={etag}
          reason={reason}
          onSaved={(v, tag) => {
            setVenue(v);
            setEtag(tag);
          }}
        />
      )}
      {mayWrite ? (
        <SaveRow reason={reason} onReason={setReason} saved={saved} error={error} />
      ) : (
        <Problem error={error} />
      )}
    </form>
  );
}
