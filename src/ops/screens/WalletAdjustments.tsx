// Wallet credits and debits under four eyes: a request form (the rider, the wallet's agent, credit or debit, amount,
// reason; one idempotency key per request, kept across a retry) and the queue by state (pending first). A person
// with wallet.approve approves or rejects someone else's request with a reason; their own shows no buttons (the
// server refuses it too). A request someone else decided first shows the server's 409 message.
import { useStore } from '@nanostores/react';
import { useState } from 'react';
import { ADJUSTMENT_STATES, type AdjustmentItem } from '../../contract/ops/adjustments.ts';
import type { Me } from '../../contract/ops/staff.ts';
import { formatMoney, parseDecimal } from '../../core/money.ts';
import { $activeLang, useT } from '../../i18n/index.ts';
import { opsCall } from '../api.ts';
import { Queue, QueueDetail, useQueueAction } from '../queue.tsx';
import { Problem } from './Problem.tsx';

const HEADS = ['id', 'rider', 'amount', 'requestedBy', 'state'].map((k) => `ops.adjust.${k}`);

export function WalletAdjustments({ me }: { me: Me }) {
  const t = useT();
  const lang = useStore($activeLang);
  // A new request: opened below the queue, which reads again.
  const [made, setMade] = useState<AdjustmentItem>();
  return (
    <>
      <RequestForm onDone={setMade} />
      <h2>{t('ops.adjust.queue')}</h2>
      <Queue<AdjustmentItem>
        show={made}
        path="/wallet-adjustments"
        states={ADJUSTMENT_STATES}
        initial="pending"
        prefix="ops.adjust"
        heads={HEADS}
        cells={(a, open) => (
          <>
            <td>
              <button type="button" className="ops-link" onClick={open}>
                {t('ops.adjust.open', { id: a.id })}
              </button>
            </td>
            <td>
              {a.riderId}
              <br />
              <small>{a.agentId}</small>
            </td>
            <td>
              {t(`ops.adjust.directions.${a.direction}`)} {formatMoney(a.amount, a.currency, lang)}
            </td>
            <td>
              {a.requestedBy}
              <br />
              <small>{new Date(a.createdAt).toLocaleString(lang)}</small>
            </td>
            <td>{t(`ops.adjust.states.${a.state}`)}</td>
          </>
        )}
        detail={(a, done) => (
          <Detail a={a} may={me.permissions.includes('wallet.approve') && a.requestedBy !== me.email} onDone={done} />
        )}
      />
    </>
  );
}

