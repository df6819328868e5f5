// One rental at the support desk: who and where, the fee worked out step by step, what was charged and refunded,
// the refund form (finance), putting it right (RentalActions.tsx), and the timeline of everything that happened to it, in order.
import { useStore } from '@nanostores/react';
import { useCallback, useEffect, useRef, useState } from 'react';
import type { RefundResult, RentalTimeline } from '../../contract/ops/rentals.ts';
import type { Me } from '../../contract/ops/staff.ts';
import { parseDecimal, toDecimalText, toMajor } from '../../core/money.ts';
import { ORDER_STATE } from '../../core/orders.ts';
import { $activeLang, useT, type T } from '../../i18n/index.ts';
import { dateTime, money } from '../../ui/format.ts';
import { opsCall } from '../api.ts';
import { Problem } from './Problem.tsx';
import { RentalActions } from './RentalActions.tsx';
import { Timeline } from '../timeline.tsx';

type Step = RentalTimeline['fee']['steps'][number];

/** Order state number → its name (the console's strings ops.rentals.states.<name>). */
export const STATE_NAMES = Object.fromEntries(Object.entries(ORDER_STATE).map(([name, n]) => [n, name])) as Record<
  number,
  string
>;

/** A count of minutes or days in the operator's language (Intl: its own plural forms). */
const units = (lang: string, n: number, unit: 'minute' | 'day') =>
  new Intl.NumberFormat(lang, { style: 'unit', unit, unitDisplay: 'long' }).format(n);

/** One step of the fee, as a sentence. */
export function stepText(s: Step, t: T, lang: string, currency: string): string {
  const m = (minor: number) => money(currency, toMajor(minor, currency));
  const min = (n: number) => units(lang, n, 'minute');
  switch (s.kind) {
    case 'elapsed':
      return t('ops.fee.elapsed', { minutes: min(s.minutes) });
    case 'free':
      return t('ops.fee.free', { minutes: min(s.freeMinutes) });
    case 'fullDays':
      return t('ops.fee.fullDays', { days: units(lang, s.days, 'day'), cap: m(s.dailyCap), amount: m(s.amount) });
    case 'units':
      return t('ops.fee.units', {
        minutes: min(s.minutes),
        units: s.units,
        length: min(s.unitMinutes),
        price: m(s.unitPrice),
        amount: m(s.amount),
      });
    case 'dailyCap':
      return t('ops.fee.dailyCap', { amount: m(s.amount) });
    case 'tier':
      return t('ops.fee.tier', { from: min(s.startMinute), to: min(s.endMinute), amount: m(s.amount) });
    case 'noTier':
      return t('ops.fee.noTier', { amount: m(s.overtimeAmount) });
    case 'depositCeiling':
      return t('ops.fee.depositCeiling', { amount: m(s.amount) });
    case 'buyOut':
      return t('ops.fee.buyOut', { amount: m(s.amount) });
  }
}

