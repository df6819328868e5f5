// One cabinet, live: online, last heartbeat, every slot with its device, charge, temperature, faults and lock,
// kept up to date by the live stream without a reload; remote commands with a reason (by role), assignment to a
// venue (If-Match), and broker credentials shown once.
import { useCallback, useEffect, useRef, useState } from 'react';
import type { CabinetCommandType, CabinetCredentialsIssued, OpsCabinet } from '../../contract/ops/cabinets.ts';
import type { Me } from '../../contract/ops/staff.ts';
import { useT } from '../../i18n/index.ts';
import { opsCall, opsCallTagged } from '../api.ts';
import { useOpsForm } from '../paged.tsx';
import { PlaceDevice } from '../cabinets/device.tsx';
import { useCabinetEvents, useOfflineDeadline } from '../cabinets/live.ts';
import { OnlineBadge, ReasonDialog, ReasonField, useNumbers, useWhen, vendorName } from '../cabinets/parts.tsx';
import { Problem } from './Problem.tsx';

type Pending = { type: CabinetCommandType; slot?: number } | { type: 'credentials' };
/** Our own cabinets have no speaker: the volume is offered for the vendor families only. */
const hasVolume = (vendor: string) => vendor !== 'powerly';

export function CabinetLive({ me, id }: { me: Me; id: string }) {
  const t = useT();
  const when = useWhen();
  const num = useNumbers();
  const [cabinet, setCabinet] = useState<OpsCabinet>();
  const [etag, setEtag] = useState('');
  const [error, setError] = useState<unknown>();
  const [pending, setPending] = useState<Pending>();
  const [secret, setSecret] = useState<CabinetCredentialsIssued>();
  const [level, setLevel] = useState('50');
  const heading = useRef<HTMLHeadingElement>(null);
  const load = useCallback(async () => {
    try {
      const res = await fetchCabinet(id);
      setCabinet(res.cabinet);
      setEtag(res.etag);
      setError(undefined);
    } catch (e) {
      setError(e);
    }
  }, [id]);
  useEffect(() => void load(), [load]);
  useEffect(() => heading.current?.focus(), [id]);
  useCabinetEvents(id, () => void load());
  useOfflineDeadline(cabinet?.lastHeartbeatAt, cabinet?.offlineAfterMs, cabinet?.online ?? false, load);
  const may = (p: 'cabinets.command' | 'fleet.write') => me.permissions.includes(p);
  const send = async (p: Pending, reason: string) => {
    if (p.type === 'credentials') {
      setSecret(
        await opsCall<CabinetCredentialsIssued>('POST', `/cabinets/${encodeURIComponent(id)}/credentials`, { reason }),
      );
    } else {
      // An empty field sends no level: the server names the missing field.
      const extra =
        p.type === 'volume' ? (level.trim() === '' ? {} : { level: Number(level) }) : p.slot ? { slot: p.slot } : {};
      await opsCall('POST', `/cabinets/${encodeURIComponent(id)}/commands`, { type: p.type, ...extra, reason });
    }
    await load();
  };
  const title =
    pending?.type === 'credentials'
      ? t(cabinet?.hasCredentials ? 'ops.cabinets.rotate' : 'ops.cabinets.issue')
      : pending
        ? t(`ops.cabinets.cmd.${pending.type}`) +
          (pending.slot ? ` · ${t('ops.cabinets.slotN', { n: pending.slot })}` : '')
        : '';
  return (
    <>
      <p>
        <a href="#/cabinets">{t('ops.cabinets.back')}</a>
      </p>
      <h2 ref={heading} tabIndex={-1}>
        {t('ops.cabinets.title', { id })}
      </h2>
      <Problem error={error} />
      {cabinet && (
        <>
          <dl className="ops-facts" aria-live="polite">
            <dt>{t('ops.cabinets.state')}</dt>
            <dd>
              <OnlineBadge online={cabinet.online} />
            </dd>
            <dt>{t('ops.cabinets.lastHeartbeat')}</dt>
            <dd>{cabinet.lastHeartbeatAt ? when(cabinet.lastHeartbeatAt) : t('ops.cabinets.never')}</dd>
            <dt>{t('ops.cabinets.vendor')}</dt>
            <dd>{vendorName(t, cabinet.vendor)}</dd>
            <dt>{t('ops.cabinets.venue')}</dt>
            <dd>{cabinet.venueName ?? cabinet.venueId ?? '—'}</dd>
            <dt>{t('ops.cabinets.agent')}</dt>
            <dd>{cabinet.agentId ?? '—'}</dd>
            <dt>{t('ops.cabinets.credentials')}</dt>
            <dd>{cabinet.hasCredentials ? t('ops.cabinets.credentialsSet') : t('ops.cabinets.credentialsNone')}</dd>
            {hasVolume(cabinet.vendor) && (
              <>
                <dt>{t('ops.cabinets.volume')}</dt>
                <dd>{cabinet.volume === null ? '—' : num.percent(cabinet.volume)}</dd>
              </>
            )}
          </dl>
          {may('cabinets.command') && (
            <div className="ops-actions">
              <button type="button" onClick={() => setPending({ type: 'inventory' })}>
                {t('ops.cabinets.cmd.inventory')}
              </button>
              <button type="button" onClick={() => setPending({ type: 'restart' })}>
                {t('ops.cabinets.cmd.restart')}
              </button>
              {hasVolume(cabinet.vendor) && (
                <button
                  type="button"
                  onClick={() => {
                    setLevel(String(cabinet.volume ?? 50));
                    setPending({ type: 'volume' });
                  }}
                >
                  {t('ops.cabinets.cmd.volume')}
                </button>
              )}
            </div>
          )}
          <table className="ops-table">
            <caption className="ops-sr">{t('ops.cabinets.slotsOf', { id })}</caption>
            <thead>
              <tr>
                <th scope="col">{t('ops.cabinets.slot')}</th>
                <th scope="col">{t('ops.cabinets.device')}</th>
                <th scope="col">{t('ops.cabinets.charge')}</th>
                <th scope="col">{t('ops.cabinets.temperature')}</th>
                <th scope="col">{t('ops.cabinets.faults')}</th>
                {may('cabinets.command') && <th scope="col">{t('ops.cabinets.actions')}</th>}
              </tr>
            </thead>
            <tbody>
              {cabinet.slots.map((s) => (
                <tr key={s.slot}>
                  <th scope="row">
                    {s.slot}
                    {s.locked && (
                      <>
                        {' '}
                        · <span className="ops-badge">{t('ops.cabinets.locked')}</span>
                      </>
                    )}
                  </th>
                  <td>
                    {s.deviceId ? (
                      <>
                        {s.deviceId}
                        {s.state === 'quarantined' && <> · {t('ops.cabinets.quarantined')}</>}
                      </>
                    ) : (
                      t('ops.cabinets.empty')
                    )}
                  </td>
                  <td>{s.charge === null ? '—' : num.percent(s.charge)}</td>
                  <td>{s.temperature === null ? '—' : num.celsius(s.temperature)}</td>
                  <td>{s.faults.length ? s.faults.join(', ') : '—'}</td>
                  {may('cabinets.command') && (
                    <td className="ops-actions">
                      <button
                        type="button"
                        aria-disabled={!s.deviceId}
                        onClick={() => s.deviceId && setPending({ type: 'eject', slot: s.slot })}
                        aria-label={t('ops.cabinets.cmdSlot', { cmd: t('ops.cabinets.cmd.eject'), n: s.slot })}
                      >
                        {t('ops.cabinets.cmd.eject')}
                      </button>
                      <button
                        type="button"
                        onClick={() => setPending({ type: s.locked ? 'unlock' : 'lock', slot: s.slot })}
                        aria-label={t('ops.cabinets.cmdSlot', {
                          cmd: t(s.locked ? 'ops.cabinets.cmd.unlock' : 'ops.cabinets.cmd.lock'),
                          n: s.slot,
                        })}
                      >
                        {t(s.locked ? 'ops.cabinets.cmd.unlock' : 'ops.cabinets.cmd.lock')}
                      </button>
                    </td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
          {cabinet.commands.length > 0 && (
            <section aria-labelledby="ops-cab-commands">
              <h3 id="ops-cab-commands">{t('ops.cabinets.commands')}</h3>
              <ul className="ops-commands">
                {cabinet.commands.map((c) => (
                  <li key={c.id}>
                    {when(c.at)} · {t(`ops.cabinets.cmd.${c.type}`)}
                    {c.slot ? ` · ${t('ops.cabinets.slotN', { n: c.slot })}` : ''} · {commandState(t, c.state)}
                  </li>
                ))}
              </ul>
            </section>
          )}
          {may('fleet.write') && <Assign cabinet={cabinet} etag={etag} onSaved={load} />}
          {may('fleet.write') && <PlaceDevice cabinetId={cabinet.id} slots={cabinet.slotCount} onDone={load} />}
          {may('fleet.write') && (
            <section aria-labelledby="ops-cab-cred">
              <h3 id="ops-cab-cred">{t('ops.cabinets.credentials')}</h3>
              <p>
                {t(cabinet.vendor === 'tcp60' ? 'ops.cabinets.credentialsLeadToken' : 'ops.cabinets.credentialsLead')}
              </p>
              <button
                type="button"
                onClick={() => {
                  setSecret(undefined);
                  setPending({ type: 'credentials' });
                }}
              >
                {t(cabinet.hasCredentials ? 'ops.cabinets.rotate' : 'ops.cabinets.issue')}
              </button>
              {secret && (
                <div role="status" className="ops-secret">
                  <p>
                    {t(secret.kind === 'token-secret' ? 'ops.cabinets.secretOnceToken' : 'ops.cabinets.secretOnce')}
                  </p>
                  <dl className="ops-facts">
                    <dt>{t('ops.cabinets.username')}</dt>
                    <dd>
                      <code>{secret.username}</code>
                    </dd>
                    <dt>{t(secret.kind === 'token-secret' ? 'ops.cabinets.tokenSecret' : 'ops.cabinets.password')}</dt>
                    <dd>
                      <code>{secret.password}</code>
                    </dd>
                  </dl>
                </div>
              )}
            </section>
          )}
        </>
      )}
      <ReasonDialog
        open={!!pending}
        title={title}
        lead={
          pending?.type === 'restart'
            ? t('ops.cabinets.restartLead')
            : pending?.type === 'credentials'
              ? t('ops.cabinets.rotateLead')
              : undefined
        }
        confirm={t('ops.cabinets.send')}
        act={(reason) => send(pending!, reason)}
        onClose={() => setPending(undefined)}
      >
        {pending?.type === 'volume' && (
          <div className="ops-form">
            <label>
              {t('ops.cabinets.volumeLevel')}
              <input
                type="number"
                inputMode="numeric"
                min={0}
                max={100}
                step={1}
                value={level}
                onChange={(e) => setLevel(e.currentTarget.value)}
              />
            </label>
          </div>
        )}
      </ReasonDialog>
    </>
  );
}

async function fetchCabinet(id: string): Promise<{ cabinet: OpsCabinet; etag: string }> {
  const { data: cabinet, etag } = await opsCallTagged<OpsCabinet>('GET', `/cabinets/${encodeURIComponent(id)}`);
  return { cabinet, etag };
}

function commandState(t: ReturnType<typeof useT>, state: string): string {
  const known = ['sent', 'accepted', 'popped', 'expired', 'unknown_command', 'not-sent'];
  if (known.includes(state)) return t(`ops.cabinets.answer.${state}`);
  const failed = /^pop-failed:(.+)$/.exec(state);
  return failed ? t('ops.cabinets.answer.failed', { reason: t(`ops.cabinets.failure.${failed[1]}`) }) : state;
}

function Assign({ cabinet, etag, onSaved }: { cabinet: OpsCabinet; etag: string; onSaved: () => Promise<void> }) {
  const t = useT();
  const [saved, setSaved] = useState(false);
  const { form, setForm, error, submit } = useOpsForm(
    { venueId: cabinet.venueId ?? '', reason: '' },
    async (f) => {
      setSaved(false);
      await opsCall(
        'PATCH',
        `/cabinets/${encodeURIComponent(cabinet.id)}`,
        { venueId: f.venueId.trim() || null, reason: f.reason },
        { 'if-match': etag },
      );
      setForm({ ...f, reason: '' });
      setSaved(true);
      await onSaved();
    },
    true,
  );
  return (
    <section aria-labelledby="ops-cab-assign">
      <h3 id="ops-cab-assign">{t('ops.cabinets.assign')}</h3>
      <form className="ops-form" onSubmit={submit}>
        <label>
          {t('ops.cabinets.venueOptional')}
          <input
            maxLength={64}
            pattern="[A-Za-z0-9._\-]{1,64}"
            value={form.venueId}
            onChange={(e) => setForm({ ...form, venueId: e.currentTarget.value })}
          />
        </label>
        <ReasonField value={form.reason} onChange={(reason) => setForm({ ...form, reason })} />
        <button type="submit" className="ops-primary">
          {t('ops.cabinets.save')}
        </button>
      </form>
      {saved && <p role="status">{t('ops.cabinets.saved')}</p>}
      <Problem error={error} />
    </section>
  );
}
