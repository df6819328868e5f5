// Riders: the support desk's search (id, phone, e-mail, card last 4, state, sign-up dates), pages by cursor, the CSV
// export of the same search; a rider (#/riders?id=…, or the one rider a search finds) shows who they are, their
// agents, whether they are blocked and why, and support blocks or unblocks them with a reason (a blocked rider cannot
// rent nor buy a Wi-Fi package, and is told the reason).
import { useStore } from '@nanostores/react';
import { useEffect, useRef, useState } from 'react';
import type { RiderShape } from '../../contract/ops/riders.ts';
import type { RiderSummary } from '../../contract/ops/search.ts';
import type { Me } from '../../contract/ops/staff.ts';
import { $activeLang, useT } from '../../i18n/index.ts';
import { dateTime } from '../../ui/format.ts';
import { OPS_API, opsCall, withQuery } from '../api.ts';
import { usePaged } from '../paged.tsx';
import { $route } from '../route.ts';
import { useSearch, WHO, WhoFields } from '../search.tsx';
import { Problem } from './Problem.tsx';

export function Riders({ me }: { me: Me }) {
  const t = useT();
  const lang = useStore($activeLang);
  const route = useStore($route);
  const { draft, set, submit, query } = useSearch({ ...WHO, riderId: '', q: '', state: '' });
  const { rows, next, error, loaded, more } = usePaged<RiderSummary>('/riders', query);
  // The rider asked for by the address, else the one rider a search found.
  const searched = Object.keys(query).length > 0;
  const id = route.query.get('id') ?? (searched && rows.length === 1 && !next ? rows[0]!.id : undefined);
  return (
    <>
      <form className="ops-filters" role="search" onSubmit={submit}>
        <label>
          {t('ops.riders.id')}
          <input inputMode="numeric" pattern="[0-9]{1,18}" value={draft.riderId} onChange={set('riderId')} />
        </label>
        <WhoFields draft={draft} set={set} />
        <label>
          {t('ops.rentals.state')}
          <select value={draft.state} onChange={set('state')}>
            <option value="">{t('ops.rentals.anyState')}</option>
            <option value="active">{t('ops.staff.active')}</option>
            <option value="blocked">{t('ops.riders.blocked')}</option>
          </select>
        </label>
        <button type="submit">{t('ops.riders.find')}</button>
        <a className="ops-button" href={withQuery(`${OPS_API}/riders.csv`, query)} download>
          {t('ops.audit.export')}
        </a>
      </form>
      <div className="ops-scroll">
        <table className="ops-table">
          <thead>
            <tr>
              <th scope="col">{t('ops.riders.id')}</th>
              <th scope="col">{t('ops.staff.name')}</th>
              <th scope="col">{t('ops.riders.mobile')}</th>
              <th scope="col">{t('ops.staff.email')}</th>
              <th scope="col">{t('ops.staff.status')}</th>
              <th scope="col">{t('ops.riders.since')}</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr key={r.id}>
                <td>
                  <a href={`#/riders?id=${r.id}`} aria-current={r.id === id ? 'true' : undefined}>
                    #{r.id}
                  </a>
                </td>
                <td>{r.name}</td>
                <td>{r.mobile ?? '—'}</td>
                <td>{r.email ?? '—'}</td>
                <td>{r.blocked ? t('ops.riders.blocked') : t('ops.staff.active')}</td>
                <td>{dateTime(r.createdAt, lang)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {loaded && !rows.length && <p role="status">{t('ops.riders.none')}</p>}
      {next && (
        <button type="button" onClick={() => void more()}>
          {t('ops.list.more')}
        </button>
      )}
      <Problem error={error} />
      {id && <RiderById key={id} id={id} may={me.permissions.includes('riders.block')} />}
    </>
  );
}

function RiderById({ id, may }: { id: string; may: boolean }) {
  const [rider, setRider] = useState<RiderShape>();
  const [error, setError] = useState<unknown>();
  useEffect(() => {
    opsCall<RiderShape>('GET', `/riders/${encodeURIComponent(id)}`).then(setRider, setError);
  }, [id]);
  return (
    <>
      <Problem error={error} />
      {rider && <Rider r={rider} may={may} onChange={setRider} />}
    </>
  );
}

function Rider({ r, may, onChange }: { r: RiderShape; may: boolean; onChange: (r: RiderShape) => void }) {
  const t = useT();
  const heading = useRef<HTMLHeadingElement>(null);
  const [reason, setReason] = useState('');
  const [note, setNote] = useState('');
  const [error, setError] = useState<unknown>();
  useEffect(() => heading.current?.focus(), []);
  const act = async (e: React.FormEvent) => {
    e.preventDefault();
    setError(undefined);
    try {
      const after = await opsCall<RiderShape>('POST', `/riders/${r.id}/${r.blocked ? 'unblock' : 'block'}`, { reason });
      setNote(t(after.blocked ? 'ops.riders.blockedNote' : 'ops.riders.unblockedNote'));
      setReason('');
      onChange(after);
    } catch (err) {
      setError(err);
    }
  };
  return (
    <section aria-labelledby="ops-rider">
      <h2 id="ops-rider" ref={heading} tabIndex={-1}>
        {t('ops.riders.title', { id: r.id })}
      </h2>
      <dl className="ops-fields">
        <dt>{t('ops.staff.name')}</dt>
        <dd>{r.name}</dd>
        {r.mobile && (
          <>
            <dt>{t('ops.riders.mobile')}</dt>
            <dd>{r.mobile}</dd>
          </>
        )}
        {r.email && (
          <>
            <dt>{t('ops.staff.email')}</dt>
            <dd>{r.email}</dd>
          </>
        )}
        <dt>{t('ops.riders.agents')}</dt>
        <dd>{r.agents.join(', ') || '—'}</dd>
        <dt>{t('ops.staff.status')}</dt>
        <dd>{r.blocked ? t('ops.riders.blocked') : t('ops.staff.active')}</dd>
        {r.blocked && (
          <>
            <dt>{t('ops.reason')}</dt>
            <dd>{r.blockedReason}</dd>
            <dt>{t('ops.withdrawals.by')}</dt>
            <dd>{r.blockedBy}</dd>
          </>
        )}
      </dl>
      {may && (
        <form className="ops-form" onSubmit={(e) => void act(e)}>
          <label>
            {t(r.blocked ? 'ops.riders.unblockReason' : 'ops.riders.blockReason')}
            <input
              required
              minLength={3}
              maxLength={500}
              value={reason}
              onChange={(e) => setReason(e.currentTarget.value)}
            />
          </label>
          <button type="submit" className="ops-primary">
            {t(r.blocked ? 'ops.riders.unblock' : 'ops.riders.block')}
          </button>
        </form>
      )}
      {note && <p role="status">{note}</p>}
      <Problem error={error} />
    </section>
  );
}
