// Rebalancing, for field technicians on a phone: the suggested moves (from, to, how many; nearest first), each
// marked done with the number actually moved and the reason the audit log keeps; the cabinets out of balance; the
// moves done in the last day. Narrowed to an agent for those who see several.
import { useStore } from '@nanostores/react';
import { useCallback, useEffect, useId, useState } from 'react';
import type { RebalancingShape, SuggestedMove } from '../../contract/ops/rebalancing.ts';
import type { Me } from '../../contract/ops/staff.ts';
import { useT } from '../../i18n/index.ts';
import { $lang } from '../../stores/locale.ts';
import { AgentSelect } from '../AgentSelect.tsx';
import { opsCall, withQuery } from '../api.ts';
import { Problem } from './Problem.tsx';

const key = (m: SuggestedMove) => `${m.from}>${m.to}`;

export default function Rebalancing({ me }: { me: Me }) {
  const t = useT();
  const lang = useStore($lang);
  const reasonId = useId();
  const [agent, setAgent] = useState('');
  const [reason, setReason] = useState('');
  const [counts, setCounts] = useState<Record<string, string>>({});
  const [data, setData] = useState<RebalancingShape>();
  const [error, setError] = useState<unknown>();
  const [status, setStatus] = useState('');
  const move = me.permissions.includes('rebalancing.move');
  const load = useCallback(async () => {
    try {
      setData(await opsCall<RebalancingShape>('GET', withQuery('/rebalancing', { agentId: agent || undefined })));
      setError(undefined);
    } catch (e) {
      setError(e);
    }
  }, [agent]);
  useEffect(() => void load(), [load]);
  const place = (id: string) => {
    const c = data?.cabinets.find((x) => x.id === id);
    return c ? t('ops.rebalancing.at', { cabinet: id, venue: c.venueName }) : id;
  };
  const distance = (m: number) =>
    m < 1000
      ? m.toLocaleString(lang, { style: 'unit', unit: 'meter', maximumFractionDigits: 0 })
      : (m / 1000).toLocaleString(lang, { style: 'unit', unit: 'kilometer', maximumFractionDigits: 1 });
  const done = async (m: SuggestedMove) => {
    if (reason.trim().length < 3) {
      setError(new Error(t('ops.rebalancing.reasonNeeded')));
      document.getElementById(reasonId)?.focus();
      return;
    }
    const n = Number(counts[key(m)] ?? m.powerbanks);
    try {
      await opsCall('POST', '/rebalancing/moves', { from: m.from, to: m.to, powerbanks: n, reason: reason.trim() });
      setStatus(t('ops.rebalancing.marked', { n, from: m.from, to: m.to }));
      await load();
    } catch (e) {
      setError(e);
    }
  };
  return (
    <div className="ops-rebalance">
      <div className="ops-filters">
        <AgentSelect me={me} label={t('ops.rebalancing.agent')} value={agent} onChange={setAgent} />
      </div>
      {move && (
        <label className="ops-wide" htmlFor={reasonId}>
          {t('ops.rebalancing.reason')}
          <input id={reasonId} value={reason} onChange={(e) => setReason(e.currentTarget.value)} maxLength={500} />
        </label>
      )}
      <p role="status" className="ops-note">
        {status}
      </p>
      {error instanceof Error && !('status' in error) ? (
        <p className="ops-error" role="alert">
          {error.message}
        </p>
      ) : (
        <Problem error={error} />
      )}
      {data && (
        <>
          <h2>{t('ops.rebalancing.moves')}</h2>
          <ul className="ops-moves">
            {data.moves.map((m) => (
              <li key={key(m)}>
                <p>
                  <strong>{t('ops.rebalancing.move', { n: m.powerbanks })}</strong>
                  {' · '}
                  {distance(m.distanceM)}
                </p>
                <p>{t('ops.rebalancing.from', { place: place(m.from) })}</p>
                <p>{t('ops.rebalancing.to', { place: place(m.to) })}</p>
                {move && (
                  <div className="ops-inline">
                    <label>
                      {t('ops.rebalancing.moved')}
                      <input
                        type="number"
                        inputMode="numeric"
                        min={1}
                        max={200}
                        value={counts[key(m)] ?? String(m.powerbanks)}
                        onChange={(e) => setCounts({ ...counts, [key(m)]: e.currentTarget.value })}
                      />
                    </label>
                    <button type="button" className="ops-primary" onClick={() => void done(m)}>
                      {t('ops.rebalancing.markDone', { from: m.from, to: m.to })}
                    </button>
                  </div>
                )}
              </li>
            ))}
          </ul>
          {!data.moves.length && <p>{t('ops.rebalancing.noMoves')}</p>}
          <h2 id="rebalance-cabinets">{t('ops.rebalancing.cabinets')}</h2>
          <ul className="ops-stock" aria-labelledby="rebalance-cabinets">
            {data.cabinets.map((c) => (
              <li key={c.id}>
                <span>{place(c.id)}</span>
                <span className={`ops-badge ${c.balance === 'under' ? 'ops-offline' : ''}`}>
                  {t(`ops.rebalancing.balance.${c.balance}`, { n: c.powerbanks, slots: c.slots })}
                </span>
                {!c.online && <span className="ops-badge ops-offline">{t('ops.rebalancing.offline')}</span>}
              </li>
            ))}
          </ul>
          {!data.cabinets.length && <p>{t('ops.list.empty')}</p>}
          <h2 id="rebalance-done">{t('ops.rebalancing.done')}</h2>
          <ul className="ops-stock" aria-labelledby="rebalance-done">
            {data.done.map((m) => (
              <li key={m.id}>
                {t('ops.rebalancing.doneLine', {
                  n: m.powerbanks,
                  from: m.from,
                  to: m.to,
                  who: m.doneBy,
                  at: new Date(m.doneAt).toLocaleTimeString(lang),
                })}
              </li>
            ))}
          </ul>
          {!data.done.length && <p>{t('ops.list.empty')}</p>}
        </>
      )}
    </div>
  );
}
