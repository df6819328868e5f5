// Coupons: the list with each coupon's uses (redeemed, under way, given per currency), its latest redemptions on
// demand, pause and resume with a reason; finance, admins and owners create coupons (percentage or fixed amount).
import { useStore } from '@nanostores/react';
import { useCallback, useEffect, useState } from 'react';
import type { Coupon, CouponDetail, CouponPage } from '../../contract/ops/coupons.ts';
import type { Me } from '../../contract/ops/staff.ts';
import { formatMoney, toMinor } from '../../core/money.ts';
import { $activeLang, useT } from '../../i18n/index.ts';
import { opsCall, withQuery } from '../api.ts';
import { Problem } from './Problem.tsx';

export function Coupons({ me }: { me: Me }) {
  const t = useT();
  const [rows, setRows] = useState<Coupon[]>([]);
  const [next, setNext] = useState<string>();
  const [error, setError] = useState<unknown>();
  const load = useCallback(async (cursor?: string) => {
    try {
      const page = await opsCall<CouponPage>('GET', withQuery('/coupons', { cursor, limit: 50 }));
      setRows((r) => (cursor ? [...r, ...page.items] : page.items));
      setNext(page.next);
      setError(undefined);
    } catch (e) {
      setError(e);
    }
  }, []);
  useEffect(() => void load(), [load]);
  const write = me.permissions.includes('coupons.write');
  return (
    <>
      <table className="ops-table">
        <thead>
          <tr>
            <th scope="col">{t('ops.coupons.code')}</th>
            <th scope="col">{t('ops.coupons.value')}</th>
            <th scope="col">{t('ops.coupons.valid')}</th>
            <th scope="col">{t('ops.coupons.scope')}</th>
            <th scope="col">{t('ops.coupons.uses')}</th>
            <th scope="col">{t('ops.coupons.state')}</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((c) => (
            <Row
              key={c.id}
              coupon={c}
              write={write}
              onChange={(u) => setRows((r) => r.map((x) => (x.id === u.id ? u : x)))}
            />
          ))}
        </tbody>
      </table>
      {!rows.length && <p>{t('ops.list.empty')}</p>}
      {next && (
        <button type="button" onClick={() => void load(next)}>
          {t('ops.list.more')}
        </button>
      )}
      <Problem error={error} />
      {write && <Create me={me} onCreated={() => void load()} />}
    </>
  );
}

function Row({ coupon: c, write, onChange }: { coupon: Coupon; write: boolean; onChange: (c: Coupon) => void }) {
  const t = useT();
  const lang = useStore($activeLang);
  const [reason, setReason] = useState('');
  const [detail, setDetail] = useState<CouponDetail>();
  const [error, setError] = useState<unknown>();
  const when = (iso: string) => new Date(iso).toLocaleString(lang);
  const toggle = async (e: React.FormEvent) => {
    e.preventDefault();
    try {
      onChange(await opsCall<Coupon>('POST', `/coupons/${c.id}/paused`, { paused: !c.paused, reason }));
      setReason('');
      setError(undefined);
    } catch (err) {
      setError(err);
    }
  };
  const open = async (e: React.SyntheticEvent<HTMLDetailsElement>) => {
    if (!e.currentTarget.open || detail) return;
    try {
      setDetail(await opsCall<CouponDetail>('GET', `/coupons/${c.id}`));
    } catch (err) {
      setError(err);
    }
  };
  const given = Object.entries(c.given)
    .map(([cur, minor]) => formatMoney(minor, cur, lang))
    .join(', ');
  return (
    <tr>
      <td>{c.code}</td>
      <td>
        {c.kind === 'percent'
          ? new Intl.NumberFormat(lang, { style: 'percent' }).format(c.percent! / 100)
          : formatMoney(c.amount!, c.currency!, lang)}
      </td>
      <td>
        {when(c.validFrom)} – {when(c.validTo)}
      </td>
      <td>
        {c.agentId ?? t('ops.staff.allAgents')}
        {c.venueId ? ` · ${c.venueId}` : ''}
      </td>
      <td>
        {t('ops.coupons.usesOf', { redeemed: c.redeemed, total: c.limitTotal ?? '∞', perUser: c.limitPerUser })}
        {given && (
          <>
            <br />
            <small>{given}</small>
          </>
        )}
        <details onToggle={(e) => void open(e)}>
          <summary>{t('ops.coupons.redemptions')}</summary>
          {detail &&
            (detail.redemptions.length ? (
              <ul>
                {detail.redemptions.map((r) => (
                  <li key={`${r.orderId}-${r.at}`}>
                    {when(r.at)} · {r.orderId} · −{formatMoney(r.discount, r.currency, lang)} ·{' '}
                    {t(`ops.coupons.status.${r.status}`)}
                  </li>
                ))}
              </ul>
            ) : (
              <p>{t('ops.list.empty')}</p>
            ))}
        </details>
      </td>
      <td>
        {c.paused ? t('ops.coupons.paused') : t('ops.coupons.active')}
        {write && (
          <form className="ops-inline" onSubmit={(e) => void toggle(e)}>
            <label>
              {t('ops.reason')}
              <input
                required
                minLength={3}
                maxLength={500}
                value={reason}
                onChange={(e) => setReason(e.currentTarget.value)}
              />
            </label>
            <button type="submit">{c.paused ? t('ops.coupons.resume') : t('ops.coupons.pause')}</button>
          </form>
        )}
        <Problem error={error} />
      </td>
    </tr>
  );
}

