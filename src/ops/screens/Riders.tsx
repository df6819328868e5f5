// A rider by id: who they are, their agents, whether they are blocked and why; support blocks or unblocks them with
// a reason (a blocked rider cannot rent nor buy a Wi-Fi package, and is told the reason).
import { useEffect, useRef, useState } from 'react';
import type { RiderShape } from '../../contract/ops/riders.ts';
import type { Me } from '../../contract/ops/staff.ts';
import { useT } from '../../i18n/index.ts';
import { opsCall } from '../api.ts';
import { Problem } from './Problem.tsx';

export function Riders({ me }: { me: Me }) {
  const t = useT();
  const [id, setId] = useState('');
  const [rider, setRider] = useState<RiderShape>();
  const [error, setError] = useState<unknown>();
  const find = async (e: React.FormEvent) => {
    e.preventDefault();
    setError(undefined);
    setRider(undefined);
    try {
      setRider(await opsCall<RiderShape>('GET', `/riders/${encodeURIComponent(id.trim())}`));
    } catch (err) {
      setError(err);
    }
  };
  return (
    <>
      <form className="ops-filters" role="search" onSubmit={(e) => void find(e)}>
        <label>{t('ops.riders.id')}<input required inputMode="numeric" pattern="[0-9]{1,18}" value={id} onChange={(e) => setId(e.currentTarget.value)} /></label>
        <button type="submit">{t('ops.riders.find')}</button>
      </form>
      <Problem error={error} />
      {rider && <Rider key={rider.id} r={rider} may={me.permissions.includes('riders.block')} onChange={setRider} />}
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
      <h2 id="ops-rider" ref={heading} tabIndex={-1}>{t('ops.riders.title', { id: r.id })}</h2>
      <dl className="ops-fields">
        <dt>{t('ops.staff.name')}</dt><dd>{r.name}</dd>
        {r.mobile && <><dt>{t('ops.riders.mobile')}</dt><dd>{r.mobile}</dd></>}
        {r.email && <><dt>{t('ops.staff.email')}</dt><dd>{r.email}</dd></>}
        <dt>{t('ops.riders.agents')}</dt><dd>{r.agents.join(', ') || '—'}</dd>
        <dt>{t('ops.staff.status')}</dt><dd>{r.blocked ? t('ops.riders.blocked') : t('ops.staff.active')}</dd>
        {r.blocked && <><dt>{t('ops.reason')}</dt><dd>{r.blockedReason}</dd><dt>{t('ops.withdrawals.by')}</dt><dd>{r.blockedBy}</dd></>}
      </dl>
      {may && (
        <form className="ops-form" onSubmit={(e) => void act(e)}>
          <label>{t(r.blocked ? 'ops.riders.unblockReason' : 'ops.riders.blockReason')}
            <input required minLength={3} maxLength={500} value={reason} onChange={(e) => setReason(e.currentTarget.value)} />
          </label>
          <button type="submit" className="ops-primary">{t(r.blocked ? 'ops.riders.unblock' : 'ops.riders.block')}</button>
        </form>
      )}
      {note && <p role="status">{note}</p>}
      <Problem error={error} />
    </section>
  );
}
