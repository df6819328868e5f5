// Route '/wallet': the user's wallets (one per currency and agent) or one; balance and deposit;
// top-up, withdrawal, movements; saved cards with the add-card rule (not NGN; a wallet, qrcode, mificode or sn).
// Opened from a rental or a Wi-Fi box (type cdb or mifi, with its qrcode, mificode or sn) it leads back there; price
// is the top-up's amount, paymentId (or pmid) the method a card is saved with.
import { useCallback, useState } from 'react';
import { useStore } from '@nanostores/react';
import { useLatestLoad, useMountEffect } from '../ui/hooks.ts';
import { useLiveRefresh } from '../ui/live.ts';
import { useT, errorText } from '../i18n/index.ts';
import { listWallets, type Wallet as WalletRow } from '../api/wallet.ts';
import { canAddCard } from '../core/wallet.ts';
import { $route, href } from '../stores/router.ts';
import { $wallet } from '../stores/wallet.ts';
import { PageHeader } from '../ui/PageHeader.tsx';
import { Loading } from '../ui/Loading.tsx';
import { money } from '../ui/format.ts';
import { SavedCards } from './SavedCards.tsx';
// The way back to a rental or a Wi-Fi box is worded with the payment strings (locales/pay/).
import '../pay/strings.ts';
import './wallet.css';

export default function Wallet() {
  const t = useT();
  const route = useStore($route);
  const selected = useStore($wallet);
  const [wallets, setWallets] = useState<WalletRow[] | null>(null);
  const [error, setError] = useState('');
  const q = route.query;
  const only = q.get('currency');

  // Loads overlap (the first load, a resync, a change event): an older answer never puts back an older balance.
  const beginLoad = useLatestLoad();
  const load = useCallback(async () => {
    const isLatest = beginLoad();
    setError('');
    try {
      const list = await listWallets();
      if (!isLatest()) return;
      setWallets(list);
      const keep = list.find((w) => w.pCurrencyType === selected?.pCurrencyType && w.pDailiId === selected?.pDailiId);
      $wallet.set(keep ?? list.find((w) => w.pCurrencyType === only) ?? list[0] ?? null);
    } catch (e) {
      if (isLatest()) setError(errorText(e, t));
    }
  }, [t, selected?.pCurrencyType, selected?.pDailiId, only, beginLoad]);

  useMountEffect(() => {
    void load();
  });
  // Live: a top-up, withdrawal, payout or a rental's hold moved the balance.
  useLiveRefresh(
    (e) => e.kind === 'wallet' || e.kind === 'order',
    () => void load(),
  );

  const shown = wallets ? (only ? wallets.filter((w) => w.pCurrencyType === only) : wallets) : [];
  const current =
    selected && shown.find((w) => w.pCurrencyType === selected.pCurrencyType && w.pDailiId === selected.pDailiId);
  const ctx = { hasWallet: Boolean(current), qrcode: q.get('qrcode'), mificode: q.get('mificode'), sn: q.get('sn') };
  const price = Number(q.get('price'));
  const topUpPrice = Number.isFinite(price) && price > 0 ? { price: q.get('price')! } : {};
  const back = backTo(q);

  return (
    <>
      <PageHeader title={t('wallet.title')} />
      <main className="page wallet">
        {error ? (
          <div role="alert" className="center">
            <p>{error}</p>
            <button type="button" className="button" onClick={() => void load()}>
              {t('common.retry')}
            </button>
          </div>
        ) : !wallets ? (
          <Loading label={t('common.loading')} />
        ) : (
          <>
            <ul className="wallet-list" aria-label={t('wallet.listLabel')}>
              {shown.map((w) => {
                const isSel = current === w;
                const key = `${w.pCurrencyType}-${w.pDailiId}`;
                return (
                  <li
                    key={key}
                    className={`wallet-card${isSel ? ' selected' : ''}`}
                    data-testid={`wallet-${w.pCurrencyType}`}
                  >
                    <h2>{t('wallet.currencyWallet', { currency: w.pCurrencyType })}</h2>
                    <dl className="wallet-figures">
                      <div>
                        <dt>{t('wallet.balance')}</dt>
                        <dd data-testid="balance">{money(w.pCurrencyType, w.pBalance)}</dd>
                      </div>
                      <div>
                        <dt>{t('wallet.deposit')}</dt>
                        <dd>{money(w.pCurrencyType, w.pDepositAmount)}</dd>
                      </div>
                    </dl>
                    {shown.length > 1 && !isSel ? (
                      <button type="button" className="button small" onClick={() => $wallet.set(w)}>
                        {t('wallet.select')}
                      </button>
                    ) : null}
                    {isSel ? (
                      <div className="wallet-actions">
                        <a
                          className="button primary"
                          href={
                            '#' +
                            href('/wallet_in', {
                              currency: w.pCurrencyType,
                              agentId: w.pDailiId,
                              pbalance: w.pBalance,
                              ...topUpPrice,
                            })
                          }
                        >
                          {t('wallet.topUp')}
                        </a>
                        <a
                          className="button"
                          href={'#' + href('/wallet_out', { currency: w.pCurrencyType, agentId: w.pDailiId })}
                        >
                          {t('wallet.withdraw')}
                        </a>
                        <a
                          className="button"
                          href={'#' + href('/wallet_list', { currency: w.pCurrencyType, agentId: w.pDailiId })}
                        >
                          {t('wallet.movements')}
                        </a>
                      </div>
                    ) : null}
                  </li>
                );
              })}
            </ul>
            {current ? (
              <SavedCards
                wallet={current}
                canAdd={canAddCard(current.pCurrencyType, ctx)}
                preferred={q.get('paymentId') || q.get('pmid') || undefined}
              />
            ) : null}
            {back ? (
              <a className="button block" href={`#${back.to}`}>
                {t(back.label)}
              </a>
            ) : null}
          </>
        )}
      </main>
    </>
  );
}

/** Where a wallet opened from a rental (type cdb) or a Wi-Fi box (type mifi) leads back to, if anywhere. */
function backTo(q: URLSearchParams): { to: string; label: string } | null {
  const type = q.get('type');
  const code = q.get('qrcode');
  if (type === 'cdb' && code) return { to: href('/', { qrcode: code }), label: 'walletReturn.cdb' };
  if (type !== 'mifi') return null;
  const mificode = q.get('mificode');
  if (mificode) return { to: href('/', { qrcode: mificode }), label: 'walletReturn.mifi' };
  return q.get('sn') ? { to: '/scanOrder', label: 'walletReturn.mifi' } : null;
}
