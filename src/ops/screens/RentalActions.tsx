// Putting a rental right at the support desk: end a stuck rental at the time the cabinets' records support, waive
// a debt, release a deposit hold left on a closed rental, reverse a buy-out. Only the actions the person's roles
// allow are offered; each needs a reason and goes with one idempotency key (kept across a retried click) and the
// version the person read (someone else's correction meanwhile: the server's 409 says to read again).
import { useState } from 'react';
import type { RentalAction, RentalActionResult, RentalTimeline } from '../../contract/ops/rentals.ts';
import type { Me } from '../../contract/ops/staff.ts';
import { toMajor } from '../../core/money.ts';
import type { Permission } from '../../core/opsAccess.ts';
import { useT } from '../../i18n/index.ts';
import { money } from '../../ui/format.ts';
import { opsCall } from '../api.ts';
import { Problem } from './Problem.tsx';

const ACTIONS: Array<{ action: RentalAction; path: string; needs: Permission; at: boolean }> = [
  { action: 'end', path: 'end', needs: 'rentals.end', at: true },
  { action: 'waive', path: 'waive-debt', needs: 'rentals.waive', at: false },
  { action: 'release', path: 'release-hold', needs: 'rentals.release', at: false },
  { action: 'reverse', path: 'reverse-buy-out', needs: 'rentals.reverse', at: true },
];

/** A `datetime-local` value for a time (the operator's own clock). */
const localInput = (d: Date) => new Date(d.getTime() - d.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);

export function RentalActions({
  me,
  id,
  data,
  onDone,
}: {
  me: Me;
  id: string;
  data: RentalTimeline;
  onDone: () => Promise<void>;
}) {
  const t = useT();
  const allowed = ACTIONS.filter((a) => me.permissions.includes(a.needs));
  const [action, setAction] = useState<RentalAction>(allowed[0]?.action ?? 'end');
  const [at, setAt] = useState(() => localInput(new Date()));
  const [reason, setReason] = useState('');
  const [key, setKey] = useState(() => crypto.randomUUID());
  const [busy, setBusy] = useState(false);
  const [done, setDone] = useState('');
  const [error, setError] = useState<unknown>();
  if (!allowed.length) return null;
  const chosen = allowed.find((a) => a.action === action) ?? allowed[0]!;
  const submit = async (e: React.FormEvent) => {
    e.preventDefault();
    setError(undefined);
    setDone('');
    setBusy(true);
    try {
      const body = chosen.at ? { at: new Date(at).toISOString(), reason } : { reason };
      const r = await opsCall<RentalActionResult>('POST', `/rentals/${encodeURIComponent(id)}/${chosen.path}`, body, {
        'idempotency-key': key,
        'if-match': `"v${data.version}"`,
      });
      setDone(t(`ops.rentalActions.done.${r.kind}`, { amount: money(r.currency, toMajor(r.amount, r.currency)) }));
      setKey(crypto.randomUUID());
      setReason('');
      await onDone();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form className="ops-form" aria-labelledby="ops-rental-actions" onSubmit={(e) => void submit(e)}>
      <h3 id="ops-rental-actions">{t('ops.rentalActions.title')}</h3>
      <label>
        {t('ops.rentalActions.action')}
        <select
          value={chosen.action}
          onChange={(e) => {
            setAction(e.currentTarget.value as RentalAction);
            setKey(crypto.randomUUID());
          }}
        >
          {allowed.map((a) => (
            <option key={a.action} value={a.action}>
              {t(`ops.rentalActions.actions.${a.action}`)}
            </option>
          ))}
        </select>
      </label>
      <p>{t(`ops.rentalActions.leads.${chosen.action}`)}</p>
      {chosen.at && (
        <label>
          {t('ops.rentalActions.at')}
          <input type="datetime-local" required value={at} onChange={(e) => setAt(e.currentTarget.value)} />
        </label>
      )}
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
        {t(`ops.rentalActions.actions.${chosen.action}`)}
      </button>
      {done && <p role="status">{done}</p>}
      <Problem error={error} />
    </form>
  );
}
