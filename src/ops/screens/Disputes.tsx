// The disputes queue: riders' "I returned it" claims the cabinets' records did not confirm (open first, oldest
// first), each with the evidence gathered when it was made (a return of the power bank anywhere, a slot that
// detected a return without one, whether the cabinet was online). A person with disputes.decide accepts (the rental
// ends at the time the rider gave, or another the evidence supports, or its buy-out is reversed: through the ledger)
// or rejects, each with the message the rider sees, an evidence note for the desk and a reason.
import { useStore } from '@nanostores/react';
import { useState } from 'react';
import { DISPUTE_STATES, type DisputeItem } from '../../contract/ops/disputes.ts';
import type { Me } from '../../contract/ops/staff.ts';
import { $activeLang, useT } from '../../i18n/index.ts';
import { Queue, QueueDetail, useQueueAction } from '../queue.tsx';
import { STATE_NAMES } from './RentalDetail.tsx';

const HEADS = ['id', 'claimedAt', 'cabinet', 'rental', 'state'].map((k) => `ops.disputes.${k}`);

export function Disputes({ me }: { me: Me }) {
  const t = useT();
  const lang = useStore($activeLang);
  return (
    <Queue<DisputeItem>
      path="/disputes"
      states={DISPUTE_STATES}
      initial="open"
      prefix="ops.disputes"
      heads={HEADS}
      cells={(d, open) => (
        <>
          <td>
            <button type="button" className="ops-link" onClick={open}>
              {t('ops.disputes.title', { id: d.id })}
            </button>
          </td>
          <td>{new Date(d.claimedAt).toLocaleString(lang)}</td>
          <td>{d.cabinetId}</td>
          <td>
            <a href={`#/rentals?id=${encodeURIComponent(d.orderId)}`}>{d.orderId}</a>
            <br />
            <small>{t(`ops.rentals.states.${STATE_NAMES[d.rentalState] ?? 'pending'}`)}</small>
          </td>
          <td>{t(`ops.disputes.states.${d.state}`)}</td>
        </>
      )}
      detail={(d, done) => <Detail d={d} may={me.permissions.includes('disputes.decide')} onDone={done} />}
    />
  );
}

interface Seen {
  at?: string;
  cabinetId?: string;
  slot?: number;
}
const seen = (v: unknown): Seen | null => (v && typeof v === 'object' ? (v as Seen) : null);

/** What the cabinets' records said when the claim was made, as sentences. */
function Evidence({ evidence }: { evidence: Record<string, unknown> }) {
  const t = useT();
  const lang = useStore($activeLang);
  const when = (at?: string) => (at ? new Date(at).toLocaleString(lang) : '—');
  const returned = seen(evidence.returned);
  const anomaly = seen(evidence.anomaly);
  const cabinet = seen(evidence.cabinet) as {
    online?: boolean;
    lastSeenAt?: string | null;
    silentAtClaim?: boolean;
  } | null;
  return (
    <dl className="ops-fields">
      <dt>{t('ops.disputes.evidence.returned')}</dt>
      <dd>
        {returned
          ? t('ops.disputes.evidence.returnedAt', {
              at: when(returned.at),
              cabinet: returned.cabinetId ?? '—',
              slot: returned.slot ?? '—',
            })
          : t('ops.disputes.evidence.none')}
      </dd>
      <dt>{t('ops.disputes.evidence.anomaly')}</dt>
      <dd>
        {anomaly
          ? t('ops.disputes.evidence.anomalyAt', { at: when(anomaly.at), slot: anomaly.slot ?? '—' })
          : t('ops.disputes.evidence.none')}
      </dd>
      <dt>{t('ops.disputes.evidence.cabinet')}</dt>
      <dd>
        {t(cabinet?.online ? 'ops.disputes.evidence.online' : 'ops.disputes.evidence.offline', {
          at: when(cabinet?.lastSeenAt ?? undefined),
        })}
        {cabinet?.silentAtClaim ? (
          <>
            <br />
            {t('ops.disputes.evidence.silent')}
          </>
        ) : null}
      </dd>
    </dl>
  );
}

