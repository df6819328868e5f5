// Route '/wallet_out': withdrawal. Amount a number > 0 and not above the balance; "Withdraw
// all"; the apply call answers refundTypes: with 0 the request is auto-audited; otherwise the payout-channel sheet
// (built from payoutConfig: pickers and inputs, "All information is required"), or the legacy remark (name, bank
// card, phone), or nothing more (XAF); none: no withdrawal support — contact us. On tixianOrderId the local
// balance drops and the amount resets; funds arrive in 1–5 workdays. A server message containing the Chinese for
// 'insufficient balance' maps to the balance message; other errors show in a dialog.
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { useStore } from '@nanostores/react';
import { useT, errorText } from '../i18n/index.ts';
import { ApiError } from '../api/client.ts';
import {
  applyWithdrawal,
  createWithdrawal,
  listWallets,
  type ApplyResult,
  type PayoutChannel,
  type RefundRequest,
} from '../api/wallet.ts';
import {
  REFUND,
  isInsufficientBalance,
  nextWithdrawStep,
  payoutComplete,
  validateWithdrawAmount,
  validateRemark,
  withdrawAllAmount,
  type RemarkError,
} from '../core/wallet.ts';
import { $route, navigate } from '../stores/router.ts';
import { randomId } from '../stores/session.ts';
import { $wallet } from '../stores/wallet.ts';
import { Dialog } from '../ui/Dialog.tsx';
import { confirmDialog, showMessage } from '../ui/feedback.tsx';
import { PageHeader } from '../ui/PageHeader.tsx';
import { money } from '../ui/format.ts';
import './wallet.css';

type Sheet = null | 'channel' | 'remark';