/** A new request: nothing moves until someone else approves it. */
function RequestForm({ onDone }: { onDone: (a: AdjustmentItem) => void }) {
  const t = useT();
  const [f, setF] = useState({
    riderId: '',
    agentId: '',
    currency: 'EUR',
    direction: 'credit',
    amount: '',
    reason: '',
  });
  const [key, setKey] = useState(() => crypto.randomUUID());
  const [invalid, setInvalid] = useState('');
  const [note, setNote] = useState('');
  const [error, setError] = useState<unknown>();
  const set = (k: keyof typeof f) => (e: React.ChangeEvent<HTMLInputElement | HTMLSelectElement>) =>
    setF({ ...f, [k]: e.currentTarget.value });
  const submit = async (e: React.FormEvent) => {
    e.preventDefault();
    const currency = f.currency.trim().toUpperCase();
    const minor = /^[A-Z]{3}$/.test(currency) ? parseDecimal(f.amount, currency) : null;
    if (minor === null || minor <= 0) {
      setInvalid(t('ops.adjust.invalidAmount'));
      return;
    }
    setInvalid('');
    setError(undefined);
    try {
      const a = await opsCall<AdjustmentItem>(
        'POST',
        '/wallet-adjustments',
        {
          riderId: f.riderId.trim(),
          agentId: f.agentId.trim(),
          currency,
          direction: f.direction,
          amount: minor,
          reason: f.reason,
        },
        { 'idempotency-key': key },
      );
      setNote(t('ops.adjust.requested', { id: a.id }));
      setKey(crypto.randomUUID());
      setF({ ...f, amount: '', reason: '' });
      onDone(a);
    } catch (err) {
      setError(err);
    }
  };
  return (
    <form className="ops-form" aria-labelledby="ops-adjust-new" onSubmit={(e) => void submit(e)}>
      <h2 id="ops-adjust-new">{t('ops.adjust.new')}</h2>
      <p>{t('ops.adjust.lead')}</p>
      <label>
        {t('ops.adjust.rider')}
        <input required inputMode="numeric" pattern="[0-9]{1,18}" value={f.riderId} onChange={set('riderId')} />
      </label>
      <label>
        {t('ops.adjust.agent')}
        <input required maxLength={64} value={f.agentId} onChange={set('agentId')} />
      </label>
      <label>
        {t('ops.adjust.direction')}
        <select value={f.direction} onChange={set('direction')}>
          <option value="credit">{t('ops.adjust.directions.credit')}</option>
          <option value="debit">{t('ops.adjust.directions.debit')}</option>
        </select>
      </label>
      <label>
        {t('ops.adjust.currency')}
        <input required pattern="[A-Za-z]{3}" maxLength={3} value={f.currency} onChange={set('currency')} />
      </label>
      <label>
        {t('ops.adjust.amount')}
        <input
          required
          inputMode="decimal"
          value={f.amount}
          aria-invalid={invalid ? true : undefined}
          aria-describedby={invalid ? 'ops-adjust-invalid' : undefined}
          onChange={set('amount')}
        />
      </label>
      <label>
        {t('ops.reason')}
        <input required minLength={3} maxLength={500} value={f.reason} onChange={set('reason')} />
      </label>
      <button type="submit" className="ops-primary">
        {t('ops.adjust.submit')}
      </button>
      {invalid && (
        <p id="ops-adjust-invalid" className="ops-error" role="alert">
          {invalid}
        </p>
      )}
      {note && <p role="status">{note}</p>}
      <Problem error={error} />
    </form>
  );
}

function Detail({ a, may, onDone }: { a: AdjustmentItem; may: boolean; onDone: (a: AdjustmentItem) => void }) {
  const t = useT();
  const lang = useStore($activeLang);
  const [reason, setReason] = useState('');
  const { note, error, act: post } = useQueueAction(onDone);
  const act = (action: 'approve' | 'reject') =>
    post(`/wallet-adjustments/${a.id}/${action}`, { reason }, t(`ops.adjust.done.${action}`, { id: a.id }));
  return (
    <QueueDetail id="ops-adjustment" title={t('ops.adjust.open', { id: a.id })} note={note} error={error}>
      <dl className="ops-fields">
        <dt>{t('ops.adjust.rider')}</dt>
        <dd>
          {a.riderId} · {a.agentId}
        </dd>
        <dt>{t('ops.adjust.amount')}</dt>
        <dd>
          {t(`ops.adjust.directions.${a.direction}`)} {formatMoney(a.amount, a.currency, lang)}
        </dd>
        <dt>{t('ops.reason')}</dt>
        <dd>{a.reason}</dd>
        <dt>{t('ops.adjust.requestedBy')}</dt>
        <dd>{a.requestedBy}</dd>
        <dt>{t('ops.adjust.state')}</dt>
        <dd>{t(`ops.adjust.states.${a.state}`)}</dd>
        {a.decidedBy && (
          <>
            <dt>{t('ops.adjust.decidedBy')}</dt>
            <dd>{a.decidedBy}</dd>
          </>
        )}
        {a.decisionNote && (
          <>
            <dt>{t('ops.adjust.decisionNote')}</dt>
            <dd>{a.decisionNote}</dd>
          </>
        )}
      </dl>
      {a.state === 'pending' && !may && <p>{t('ops.adjust.otherPerson')}</p>}
      {a.state === 'pending' && may && (
        <form className="ops-form" aria-label={t('ops.adjust.decide')} onSubmit={(e) => e.preventDefault()}>
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
          <button
            type="button"
            className="ops-primary"
            disabled={reason.trim().length < 3}
            onClick={() => void act('approve')}
          >
            {t('ops.adjust.approve')}
          </button>
          <button type="button" disabled={reason.trim().length < 3} onClick={() => void act('reject')}>
            {t('ops.adjust.reject')}
          </button>
        </form>
      )}
    </QueueDetail>
  );
}