const EMPTY = {
  code: '',
  kind: 'percent' as 'percent' | 'fixed',
  value: '',
  currency: 'EUR',
  from: '',
  to: '',
  perUser: '1',
  total: '',
  agentId: '',
  venueId: '',
  reason: '',
};

function Create({ me, onCreated }: { me: Me; onCreated: () => void }) {
  const t = useT();
  const platform = me.memberships.some((m) => m.agentId === '*');
  const agents = me.memberships.filter((m) => m.agentId !== '*').map((m) => m.agentId);
  const [form, setForm] = useState({ ...EMPTY, agentId: platform ? '' : (agents[0] ?? '') });
  const [done, setDone] = useState('');
  const [error, setError] = useState<unknown>();
  const set = (k: keyof typeof EMPTY) => (e: { currentTarget: { value: string } }) =>
    setForm({ ...form, [k]: e.currentTarget.value });
  const submit = async (e: React.FormEvent) => {
    e.preventDefault();
    setError(undefined);
    try {
      const value = Number(form.value);
      await opsCall('POST', '/coupons', {
        code: form.code,
        kind: form.kind,
        ...(form.kind === 'percent'
          ? { percent: value }
          : { amount: toMinor(value, form.currency), currency: form.currency.toUpperCase() }),
        validFrom: new Date(form.from).toISOString(),
        validTo: new Date(form.to).toISOString(),
        limitPerUser: Number(form.perUser),
        ...(form.total ? { limitTotal: Number(form.total) } : {}),
        ...(form.agentId ? { agentId: form.agentId } : {}),
        ...(form.venueId ? { venueId: form.venueId } : {}),
        reason: form.reason,
      });
      setDone(t('ops.coupons.created', { code: form.code }));
      setForm({ ...form, code: '', reason: '' });
      onCreated();
    } catch (err) {
      setError(err);
    }
  };
  return (
    <section aria-labelledby="ops-coupon-new">
      <h2 id="ops-coupon-new">{t('ops.coupons.new')}</h2>
      <form className="ops-form" onSubmit={(e) => void submit(e)}>
        <label>
          {t('ops.coupons.code')}
          <input required pattern="[A-Za-z0-9_\-]{3,64}" value={form.code} onChange={set('code')} />
        </label>
        <label>
          {t('ops.coupons.kind')}
          <select value={form.kind} onChange={set('kind')}>
            <option value="percent">{t('ops.coupons.percent')}</option>
            <option value="fixed">{t('ops.coupons.fixed')}</option>
          </select>
        </label>
        {form.kind === 'percent' ? (
          <label>
            {t('ops.coupons.percent')}
            <input required type="number" min={1} max={100} step={1} value={form.value} onChange={set('value')} />
          </label>
        ) : (
          <>
            <label>
              {t('ops.coupons.amount')}
              <input required type="number" min={0.01} step={0.01} value={form.value} onChange={set('value')} />
            </label>
            <label>
              {t('ops.coupons.currency')}
              <input required pattern="[A-Za-z]{3}" value={form.currency} onChange={set('currency')} />
            </label>
          </>
        )}
        <label>
          {t('ops.coupons.from')}
          <input required type="datetime-local" value={form.from} onChange={set('from')} />
        </label>
        <label>
          {t('ops.coupons.to')}
          <input required type="datetime-local" min={form.from || undefined} value={form.to} onChange={set('to')} />
        </label>
        <label>
          {t('ops.coupons.perUser')}
          <input required type="number" min={1} max={1000} step={1} value={form.perUser} onChange={set('perUser')} />
        </label>
        <label>
          {t('ops.coupons.total')}
          <input type="number" min={1} step={1} value={form.total} onChange={set('total')} />
        </label>
        <label>
          {t('ops.invite.agent')}
          <input
            required={!platform}
            maxLength={64}
            value={form.agentId}
            onChange={set('agentId')}
            list="ops-coupon-agents"
          />
        </label>
        <datalist id="ops-coupon-agents">
          {agents.map((a) => (
            <option key={a} value={a} />
          ))}
        </datalist>
        <label>
          {t('ops.coupons.venue')}
          <input maxLength={64} value={form.venueId} onChange={set('venueId')} />
        </label>
        <label>
          {t('ops.reason')}
          <input required minLength={3} maxLength={500} value={form.reason} onChange={set('reason')} />
        </label>
        <button type="submit" className="ops-primary">
          {t('ops.coupons.create')}
        </button>
      </form>
      {done && <p role="status">{done}</p>}
      <Problem error={error} />
    </section>
  );
}