export function RentalDetail({ me, id }: { me: Me; id: string }) {
  const t = useT();
  const lang = useStore($activeLang);
  const [data, setData] = useState<RentalTimeline>();
  const [error, setError] = useState<unknown>();
  const heading = useRef<HTMLHeadingElement>(null);
  const load = useCallback(async () => {
    try {
      setData(await opsCall<RentalTimeline>('GET', `/rentals/${encodeURIComponent(id)}`));
      setError(undefined);
    } catch (e) {
      setError(e);
    }
  }, [id]);
  useEffect(() => void load(), [load]);
  // A rental opened from the list: focus its heading once it is shown.
  const shown = data !== undefined;
  useEffect(() => heading.current?.focus(), [id, shown]);
  const r = data?.rental;
  const cur = data?.money.currency ?? '';
  const amount = (minor: number) => money(cur, toMajor(minor, cur));
  return (
    <>
      <p>
        <a href="#/rentals">{t('ops.rentals.back')}</a>
      </p>
      <h2 ref={heading} tabIndex={-1}>
        {t('ops.rentals.title', { id })}
      </h2>
      <Problem error={error} />
      {data && r && (
        <>
          <dl className="ops-facts">
            <dt>{t('ops.rentals.state')}</dt>
            <dd>{t(`ops.rentals.states.${STATE_NAMES[r.state] ?? 'pending'}`)}</dd>
            <dt>{t('ops.rentals.rider')}</dt>
            <dd>
              #{r.riderId} {r.riderPhone ?? ''} {r.riderEmail ?? ''}
            </dd>
            <dt>{t('ops.rentals.venue')}</dt>
            <dd>
              {r.venueName} · {r.cabinetId}
            </dd>
            <dt>{t('ops.rentals.powerbank')}</dt>
            <dd>{r.powerbankId ?? '—'}</dd>
            <dt>{t('ops.rentals.borrowed')}</dt>
            <dd>{dateTime(r.borrowedAt, lang) || '—'}</dd>
            <dt>{t('ops.rentals.returned')}</dt>
            <dd>{dateTime(r.returnedAt, lang) || '—'}</dd>
          </dl>
          <section aria-labelledby="ops-fee">
            <h3 id="ops-fee">{t('ops.fee.title')}</h3>
            <ol>
              {data.fee.steps.map((s, i) => (
                <li key={i}>{stepText(s, t, lang, data.fee.currency)}</li>
              ))}
            </ol>
            <p>
              <strong>
                {t('ops.fee.total', { amount: money(data.fee.currency, toMajor(data.fee.total, data.fee.currency)) })}
              </strong>
            </p>
          </section>
          <section aria-labelledby="ops-money">
            <h3 id="ops-money">{t('ops.money.title')}</h3>
            <dl className="ops-facts">
              <dt>{t('ops.money.charged')}</dt>
              <dd>{amount(data.money.charged)}</dd>
              <dt>{t('ops.money.refunded')}</dt>
              <dd>{amount(data.money.refunded)}</dd>
              <dt>{t('ops.money.refundable')}</dt>
              <dd>{amount(data.money.refundable)}</dd>
            </dl>
            {me.permissions.includes('rentals.refund') && data.money.refundable > 0 && (
              <RefundForm
                id={id}
                version={data.version}
                currency={cur}
                refundable={data.money.refundable}
                onDone={load}
              />
            )}
          </section>
          <RentalActions me={me} id={id} data={data} onDone={load} />
          <Timeline entries={data.entries} />
        </>
      )}
    </>
  );
}

/** A refund of part or all of the fee: the amount (at most what may still be refunded) and a reason; one key per refund. */
function RefundForm({
  id,
  version,
  currency,
  refundable,
  onDone,
}: {
  id: string;
  version: number;
  currency: string;
  refundable: number;
  onDone: () => Promise<void>;
}) {
  const t = useT();
  const [amount, setAmount] = useState('');
  const [reason, setReason] = useState('');
  const [key, setKey] = useState(() => crypto.randomUUID());
  const [busy, setBusy] = useState(false);
  const [done, setDone] = useState('');
  const [error, setError] = useState<unknown>();
  const [invalid, setInvalid] = useState('');
  const submit = async (e: React.FormEvent) => {
    e.preventDefault();
    const minor = parseDecimal(amount, currency);
    if (minor === null || minor <= 0 || minor > refundable) {
      setInvalid(t('ops.refund.invalid', { max: money(currency, toMajor(refundable, currency)) }));
      return;
    }
    if (reason.trim().length < 3) {
      setInvalid(t('ops.refund.reasonNeeded'));
      return;
    }
    setInvalid('');
    setError(undefined);
    setBusy(true);
    try {
      const r = await opsCall<RefundResult>(
        'POST',
        `/rentals/${encodeURIComponent(id)}/refund`,
        { amount: minor, reason },
        { 'idempotency-key': key, 'if-match': `"v${version}"` },
      );
      const m = (n: number) => money(r.currency, toMajor(n, r.currency));
      setDone(t('ops.refund.done', { amount: m(r.amount), card: m(r.toCard), wallet: m(r.toWallet) }));
      setKey(crypto.randomUUID());
      setAmount('');
      setReason('');
      await onDone();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form className="ops-form" aria-labelledby="ops-refund" onSubmit={(e) => void submit(e)} noValidate>
      <h4 id="ops-refund">{t('ops.refund.title')}</h4>
      <label>
        {t('ops.refund.amount', { currency })}
        <input
          inputMode="decimal"
          required
          value={amount}
          placeholder={toDecimalText(refundable, currency)}
          aria-invalid={invalid ? true : undefined}
          aria-describedby={invalid ? 'ops-refund-invalid' : undefined}
          onChange={(e) => setAmount(e.currentTarget.value)}
        />
      </label>
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
      <button type="submit" className="ops-primary" disabled={busy}>
        {t('ops.refund.submit')}
      </button>
      {invalid && (
        <p id="ops-refund-invalid" className="ops-error" role="alert">
          {invalid}
        </p>
      )}
      {done && <p role="status">{done}</p>}
      <Problem error={error} />
    </form>
  );
}