/** datetime-local (the person's own clock) → ISO, or undefined when empty. */
const isoOf = (local: string) => (local ? new Date(local).toISOString() : undefined);

function Detail({ d, may, onDone }: { d: DisputeItem; may: boolean; onDone: (d: DisputeItem) => void }) {
  const t = useT();
  const lang = useStore($activeLang);
  const [f, setF] = useState({ message: '', note: '', at: '', reason: '' });
  const set = (k: keyof typeof f) => (e: { currentTarget: { value: string } }) =>
    setF({ ...f, [k]: e.currentTarget.value });
  const { note, error, act } = useQueueAction(onDone);
  const decide = (e: React.FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const action = (e.nativeEvent as SubmitEvent).submitter?.getAttribute('value') === 'accept' ? 'accept' : 'reject';
    const body = {
      message: f.message,
      note: f.note,
      reason: f.reason,
      at: action === 'accept' ? isoOf(f.at) : undefined,
    };
    void act(`/disputes/${d.id}/${action}`, body, t(`ops.disputes.done.${action}`, { id: d.id }));
  };
  return (
    <QueueDetail id="ops-dispute" title={t('ops.disputes.title', { id: d.id })} note={note} error={error}>
      <dl className="ops-fields">
        <dt>{t('ops.disputes.rental')}</dt>
        <dd>
          <a href={`#/rentals?id=${encodeURIComponent(d.orderId)}`}>{d.orderId}</a> ·{' '}
          {t(`ops.rentals.states.${STATE_NAMES[d.rentalState] ?? 'pending'}`)}
        </dd>
        <dt>{t('ops.disputes.rider')}</dt>
        <dd>{d.riderId}</dd>
        {d.powerbankId && (
          <>
            <dt>{t('ops.rentals.powerbank')}</dt>
            <dd>{d.powerbankId}</dd>
          </>
        )}
        <dt>{t('ops.disputes.claim')}</dt>
        <dd>{t('ops.disputes.claimText', { cabinet: d.cabinetId, at: new Date(d.claimedAt).toLocaleString(lang) })}</dd>
        <dt>{t('ops.disputes.state')}</dt>
        <dd>{t(`ops.disputes.states.${d.state}`)}</dd>
        {d.message && (
          <>
            <dt>{t('ops.disputes.message')}</dt>
            <dd>{d.message}</dd>
          </>
        )}
        {d.note && (
          <>
            <dt>{t('ops.disputes.note')}</dt>
            <dd>{d.note}</dd>
          </>
        )}
        {d.decidedBy && (
          <>
            <dt>{t('ops.disputes.decidedBy')}</dt>
            <dd>
              {d.decidedBy}
              {d.decidedAt ? ` · ${new Date(d.decidedAt).toLocaleString(lang)}` : ''}
            </dd>
          </>
        )}
      </dl>
      <h3>{t('ops.disputes.evidence.title')}</h3>
      <Evidence evidence={d.evidence} />
      {may && d.state === 'open' && (
        <form className="ops-form" aria-label={t('ops.disputes.decide')} onSubmit={decide}>
          <label>
            {t('ops.disputes.message')}
            <textarea required minLength={3} maxLength={500} value={f.message} onChange={set('message')} />
          </label>
          <label>
            {t('ops.disputes.note')}
            <textarea required minLength={3} maxLength={2000} value={f.note} onChange={set('note')} />
          </label>
          <label>
            {t('ops.disputes.at')}
            <input type="datetime-local" step={1} value={f.at} onChange={set('at')} />
          </label>
          <label>
            {t('ops.reason')}
            <input required minLength={3} maxLength={500} value={f.reason} onChange={set('reason')} />
          </label>
          <button type="submit" name="action" value="accept" className="ops-primary">
            {t('ops.disputes.accept')}
          </button>
          <button type="submit" name="action" value="reject">
            {t('ops.disputes.reject')}
          </button>
        </form>
      )}
    </QueueDetail>
  );
}
