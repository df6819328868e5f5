// A new price plan of a venue or an agent: every pricing type the rider app shows (per unit with free minutes and
// a daily cap, several days per unit, tiered rows; the deposit and its type; the buy-out after overtime days),
// amounts typed in the currency's major units, from an effective time (empty: now), with its live fee preview.
import { useState } from 'react';
import type { Plan } from '../../../contract/ops-fleet.ts';
import { parseDecimal, toDecimalText } from '../../../core/money.ts';
import { useT } from '../../../i18n/index.ts';
import { opsCall } from '../../api.ts';
import { Field, SaveRow, Select } from '../../form.tsx';
import { FeePreview } from './FeePreview.tsx';

export interface PlanOwner {
  venueId?: string;
  agentId?: string;
  /** The venue's currency (an agent's plan names its own). */
  currency?: string;
}

const MONEY = '\\d+(\\.\\d+)?';
const emptyPlan = (currency: string) => ({
  deviceKind: 'cdb' as Plan['deviceKind'],
  type: 'unit' as Plan['type'],
  unitPrice: '1',
  unitLength: '30',
  priceUnit: 'minute' as Plan['priceUnit'],
  freeMinutes: '0',
  dailyCap: '6',
  deposit: '25',
  depositType: 'preauth' as Plan['depositType'],
  overtimeAmount: '25',
  overtimeDays: '2',
  tiers: [] as Array<{ start: string; end: string; fee: string }>,
  currency,
  effectiveFrom: '',
});
type Draft = ReturnType<typeof emptyPlan>;

/** The plan as the API takes it (amounts in minor units), or undefined while an amount is not a valid number. */
function planOf(d: Draft, owner: PlanOwner): Record<string, unknown> | undefined {
  const cur = owner.currency ?? d.currency;
  const m = (s: string) => parseDecimal(s, /^[A-Z]{3}$/.test(cur) ? cur : 'EUR');
  const amounts = [d.unitPrice, d.dailyCap, d.deposit, d.overtimeAmount, ...d.tiers.map((x) => x.fee)].map(m);
  if (amounts.some((a) => a === null)) return undefined;
  const [unitPrice, dailyCap, deposit, overtimeAmount] = amounts as number[];
  return {
    ...(owner.venueId ? { venueId: owner.venueId } : { agentId: owner.agentId, currency: d.currency }),
    deviceKind: d.deviceKind,
    type: d.type,
    unitPrice,
    unitLength: Number(d.unitLength),
    priceUnit: d.priceUnit,
    freeMinutes: Number(d.freeMinutes),
    dailyCap,
    deposit,
    depositType: d.depositType,
    overtimeAmount,
    overtimeDays: Number(d.overtimeDays),
    ...(d.type === 'tiered' && {
      tiers: d.tiers.map((x, i) => ({
        startMinute: Number(x.start),
        endMinute: Number(x.end),
        totalFee: amounts[4 + i]!,
      })),
    }),
    ...(d.effectiveFrom && { effectiveFrom: new Date(d.effectiveFrom).toISOString() }),
  };
}

