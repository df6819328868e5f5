// Agents (the operators venues belong to, and the embed's hosts): the list, and one agent's currencies and the
// exact origins allowed to frame the widget, saved with the ETag read (a later save by someone else: 409), and the
// snippet for its partner sites. A new agent is made by platform staff.
import { useStore } from '@nanostores/react';
import { useEffect, useState } from 'react';
import type { Agent } from '../../../contract/ops/fleet.ts';
import type { Me } from '../../../contract/ops/staff.ts';
import { useT } from '../../../i18n/index.ts';
import { opsCallTagged } from '../../api.ts';
import { usePaged } from '../../paged.tsx';
import { Field, SaveRow } from '../../form.tsx';
import { $route, go } from '../../route.ts';
import { Problem } from '../Problem.tsx';
import { Snippet } from './Snippet.tsx';

export function Agents({ me }: { me: Me }) {
  const route = useStore($route);
  const id = route.query.get('id');
  if (id || route.query.has('new')) return <AgentForm key={id ?? 'new'} id={id} me={me} />;
  return <AgentList me={me} />;
}

function AgentList({ me }: { me: Me }) {
  const t = useT();
  const [q, setQ] = useState('');
  const [sort, setSort] = useState('name');
  const { rows, next, error, load } = usePaged<Agent>('/agents', { q, sort });
  const platform = me.memberships.some((m) => m.agentId === '*');
  return (
    <>
      {platform && me.permissions.includes('agents.write') && (
        <p>
          <a className="ops-button ops-primary" href="#/agents?new=1">
            {t('ops.agents.new')}
          </a>
        </p>
      )}
      <form
        className="ops-filters"
        role="search"
        onSubmit={(e) => {
          e.preventDefault();
          void load();
        }}
      >
        <label>
          {t('ops.agents.search')}
          <input type="search" value={q} onChange={(e) => setQ(e.currentTarget.value)} />
        </label>
        <label>
          {t('ops.staff.sort')}
          <select value={sort} onChange={(e) => setSort(e.currentTarget.value)}>
            <option value="name">{t('ops.agents.name')} ↑</option>
            <option value="-name">{t('ops.agents.name')} ↓</option>
            <option value="id">{t('ops.agents.id')} ↑</option>
            <option value="-id">{t('ops.agents.id')} ↓</option>
          </select>
        </label>
      </form>
      <table className="ops-table">
        <thead>
          <tr>
            <th scope="col">{t('ops.agents.name')}</th>
            <th scope="col">{t('ops.agents.id')}</th>
            <th scope="col">{t('ops.agents.country')}</th>
            <th scope="col">{t('ops.agents.currencies')}</th>
            <th scope="col">{t('ops.agents.origins')}</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((a) => (
            <tr key={a.id}>
              <td>
                <a href={`#/agents?id=${encodeURIComponent(a.id)}`}>{a.name}</a>
              </td>
              <td>{a.id}</td>
              <td>{a.country ?? '—'}</td>
              <td>{a.currencies.join(', ')}</td>
              <td>{a.origins.join(' ')}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {!rows.length && !error && <p>{t('ops.list.empty')}</p>}
      {next && (
        <button type="button" onClick={() => void load(next)}>
          {t('ops.list.more')}
        </button>
      )}
      <Problem error={error} />
    </>
  );
}

const list = (s: string) =>
  s
    .split(/[\s,]+/)
    .map((x) => x.trim())
    .filter(Boolean);

function AgentForm({ id, me }: { id: string | null; me: Me }) {
  const t = useT();
  const [d, setD] = useState({ id: '', name: '', country: '', currencies: '', origins: '', depositByPayment: false });
  const [etag, setEtag] = useState('');
  const [reason, setReason] = useState('');
  const [saved, setSaved] = useState('');
  const [error, setError] = useState<unknown>();
  const load = (a: Agent, tag: string) => {
    setD({
      id: a.id,
      name: a.name,
      country: a.country ?? '',
      currencies: a.currencies.join(', '),
      origins: a.origins.join('\n'),
      depositByPayment: a.depositByPayment,
    });
    setEtag(tag);
  };
  useEffect(() => {
    if (id)
      opsCallTagged<Agent>('GET', `/agents/${encodeURIComponent(id)}`).then(
        ({ data, etag: tag }) => load(data, tag),
        setError,
      );
  }, [id]);
  const mayWrite = me.permissions.includes('agents.write');
  const set = (k: Exclude<keyof typeof d, 'depositByPayment'>) => (v: string) => setD({ ...d, [k]: v });
  const submit = async (e: React.FormEvent) => {
    e.preventDefault();
    setError(undefined);
    setSaved('');
    const body = {
      name: d.name,
      ...(d.country && { country: d.country }),
      currencies: list(d.currencies.toUpperCase()),
      origins: list(d.origins),
      depositByPayment: d.depositByPayment,
      reason,
    };
    try {
      const res = id
        ? await opsCallTagged<Agent>('PATCH', `/agents/${encodeURIComponent(id)}`, body, { 'if-match': etag })
        : await opsCallTagged<Agent>('POST', '/agents', { ...body, id: d.id });
      load(res.data, res.etag);
      setReason('');
      setSaved(t('ops.form.saved'));
      if (!id) go(`/agents?id=${encodeURIComponent(res.data.id)}`);
    } catch (err) {
      setError(err);
    }
  };
  return (
    <>
      <form onSubmit={(e) => void submit(e)} aria-labelledby="ops-agent-title">
        <h2 id="ops-agent-title">{id ? d.name || id : t('ops.agents.new')}</h2>
        <p>
          <a href="#/agents">{t('ops.agents.back')}</a>
          {id && (
            <>
              {' '}
              · <a href={`#/plans?agentId=${encodeURIComponent(id)}`}>{t('ops.venues.prices')}</a>
            </>
          )}
        </p>
        <fieldset className="ops-fieldset" disabled={!mayWrite}>
          <legend>{t('ops.agents.settings')}</legend>
          <div className="ops-form">
            {!id && (
              <Field
                label={t('ops.agents.id')}
                required
                pattern="[A-Za-z0-9._\-]{1,64}"
                value={d.id}
                onValue={set('id')}
              />
            )}
            <Field label={t('ops.agents.name')} required maxLength={120} value={d.name} onValue={set('name')} />
            <Field
              label={t('ops.agents.country')}
              pattern="[A-Z]{2}"
              maxLength={2}
              value={d.country}
              onValue={(v) => set('country')(v.toUpperCase())}
            />
            <Field
              label={t('ops.agents.currencies')}
              pattern="\s*([A-Za-z]{3}[\s,]*)*"
              value={d.currencies}
              onValue={set('currencies')}
              hint={t('ops.agents.currenciesHint')}
            />
          </div>
          <label className="ops-wide">
            {t('ops.agents.origins')}
            <textarea
              rows={4}
              value={d.origins}
              onChange={(e) => set('origins')(e.currentTarget.value)}
              aria-describedby="ops-origins-hint"
            />
          </label>
          <p className="ops-note" id="ops-origins-hint">
            {t('ops.agents.originsHint')}
          </p>
          <label className="ops-check">
            <input
              type="checkbox"
              checked={d.depositByPayment}
              aria-describedby="ops-deposit-hint"
              onChange={(e) => setD({ ...d, depositByPayment: e.currentTarget.checked })}
            />
            {t('ops.agents.depositByPayment')}
          </label>
          <p className="ops-note" id="ops-deposit-hint">
            {t('ops.agents.depositByPaymentHint')}
          </p>
        </fieldset>
        {mayWrite ? (
          <SaveRow reason={reason} onReason={setReason} saved={saved} error={error} />
        ) : (
          <Problem error={error} />
        )}
      </form>
      {id && <Snippet agent={id} />}
    </>
  );
}
