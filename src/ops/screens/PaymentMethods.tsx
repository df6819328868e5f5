// Payment methods of an agent: which methods its riders are offered and, for each, whether its keys are set (never
// their values, which the server keeps sealed). Owners and admins switch a method on or off and write its keys (a
// new value rotates a key), saved with the ETag read (someone else's save since: 409, nothing overwritten);
// finance reads. The platform's own methods ("powerly") are platform staff's.
import { useStore } from '@nanostores/react';
import { useCallback, useEffect, useState } from 'react';
import type { PaymentMethodSetting, PaymentSettings } from '../../contract/ops/payment-settings.ts';
import type { Me } from '../../contract/ops/staff.ts';
import { useT } from '../../i18n/index.ts';
import { opsCall } from '../api.ts';
import { $route, go } from '../route.ts';
import { Problem } from './Problem.tsx';
import { MethodForm } from './payments/MethodForm.tsx';

const PLATFORM = 'powerly';

/** The agents the person may look at: their own, or (platform staff) the platform's and every agent. */
function useAgents(me: Me): string[] {
  const platform = me.memberships.some((m) => m.agentId === '*');
  const own = me.memberships
    .filter((m) => m.agentId !== '*' && (m.role === 'owner' || m.role === 'admin' || m.role === 'finance'))
    .map((m) => m.agentId);
  const [all, setAll] = useState<string[]>([]);
  useEffect(() => {
    if (!platform || !me.permissions.includes('fleet.read')) return;
    void opsCall<{ items: Array<{ id: string }> }>('GET', '/agents?limit=200&sort=id')
      .then((p) => setAll(p.items.map((a) => a.id)))
      .catch(() => undefined);
  }, [platform, me.permissions]);
  return [...new Set([...(platform ? [PLATFORM] : []), ...own, ...all])];
}

export function PaymentMethods({ me }: { me: Me }) {
  const t = useT();
  const route = useStore($route);
  const agents = useAgents(me);
  const agent = route.query.get('agent') ?? agents[0] ?? '';
  const editing = route.query.get('method');
  const [data, setData] = useState<PaymentSettings>();
  const [error, setError] = useState<unknown>();
  const load = useCallback(async () => {
    if (!agent) return;
    setError(undefined);
    try {
      setData(await opsCall<PaymentSettings>('GET', `/agents/${encodeURIComponent(agent)}/payment-methods`));
    } catch (err) {
      setData(undefined);
      setError(err);
    }
  }, [agent]);
  useEffect(() => {
    void load();
  }, [load]);
  const canWrite = me.permissions.includes('payments.configure');
  const at = (a: string, method?: string) =>
    go(`/payment-methods?agent=${encodeURIComponent(a)}${method ? `&method=${encodeURIComponent(method)}` : ''}`);
  const method = data?.items.find((m) => m.method === editing);
  return (
    <>
      <form className="ops-filters" onSubmit={(e) => e.preventDefault()}>
        <label>
          {t('ops.payments.agent')}
          <select value={agent} onChange={(e) => at(e.currentTarget.value)}>
            {agents.map((a) => (
              <option key={a} value={a}>
                {a === PLATFORM ? t('ops.payments.platform') : a}
              </option>
            ))}
          </select>
        </label>
      </form>
      <Problem error={error} />
      {data && (
        <>
          <p>{data.own ? t('ops.payments.own') : t('ops.payments.inherits')}</p>
          {!data.canSeal && <p role="note">{t('ops.payments.noSealKey')}</p>}
          <table className="ops-table">
            <caption className="ops-sr">{t('ops.payments.caption', { agent })}</caption>
            <thead>
              <tr>
                <th scope="col">{t('ops.payments.method')}</th>
                <th scope="col">{t('ops.payments.riderSees')}</th>
                <th scope="col">{t('ops.payments.state')}</th>
                <th scope="col">{t('ops.payments.keys')}</th>
                <th scope="col">{t('ops.staff.actions')}</th>
              </tr>
            </thead>
            <tbody>
              {data.items.map((m) => (
                <tr key={m.method}>
                  <td>{m.method}</td>
                  <td>
                    {m.labels.join(', ')}
                    {m.currencies ? ` (${m.currencies.join(', ')})` : ''}
                  </td>
                  <td>
                    {m.enabled ? t('ops.payments.on') : t('ops.payments.off')}
                    {m.testMode ? (
                      <small> · {t('ops.payments.testMode')}</small>
                    ) : (
                      m.source !== 'none' && <small> · {t(`ops.payments.source.${m.source}`)}</small>
                    )}
                  </td>
                  <td>{keysSummary(t, m)}</td>
                  <td>
                    <button type="button" onClick={() => at(agent, m.method)}>
                      {canWrite ? t('ops.payments.edit') : t('ops.payments.view')}
                      <span className="ops-sr"> · {m.method}</span>
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
      {data && method && (
        <MethodForm
          key={`${agent}/${method.method}`}
          agent={agent}
          method={method}
          canWrite={canWrite}
          canSeal={data.canSeal}
          onClose={() => at(agent)}
          onSaved={() => void load()}
        />
      )}
    </>
  );
}

function keysSummary(t: ReturnType<typeof useT>, m: PaymentMethodSetting): string {
  const required = m.keys.filter((k) => k.required);
  if (!required.length) return t('ops.payments.noKeys');
  const set = required.filter((k) => k.state !== 'unset').length;
  return t('ops.payments.keysSet', { set, total: required.length });
}