export function PlanForm({ owner, onSaved }: { owner: PlanOwner; onSaved: (p: Plan) => void }) {
  const t = useT();
  const [d, setD] = useState<Draft>(() => emptyPlan(owner.currency ?? 'EUR'));
  const [reason, setReason] = useState('');
  const [error, setError] = useState<unknown>();
  const [saved, setSaved] = useState('');
  const set =
    <K extends keyof Draft>(k: K) =>
    (v: Draft[K]) =>
      setD((x) => ({ ...x, [k]: v }));
  const setTier = (i: number, k: 'start' | 'end' | 'fee', v: string) =>
    set('tiers')(d.tiers.map((x, j) => (j === i ? { ...x, [k]: v } : x)));
  const plan = planOf(d, owner);
  const submit = async (e: React.FormEvent) => {
    e.preventDefault();
    setError(undefined);
    setSaved('');
    try {
      const p = await opsCall<Plan>('POST', '/plans', { ...plan, reason });
      setSaved(t('ops.form.saved'));
      setReason('');
      onSaved(p);
    } catch (err) {
      setError(err);
    }
  };
  const cur = owner.currency ?? d.currency;
  const money = (label: string, k: 'unitPrice' | 'dailyCap' | 'deposit' | 'overtimeAmount', hint?: string) => (
    <Field
      label={`${label} (${cur})`}
      required
      inputMode="decimal"
      pattern={MONEY}
      value={d[k]}
      onValue={set(k)}
      hint={hint}
    />
  );
  return (
    <section aria-labelledby="ops-plan-new">
      <h2 id="ops-plan-new">{t('ops.plans.new')}</h2>
      <form onSubmit={(e) => void submit(e)}>
        <div className="ops-form">
          <Select
            label={t('ops.plans.deviceKind')}
            value={d.deviceKind}
            options={(['cdb', 'station', 'mifi'] as const).map((k) => [k, t(`ops.device.${k}`)])}
            onValue={set('deviceKind')}
          />
          <Select
            label={t('ops.plans.type')}
            value={d.type}
            options={[
              ['unit', t('ops.plans.typeUnit')],
              ['tiered', t('ops.plans.typeTiered')],
            ]}
            onValue={set('type')}
          />
          {owner.agentId && (
            <Field
              label={t('ops.venues.currency')}
              required
              pattern="[A-Z]{3}"
              maxLength={3}
              value={d.currency}
              onValue={(v) => set('currency')(v.toUpperCase())}
            />
          )}
          <Field
            label={t('ops.plans.effectiveFrom')}
            type="datetime-local"
            value={d.effectiveFrom}
            onValue={set('effectiveFrom')}
            hint={t('ops.plans.effectiveHint')}
          />
        </div>
        <fieldset className="ops-fieldset">
          <legend>{t('ops.plans.charging')}</legend>
          <div className="ops-form">
            {money(t('ops.plans.unitPrice'), 'unitPrice')}
            <Field
              label={t('ops.plans.unitLength')}
              required
              type="number"
              min={1}
              max={100000}
              value={d.unitLength}
              onValue={set('unitLength')}
            />
            <Select
              label={t('ops.plans.priceUnit')}
              value={d.priceUnit}
              options={(['minute', 'hour', 'day'] as const).map((u) => [u, t(`ops.plans.unit.${u}`)])}
              onValue={set('priceUnit')}
            />
            <Field
              label={t('ops.plans.freeMinutes')}
              required
              type="number"
              min={0}
              max={100000}
              value={d.freeMinutes}
              onValue={set('freeMinutes')}
            />
            {money(t('ops.plans.dailyCap'), 'dailyCap', t('ops.plans.dailyCapHint'))}
          </div>
          {d.type === 'tiered' && (
            <table className="ops-table ops-narrow">
              <caption>{t('ops.plans.tiers')}</caption>
              <thead>
                <tr>
                  <th scope="col">{t('ops.plans.tierFrom')}</th>
                  <th scope="col">{t('ops.plans.tierTo')}</th>
                  <th scope="col">{t('ops.plans.tierFee', { currency: cur })}</th>
                  <th scope="col">
                    <span className="ops-sr">{t('ops.form.remove')}</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {d.tiers.map((x, i) => (
                  <tr key={i}>
                    <td>
                      <input
                        aria-label={`${t('ops.plans.tierFrom')} ${i + 1}`}
                        required
                        type="number"
                        min={0}
                        value={x.start}
                        onChange={(e) => setTier(i, 'start', e.currentTarget.value)}
                      />
                    </td>
                    <td>
                      <input
                        aria-label={`${t('ops.plans.tierTo')} ${i + 1}`}
                        required
                        type="number"
                        min={1}
                        value={x.end}
                        onChange={(e) => setTier(i, 'end', e.currentTarget.value)}
                      />
                    </td>
                    <td>
                      <input
                        aria-label={`${t('ops.plans.tierFee', { currency: cur })} ${i + 1}`}
                        required
                        inputMode="decimal"
                        pattern={MONEY}
                        value={x.fee}
                        onChange={(e) => setTier(i, 'fee', e.currentTarget.value)}
                      />
                    </td>
                    <td>
                      <button type="button" onClick={() => set('tiers')(d.tiers.filter((_, j) => j !== i))}>
                        {t('ops.form.remove')}
                        <span className="ops-sr"> {i + 1}</span>
                      </button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          {d.type === 'tiered' && (
            <button
              type="button"
              onClick={() => {
                const last = d.tiers.at(-1);
                set('tiers')([
                  ...d.tiers,
                  {
                    start: last?.end ?? '0',
                    end: String(Number(last?.end ?? 0) + 60),
                    fee: last?.fee ?? toDecimalText(0, 'EUR'),
                  },
                ]);
              }}
            >
              {t('ops.plans.addTier')}
            </button>
          )}
        </fieldset>
        <fieldset className="ops-fieldset">
          <legend>{t('ops.plans.depositTitle')}</legend>
          <div className="ops-form">
            {money(t('ops.plans.deposit'), 'deposit')}
            <Select
              label={t('ops.plans.depositType')}
              value={d.depositType}
              options={[
                ['preauth', t('ops.plans.preauth')],
                ['wallet', t('ops.plans.wallet')],
              ]}
              onValue={set('depositType')}
            />
            {money(t('ops.plans.overtimeAmount'), 'overtimeAmount')}
            <Field
              label={t('ops.plans.overtimeDays')}
              required
              type="number"
              min={1}
              max={365}
              value={d.overtimeDays}
              onValue={set('overtimeDays')}
            />
          </div>
        </fieldset>
        <SaveRow reason={reason} onReason={setReason} label={t('ops.plans.create')} saved={saved} error={error} />
      </form>
      {plan && <FeePreview plan={plan} />}
    </section>
  );
}