export default function WalletOut() {
  const t = useT();
  const route = useStore($route);
  const wallet = useStore($wallet);
  const q = route.query;
  const currency = q.get('currency') || wallet?.pCurrencyType || 'USD';
  const agentId = q.get('agentId') || wallet?.pDailiId || undefined;
  const [balance, setBalance] = useState<number>(wallet?.pCurrencyType === currency ? wallet.pBalance : 0);
  const [amount, setAmount] = useState('');
  const [amountError, setAmountError] = useState('');
  const [busy, setBusy] = useState(false);
  const [sheet, setSheet] = useState<Sheet>(null);
  const [apply, setApply] = useState<ApplyResult | null>(null);
  const [channelId, setChannelId] = useState('');
  const [values, setValues] = useState<Record<string, string>>({});
  const [remark, setRemark] = useState({ name: '', bankCard: '', phone: '' });
  const [sheetError, setSheetError] = useState('');
  const key = useRef<string | null>(null);

  // The balance of this wallet from the server (the stored one may be stale).
  useEffect(() => {
    void listWallets()
      .then((list) => {
        const w = list.find((x) => x.pCurrencyType === currency && (!agentId || x.pDailiId === agentId));
        if (w) {
          setBalance(w.pBalance);
          $wallet.set(w);
        }
      })
      .catch(() => undefined);
  }, [currency, agentId]);

  const showError = (e: unknown) => {
    const msg = e instanceof ApiError ? e.message : '';
    if (isInsufficientBalance(msg)) setAmountError(t('wallet.out.insufficient'));
    else void showMessage({ title: t('wallet.out.failedTitle'), text: errorText(e, t), role: 'alertdialog' });
  };

  const submit = async (ev: FormEvent) => {
    ev.preventDefault();
    const err = validateWithdrawAmount(amount, balance, currency);
    setAmountError(err ? t(`wallet.out.amountErrors.${err}`) : '');
    if (err) {
      document.getElementById('withdraw-amount')?.focus();
      return;
    }
    setBusy(true);
    try {
      const r = await applyWithdrawal({ amount: amount.trim(), currency, agentId });
      setApply(r);
      key.current = randomId();
      const next = nextWithdrawStep(r);
      if (next.step === 'auto') await create({ refundType: REFUND.card, autoAudit: 1 });
      else if (next.step === 'manual') await create({ refundType: REFUND.manual, checkNeedRemark: false });
      else if (next.step === 'channel') {
        setChannelId(r.channels[0]!.paymentId);
        setValues({});
        setSheetError('');
        setSheet('channel');
      } else if (next.step === 'remark') {
        setSheetError('');
        setSheet('remark');
      } else void unsupported();
    } catch (e) {
      showError(e);
    } finally {
      setBusy(false);
    }
  };

  /** No payout route for this wallet: the user can contact us instead. */
  const unsupported = async () => {
    const contact = await confirmDialog({
      title: t('wallet.out.unsupportedTitle'),
      text: t('wallet.out.unsupported'),
      okLabel: t('wallet.out.contactUs'),
      role: 'dialog',
    });
    if (contact) navigate('/contactUs');
  };

  const create = async (extra: Partial<RefundRequest>) => {
    const r = await createWithdrawal(
      {
        refundType: REFUND.channel,
        amount: amount.trim(),
        amountType: 'balance',
        agentId,
        currency,
        ...extra,
      },
      key.current ?? (key.current = randomId()),
    );
    if (r?.tixianOrderId) {
      // On tixianOrderId the local balance is reduced and the amount reset.
      setBalance(r.pBalance);
      if (wallet && wallet.pCurrencyType === currency) $wallet.set({ ...wallet, pBalance: r.pBalance });
      setAmount('');
      key.current = null;
      setSheet(null);
      void showMessage({
        title: t('wallet.out.doneTitle'),
        text: t('wallet.out.done'),
        note: t('wallet.out.orderNo', { id: r.tixianOrderId }),
      });
    }
  };

  const channel: PayoutChannel | undefined = apply?.channels.find((c) => c.paymentId === channelId);

  const submitChannel = async (ev: FormEvent) => {
    ev.preventDefault();
    if (!channel || !payoutComplete(channel.payoutConfig, values)) {
      setSheetError(t('wallet.out.allRequired'));
      return;
    }
    setBusy(true);
    try {
      const accountData = Object.fromEntries(
        channel.payoutConfig.map((f) => [f.fieldName, (values[f.fieldName] ?? '').trim()]),
      );
      await create({ refundType: REFUND.channel, receiverAccount: { paymentId: channel.paymentId, accountData } });
    } catch (e) {
      setSheet(null);
      showError(e);
    } finally {
      setBusy(false);
    }
  };

  const submitRemark = async (ev: FormEvent) => {
    ev.preventDefault();
    const err: RemarkError | null = validateRemark(remark);
    if (err) {
      setSheetError(t(`wallet.out.remarkErrors.${err}`));
      return;
    }
    setBusy(true);
    try {
      await create({ refundType: REFUND.manual, checkNeedRemark: true, remark: JSON.stringify(remark) });
    } catch (e) {
      setSheet(null);
      showError(e);
    } finally {
      setBusy(false);
    }
  };

  const fieldLabel = (name: string) => {
    const k = `wallet.out.fields.${name}`;
    const v = t(k);
    return v === k ? name : v;
  };

  return (
    <>
      <PageHeader title={t('wallet.out.title')} />
      <main className="page wallet-out">
        <p>
          {t('wallet.out.available')}: <strong data-testid="available">{money(currency, balance)}</strong>
        </p>
        <form onSubmit={(e) => void submit(e)} noValidate className="card-form">
          <div className={`field${amountError ? ' invalid' : ''}`}>
            <label htmlFor="withdraw-amount">{t('wallet.out.amount', { currency })}</label>
            <div className="amount-row">
              <input
                id="withdraw-amount"
                inputMode="decimal"
                autoComplete="off"
                value={amount}
                aria-invalid={Boolean(amountError)}
                aria-describedby="withdraw-amount-error"
                onChange={(e) => {
                  setAmount(e.target.value);
                  setAmountError('');
                }}
              />
              <button
                type="button"
                className="button small"
                onClick={() => {
                  setAmount(withdrawAllAmount(balance, currency));
                  setAmountError('');
                }}
              >
                {t('wallet.out.all')}
              </button>
            </div>
            <p id="withdraw-amount-error" className="field-error" role="alert">
              {amountError}
            </p>
          </div>
          <p className="hint">{t('wallet.out.arrival')}</p>
          <button type="submit" className="button primary block" disabled={busy}>
            {t('wallet.out.submit')}
          </button>
        </form>

        <Dialog
          open={sheet === 'channel'}
          title={t('wallet.out.channelTitle')}
          onClose={() => setSheet(null)}
          actions={
            <>
              <button type="button" className="button" onClick={() => setSheet(null)}>
                {t('common.cancel')}
              </button>
              <button type="submit" form="payout-form" className="button primary" disabled={busy}>
                {t('wallet.out.confirm')}
              </button>
            </>
          }
        >
          <form id="payout-form" className="card-form" noValidate onSubmit={(e) => void submitChannel(e)}>
            {(apply?.channels.length ?? 0) > 1 ? (
              <div className="field">
                <label htmlFor="payout-channel">{t('wallet.out.channel')}</label>
                <select
                  id="payout-channel"
                  value={channelId}
                  onChange={(e) => {
                    setChannelId(e.target.value);
                    setValues({});
                  }}
                >
                  {apply!.channels.map((c) => (
                    <option key={c.paymentId} value={c.paymentId}>
                      {c.channelName}
                    </option>
                  ))}
                </select>
              </div>
            ) : channel ? (
              <p>{channel.channelName}</p>
            ) : null}
            {channel?.payoutConfig.map((f) => (
              <div className="field" key={f.fieldName}>
                <label htmlFor={`payout-${f.fieldName}`}>{fieldLabel(f.fieldName)}</label>
                {f.fieldType === 'picker' ? (
                  <select
                    id={`payout-${f.fieldName}`}
                    value={values[f.fieldName] ?? ''}
                    onChange={(e) => setValues({ ...values, [f.fieldName]: e.target.value })}
                  >
                    <option value="">{t('wallet.out.choose')}</option>
                    {(f.fieldDefauldValues ?? []).map((o) => (
                      <option key={o.value} value={o.value}>
                        {o.desc}
                      </option>
                    ))}
                  </select>
                ) : (
                  <input
                    id={`payout-${f.fieldName}`}
                    value={values[f.fieldName] ?? ''}
                    autoComplete="off"
                    onChange={(e) => setValues({ ...values, [f.fieldName]: e.target.value })}
                  />
                )}
              </div>
            ))}
            {sheetError ? (
              <p role="alert" className="form-error">
                {sheetError}
              </p>
            ) : null}
          </form>
        </Dialog>

        <Dialog
          open={sheet === 'remark'}
          title={t('wallet.out.remarkTitle')}
          onClose={() => setSheet(null)}
          actions={
            <>
              <button type="button" className="button" onClick={() => setSheet(null)}>
                {t('common.cancel')}
              </button>
              <button type="submit" form="remark-form" className="button primary" disabled={busy}>
                {t('wallet.out.confirm')}
              </button>
            </>
          }
        >
          <form id="remark-form" className="card-form" noValidate onSubmit={(e) => void submitRemark(e)}>
            {(['name', 'bankCard', 'phone'] as const).map((f) => (
              <div className="field" key={f}>
                <label htmlFor={`remark-${f}`}>{t(`wallet.out.remark.${f}`)}</label>
                <input
                  id={`remark-${f}`}
                  value={remark[f]}
                  inputMode={f === 'name' ? 'text' : 'numeric'}
                  autoComplete={f === 'name' ? 'name' : f === 'phone' ? 'tel' : 'off'}
                  onChange={(e) => setRemark({ ...remark, [f]: e.target.value })}
                />
              </div>
            ))}
            {sheetError ? (
              <p role="alert" className="form-error">
                {sheetError}
              </p>
            ) : null}
          </form>
        </Dialog>
      </main>
    </>
  );
}
