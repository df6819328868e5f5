// Route '/wallet_list': the wallet's movements (top-ups, deposits, rent, withdrawals), newest first, paged.
import { useCallback, useEffect, useState } from 'react';
import { useStore } from '@nanostores/react';
import { useLatest } from '../ui/hooks.ts';
import { useT, errorText, $activeLang } from '../i18n/index.ts';
import { listMovements, type Movement } from '../api/wallet.ts';
import { $route } from '../stores/router.ts';
import { $wallet } from '../stores/wallet.ts';
import { PageHeader } from '../ui/PageHeader.tsx';
import { Loading } from '../ui/Loading.tsx';
import { dateTime } from '../ui/format.ts';
// The movements' words come with the payment strings (locales/pay/), not in the first load.
import '../pay/strings.ts';
import './wallet.css';

const PAGE = 10;
const KNOWN = [
  'wallet_topup',
  'withdrawal',
  'deposit_hold',
  'deposit_topup',
  'deposit_preauth',
  'rent',
  'deposit_release',
  'withdrawal_reversal',
  'deposit_refund',
  'mifi_deposit',
  'mifi_deposit_preauth',
  'mifi_deposit_captured',
  'mifi_topup',
  'mifi_package',
  'mifi_refund',
  'mifi_refund_card',
  'buy_out_refund',
  'desk_refund',
  'coupon',
  'account_merge',
  'wallet_adjustment',
];
const STATUSES = ['pending', 'held', 'awaiting_payout', 'paid', 'rejected'];

export default function WalletList() {
  const t = useT();
  const lang = useStore($activeLang);
  const route = useStore($route);
  const wallet = useStore($wallet);
  const currency = route.query.get('currency') || wallet?.pCurrencyType || undefined;
  const agentId = route.query.get('agentId') || wallet?.pDailiId || undefined;
  const [rows, setRows] = useState<Movement[]>([]);
  const [total, setTotal] = useState(0);
  const [page, setPage] = useState(0);
  const [loading, setLoading] = useState(true);
  const [error, setError] = useState('');

  const load = useCallback(
    async (next: number) => {
      setLoading(true);
      setError('');
      try {
        const r = await listMovements({ currency, agentId, page: next, pageSize: PAGE });
        setRows((prev) => [...(next === 1 ? [] : prev), ...r.page.records]);
        setTotal(r.page.total);
        setPage(next);
      } catch (e) {
        setError(errorText(e, t));
      } finally {
        setLoading(false);
      }
    },
    [currency, agentId, t],
  );

  // The first page when the wallet changes (a language change does not reload the list).
  const latestLoad = useLatest(load);
  useEffect(() => {
    void latestLoad.current(1);
  }, [currency, agentId, latestLoad]);

  const fmt = (m: Movement) => {
    try {
      return new Intl.NumberFormat(lang, { style: 'currency', currency: m.currency, signDisplay: 'always' }).format(
        m.amount,
      );
    } catch {
      return `${m.amount > 0 ? '+' : ''}${m.amount} ${m.currency}`;
    }
  };

  return (
    <>
      <PageHeader title={t('movements.title')} />
      <main className="page wallet-list-page">
        {error ? <p role="alert">{error}</p> : null}
        {!loading && rows.length === 0 && !error ? <p>{t('movements.empty')}</p> : null}
        <ul className="movements" aria-label={t('movements.title')}>
          {rows.map((m) => (
            <li key={m.id} className="movement">
              <div>
                <div>{t(`movements.types.${KNOWN.includes(m.type) ? m.type : 'other'}`)}</div>
                <div className="hint">
                  {dateTime(m.createdAt, lang)} ·{' '}
                  {t(`movements.status.${STATUSES.includes(m.status) ? m.status : 'done'}`)}
                </div>
              </div>
              <span className={`movement-amount ${m.amount > 0 ? 'credit' : 'debit'}`}>{fmt(m)}</span>
            </li>
          ))}
        </ul>
        {loading ? (
          <Loading label={t('common.loading')} />
        ) : rows.length < total ? (
          <button type="button" className="button block" onClick={() => void load(page + 1)}>
            {t('movements.more')}
          </button>
        ) : null}
      </main>
    </>
  );
}
