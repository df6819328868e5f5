// The withdrawals queue: bank withdrawals by state (awaiting payout first), found by id, the rider (id, phone,
// e-mail) and dates, exported as CSV (the same search), the payee's fields, and finance's
// approve (through the payout adapter that pays the channel), record of a manual bank transfer, or reject (the
// money goes back to the rider's wallet). Every action asks for its reason; a withdrawal someone else handled first
// shows the server's 409 message.
import { useStore } from '@nanostores/react';
import { useState } from 'react';
import type { Me } from '../../contract/ops/staff.ts';
import { WITHDRAWAL_STATES, type WithdrawalItem } from '../../contract/ops/withdrawals.ts';
import { formatMoney } from '../../core/money.ts';
import { $activeLang, useT } from '../../i18n/index.ts';
import { Queue, QueueDetail, useQueueAction } from '../queue.tsx';

const HEADS = ['id', 'requested', 'amount', 'payee', 'state'].map((k) => `ops.withdrawals.${k}`);

export function Withdrawals({ me }: { me: Me }) {
  const t = useT();
  const lang = useStore($activeLang);
  return (
    <Queue<WithdrawalItem>
      path="/withdrawals"
      states={WITHDRAWAL_STATES}
      initial="awaiting_payout"
      prefix="ops.withdrawals"
      heads={HEADS}
      search={{ label: 'ops.withdrawals.q', csv: '/withdrawals.csv' }}
      cells={(w, open) => (
        <>
          <td>
            <button type="button" className="ops-link" onClick={open}>
              {w.id}
            </button>
          </td>
          <td>{new Date(w.createdAt).toLocaleString(lang)}</td>
          <td>{formatMoney(w.amount, w.currency, lang)}</td>
          <td>
            {w.payee.accountHolder ?? w.payee.name ?? '—'}
            <br />
            <small>
              {t(`ops.withdrawals.rider`, { id: w.userId })} · {w.agentId}
            </small>
          </td>
          <td>
            {t(`ops.withdrawals.states.${w.state}`)}
            {w.waitReason ? (
              <>
                <br />
                <small>{w.waitReason}</small>
              </>
            ) : null}
          </td>
        </>
      )}
      detail={(w, done) => <Detail w={w} may={me.permissions.includes('payouts.approve')} onDone={done} />}
    />
  );
}

/** A payee field's label: its translation, or its own name for a field a channel added that has none. */
const fieldName = (label: string, key: string) => (label.endsWith(`.${key}`) ? key : label);

function Detail({ w, may, onDone }: { w: WithdrawalItem; may: boolean; onDone: (w: WithdrawalItem) => void }) {
  const t = useT();
  const lang = useStore($activeLang);
  const [reason, setReason] = useState('');
  const [reference, setReference] = useState('');
  const { note, error, act: post } = useQueueAction(onDone);
  const act = (action: 'approve' | 'manual' | 'reject', body: Record<string, string>) =>
    post(`/withdrawals/${encodeURIComponent(w.id)}/${action}`, body, t(`ops.withdrawals.done.${action}`, { id: w.id }));
  const reasonField = (id: string) => (
    <label>
      {t('ops.reason')}
      <input
        id={id}
        required
        minLength={3}
        maxLength={500}
        value={reason}
        onChange={(e) => setReason(e.currentTarget.value)}
      />
    </label>
  );
  return (
    <QueueDetail id="ops-withdrawal" title={t('ops.withdrawals.detail', { id: w.id })} note={note} error={error}>
      <dl className="ops-fields">
        <dt>{t('ops.withdrawals.amount')}</dt>
        <dd>{formatMoney(w.amount, w.currency, lang)}</dd>
        <dt>{t('ops.withdrawals.state')}</dt>
        <dd>{t(`ops.withdrawals.states.${w.state}`)}</dd>
        <dt>{t('ops.withdrawals.channel')}</dt>
        <dd>{w.channel}</dd>
        {Object.entries(w.payee).map(([k, v]) => (
          <div key={k}>
            <dt>{fieldName(t(`ops.withdrawals.fields.${k}`), k)}</dt>
            <dd>{v}</dd>
          </div>
        ))}
        {w.waitReason && (
          <>
            <dt>{t('ops.withdrawals.why')}</dt>
            <dd>{w.waitReason}</dd>
          </>
        )}
        {w.bankReference && (
          <>
            <dt>{t('ops.withdrawals.bankReference')}</dt>
            <dd>{w.bankReference}</dd>
          </>
        )}
        {(w.approvedBy ?? w.settledBy) && (
          <>
            <dt>{t('ops.withdrawals.by')}</dt>
            <dd>{w.approvedBy ?? w.settledBy}</dd>
          </>
        )}
      </dl>
      {may && w.state === 'awaiting_payout' && (
        <>
          {w.rail && (
            <form
              className="ops-form"
              aria-label={t('ops.withdrawals.approve')}
              onSubmit={(e) => {
                e.preventDefault();
                void act('approve', { reason });
              }}
            >
              <p>{t('ops.withdrawals.approveLead', { rail: w.rail })}</p>
              {reasonField('ops-wd-approve-reason')}
              <button type="submit" className="ops-primary">
                {t('ops.withdrawals.approve')}
              </button>
            </form>
          )}
          <form
            className="ops-form"
            aria-label={t('ops.withdrawals.manual')}
            onSubmit={(e) => {
              e.preventDefault();
              void act('manual', { bankReference: reference, reason });
            }}
          >
            <label>
              {t('ops.withdrawals.bankReference')}
              <input
                required
                maxLength={100}
                pattern=".*\S.*"
                value={reference}
                onChange={(e) => setReference(e.currentTarget.value)}
              />
            </label>
            {reasonField('ops-wd-manual-reason')}
            <button type="submit" className="ops-primary">
              {t('ops.withdrawals.manual')}
            </button>
          </form>
          <form
            className="ops-form"
            aria-label={t('ops.withdrawals.reject')}
            onSubmit={(e) => {
              e.preventDefault();
              void act('reject', { reason });
            }}
          >
            {reasonField('ops-wd-reject-reason')}
            <button type="submit">{t('ops.withdrawals.reject')}</button>
          </form>
        </>
      )}
    </QueueDetail>
  );
}
