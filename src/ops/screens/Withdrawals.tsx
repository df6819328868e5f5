// The withdrawals queue: bank withdrawals by state (awaiting payout first), the payee's fields, and finance's
// approve (through the payout adapter that pays the channel), record of a manual bank transfer, or reject (the
// money goes back to the rider's wallet). Every action asks for its reason; a withdrawal someone else handled first
// shows the server's 409 message.
import { useCallback, useEffect, useRef, useState } from 'react';
import type { Me } from '../../contract/ops/staff.ts';
import { WITHDRAWAL_STATES, type WithdrawalItem, type WithdrawalPage } from '../../contract/ops/withdrawals.ts';
import { formatMoney } from '../../core/money.ts';
import { useStore } from '@nanostores/react';
import { $activeLang, useT } from '../../i18n/index.ts';
import { opsCall, withQuery } from '../api.ts';
import { Problem } from './Problem.tsx';

export function Withdrawals({ me }: { me: Me }) {
  const t = useT();
  const [state, setState] = useState<string>('awaiting_payout');
  const [rows, setRows] = useState<WithdrawalItem[]>([]);
  const [next, setNext] = useState<string>();
  const [open, setOpen] = useState<WithdrawalItem>();
  const [error, setError] = useState<unknown>();
  const load = useCallback(async (cursor?: string) => {
    try {
      const page = await opsCall<WithdrawalPage>('GET', withQuery('/withdrawals', { state, cursor, limit: 50 }));
      setRows((r) => (cursor ? [...r, ...page.items] : page.items));
      setNext(page.next);
      setError(undefined);
    } catch (e) {
      setError(e);
    }
  }, [state]);
  useEffect(() => void load(), [load]);
  const lang = useStore($activeLang);
  const done = (w: WithdrawalItem) => {
    setOpen(w);
    void load();
  };
  return (
    <>
      <form className="ops-filters" onSubmit={(e) => e.preventDefault()}>
        <label>{t('ops.withdrawals.state')}
          <select value={state} onChange={(e) => setState(e.currentTarget.value)}>
            {[...WITHDRAWAL_STATES, 'all'].map((s) => <option key={s} value={s}>{t(`ops.withdrawals.states.${s}`)}</option>)}
          </select>
        </label>
      </form>
      <table className="ops-table">
        <thead>
          <tr>
            <th scope="col">{t('ops.withdrawals.id')}</th><th scope="col">{t('ops.withdrawals.requested')}</th><th scope="col">{t('ops.withdrawals.amount')}</th>
            <th scope="col">{t('ops.withdrawals.payee')}</th><th scope="col">{t('ops.withdrawals.state')}</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((w) => (
            <tr key={w.id}>
              <td><button type="button" className="ops-link" onClick={() => setOpen(w)}>{w.id}</button></td>
              <td>{new Date(w.createdAt).toLocaleString(lang)}</td>
              <td>{formatMoney(w.amount, w.currency, lang)}</td>
              <td>{w.payee.accountHolder ?? w.payee.name ?? '—'}<br /><small>{t(`ops.withdrawals.rider`, { id: w.userId })} · {w.agentId}</small></td>
              <td>{t(`ops.withdrawals.states.${w.state}`)}{w.waitReason ? <><br /><small>{w.waitReason}</small></> : null}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {!rows.length && <p>{t('ops.list.empty')}</p>}
      {next && <button type="button" onClick={() => void load(next)}>{t('ops.list.more')}</button>}
      <Problem error={error} />
      {open && <Detail key={open.id} w={open} may={me.permissions.includes('payouts.approve')} onDone={done} />}
    </>
  );
}

/** A payee field's label: its translation, or its own name for a field a channel added that has none. */
const fieldName = (label: string, key: string) => (label.endsWith(`.${key}`) ? key : label);

function Detail({ w, may, onDone }: { w: WithdrawalItem; may: boolean; onDone: (w: WithdrawalItem) => void }) {
  const t = useT();
  const lang = useStore($activeLang);
  const heading = useRef<HTMLHeadingElement>(null);
  const [reason, setReason] = useState('');
  const [reference, setReference] = useState('');
  const [note, setNote] = useState('');
  const [error, setError] = useState<unknown>();
  // Opened: the person's focus moves to it.
  useEffect(() => heading.current?.focus(), []);
  const act = async (action: 'approve' | 'manual' | 'reject', body: Record<string, string>) => {
    setError(undefined);
    try {
      const after = await opsCall<WithdrawalItem>('POST', `/withdrawals/${encodeURIComponent(w.id)}/${action}`, body);
      setNote(t(`ops.withdrawals.done.${action}`, { id: w.id }));
      onDone(after);
    } catch (e) {
      setError(e);
    }
  };
  const reasonField = (id: string) => (
    <label>{t('ops.reason')}<input id={id} required minLength={3} maxLength={500} value={reason} onChange={(e) => setReason(e.currentTarget.value)} /></label>
  );
  return (
    <section aria-labelledby="ops-withdrawal">
      <h2 id="ops-withdrawal" ref={heading} tabIndex={-1}>{t('ops.withdrawals.detail', { id: w.id })}</h2>
      <dl className="ops-fields">
        <dt>{t('ops.withdrawals.amount')}</dt><dd>{formatMoney(w.amount, w.currency, lang)}</dd>
        <dt>{t('ops.withdrawals.state')}</dt><dd>{t(`ops.withdrawals.states.${w.state}`)}</dd>
        <dt>{t('ops.withdrawals.channel')}</dt><dd>{w.channel}</dd>
        {Object.entries(w.payee).map(([k, v]) => <div key={k}><dt>{fieldName(t(`ops.withdrawals.fields.${k}`), k)}</dt><dd>{v}</dd></div>)}
        {w.waitReason && <><dt>{t('ops.withdrawals.why')}</dt><dd>{w.waitReason}</dd></>}
        {w.bankReference && <><dt>{t('ops.withdrawals.bankReference')}</dt><dd>{w.bankReference}</dd></>}
        {(w.approvedBy ?? w.settledBy) && <><dt>{t('ops.withdrawals.by')}</dt><dd>{w.approvedBy ?? w.settledBy}</dd></>}
      </dl>
      {may && w.state === 'awaiting_payout' && (
        <>
          {w.rail && (
            <form className="ops-form" aria-label={t('ops.withdrawals.approve')} onSubmit={(e) => { e.preventDefault(); void act('approve', { reason }); }}>
              <p>{t('ops.withdrawals.approveLead', { rail: w.rail })}</p>
              {reasonField('ops-wd-approve-reason')}
              <button type="submit" className="ops-primary">{t('ops.withdrawals.approve')}</button>
            </form>
          )}
          <form className="ops-form" aria-label={t('ops.withdrawals.manual')} onSubmit={(e) => { e.preventDefault(); void act('manual', { bankReference: reference, reason }); }}>
            <label>{t('ops.withdrawals.bankReference')}<input required maxLength={100} pattern=".*\S.*" value={reference} onChange={(e) => setReference(e.currentTarget.value)} /></label>
            {reasonField('ops-wd-manual-reason')}
            <button type="submit" className="ops-primary">{t('ops.withdrawals.manual')}</button>
          </form>
          <form className="ops-form" aria-label={t('ops.withdrawals.reject')} onSubmit={(e) => { e.preventDefault(); void act('reject', { reason }); }}>
            {reasonField('ops-wd-reject-reason')}
            <button type="submit">{t('ops.withdrawals.reject')}</button>
          </form>
        </>
      )}
      {note && <p role="status">{note}</p>}
      <Problem error={error} />
    </section>
  );
}
