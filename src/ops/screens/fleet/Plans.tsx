// Price plans of one venue or one agent (#/plans?venueId=… or ?agentId=…): the plans from their effective times,
// newest first per device, which one charges now, and the form of a new plan. A plan in effect is never edited:
// a new one takes over from its time, and a rental keeps the plan it started with.
import { useStore } from '@nanostores/react';
import { useCallback, useEffect, useState } from 'react';
import type { Plan, Venue } from '../../../contract/ops/fleet.ts';
import type { Me } from '../../../contract/ops/staff.ts';
import { formatMoney } from '../../../core/money.ts';
import { $activeLang, useT } from '../../../i18n/index.ts';
import { opsCall } from '../../api.ts';
import { Field, Select } from '../../form.tsx';
import { $route, go } from '../../route.ts';
import { Problem } from '../Problem.tsx';
import { PlanForm, type PlanOwner } from './PlanForm.tsx';

export function Plans({ me }: { me: Me }) {
  const t = useT();
  const route = useStore($route);
  const venueId = route.query.get('venueId') ?? undefined;
  const agentId = route.query.get('agentId') ?? undefined;
  const [kind, setKind] = useState<'venueId' | 'agentId'>(agentId ? 'agentId' : 'venueId');
  const [ownerId, setOwnerId] = useState(venueId ?? agentId ?? '');
  return (
    <>
      <form
        className="ops-filters"
        onSubmit={(e) => {
          e.preventDefault();
          go(`/plans?${kind}=${encodeURIComponent(ownerId.trim())}`);
        }}
      >
        <Select
          label={t('ops.plans.ownerKind')}
          value={kind}
          options={[
            ['venueId', t('ops.plans.ofVenue')],
            ['agentId', t('ops.plans.ofAgent')],
          ]}
          onValue={setKind}
        />
        <Field
          label={t('ops.plans.ownerId')}
          required
          pattern="[A-Za-z0-9._\-]{1,64}"
          value={ownerId}
          onValue={setOwnerId}
        />
        <button type="submit">{t('ops.list.apply')}</button>
      </form>
      {(venueId || agentId) && (
        <PlanList key={`${venueId}/${agentId}`} me={me} owner={venueId ? { venueId } : { agentId }} />
      )}
    </>
  );
}

function PlanList({ me, owner }: { me: Me; owner: PlanOwner }) {
  const t = useT();
  const lang = useStore($activeLang);
  const [plans, setPlans] = useState<Plan[]>();
  const [currency, setCurrency] = useState<string>();
  const [error, setError] = useState<unknown>();
  const q = owner.venueId
    ? `venueId=${encodeURIComponent(owner.venueId)}`
    : `agentId=${encodeURIComponent(owner.agentId!)}`;
  const load = useCallback(async () => {
    try {
      setPlans((await opsCall<{ items: Plan[] }>('GET', `/plans?${q}`)).items);
      if (owner.venueId)
        setCurrency((await opsCall<Venue>('GET', `/venues/${encodeURIComponent(owner.venueId)}`)).currency);
    } catch (e) {
      setError(e);
    }
  }, [q, owner.venueId]);
  useEffect(() => void load(), [load]);
  const now = Date.now();
  const current = new Set(
    ['cdb', 'station', 'mifi'].map(
      (k) => plans?.find((p) => p.deviceKind === k && Date.parse(p.effectiveFrom) <= now)?.id,
    ),
  );
  return (
    <>
      <h2>
        {owner.venueId
          ? t('ops.plans.titleVenue', { id: owner.venueId })
          : t('ops.plans.titleAgent', { id: owner.agentId! })}
      </h2>
      {plans && (
        <table className="ops-table">
          <thead>
            <tr>
              <th scope="col">{t('ops.plans.effectiveFrom')}</th>
              <th scope="col">{t('ops.plans.deviceKind')}</th>
              <th scope="col">{t('ops.plans.type')}</th>
              <th scope="col">{t('ops.plans.unitPrice')}</th>
              <th scope="col">{t('ops.plans.freeMinutes')}</th>
              <th scope="col">{t('ops.plans.dailyCap')}</th>
              <th scope="col">{t('ops.plans.deposit')}</th>
              <th scope="col">{t('ops.plans.status')}</th>
            </tr>
          </thead>
          <tbody>
            {plans.map((p) => (
              <tr key={p.id}>
                <td>{new Date(p.effectiveFrom).toLocaleString(lang)}</td>
                <td>{t(`ops.device.${p.deviceKind}`)}</td>
                <td>{p.type === 'tiered' ? t('ops.plans.typeTiered') : t('ops.plans.typeUnit')}</td>
                <td>
                  {formatMoney(p.unitPrice, p.currency, lang)} / {p.unitLength} {t(`ops.plans.unit.${p.priceUnit}`)}
                </td>
                <td>{p.freeMinutes}</td>
                <td>{p.dailyCap ? formatMoney(p.dailyCap, p.currency, lang) : '—'}</td>
                <td>
                  {formatMoney(p.deposit, p.currency, lang)} · {t(`ops.plans.${p.depositType}`)}
                </td>
                <td>
                  {Date.parse(p.effectiveFrom) > now
                    ? t('ops.plans.scheduled')
                    : current.has(p.id)
                      ? t('ops.plans.current')
                      : t('ops.plans.replaced')}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {plans && !plans.length && <p>{t('ops.list.empty')}</p>}
      <Problem error={error} />
      {me.permissions.includes('pricing.write') && (!owner.venueId || currency) && (
        <PlanForm owner={{ ...owner, currency }} onSaved={() => void load()} />
      )}
    </>
  );
}
