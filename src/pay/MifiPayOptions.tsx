// The confirm screen's Wi-Fi options (payType mifi): the wallet, which pays first when chosen (the method only the
// rest, nothing at all when it covers the amount), and for a package a coupon off its price (never off a box
// deposit), checked with the server before paying. The paying call sends the same choice (useWallet, couponNo) and
// the server decides again; what it charges is what this shows. Only the confirm screen's chunk carries it.
import { useEffect, useId, useState } from 'react';
import { useT, errorText } from '../i18n/index.ts';
import { listWallets } from '../api/wallet.ts';
import { couponDiscount } from '../api/mifi.ts';
import { toMajor, toMinor } from '../core/money.ts';
import { money } from '../ui/format.ts';
import { usePayStrings } from './strings.ts';

/** What the rider chose: sent with the paying call; `due` is what the method is asked for (0: the wallet pays all). */
export interface MifiChoice {
  useWallet: boolean;
  couponNo?: string;
  due: number;
}

/**
 * `total` and `deposit` in minor units (the deposit is in the total and takes no coupon). A box deposit (`deposit` ===
 * `total`) is paid from the wallet only whole: a hold is taken by the method or by the wallet, never split.
 */
export function MifiPayOptions({
  currency,
  total,
  deposit,
  onChange,
}: {
  currency: string;
  total: number;
  deposit: number;
  onChange: (c: MifiChoice) => void;
}) {
  const t = useT();
  usePayStrings();
  const id = useId();
  const [balance, setBalance] = useState(0);
  const [useWallet, setUseWallet] = useState(true);
  const [code, setCode] = useState('');
  const [coupon, setCoupon] = useState<{ code: string; discount: number } | null>(null);
  const [couponError, setCouponError] = useState('');
  const [checking, setChecking] = useState(false);
  const depositOnly = deposit >= total;

  useEffect(() => {
    let live = true;
    listWallets().then(
      (ws) => {
        const w = ws.find((x) => x.pCurrencyType.toUpperCase() === currency.toUpperCase());
        if (live) setBalance(w ? toMinor(w.pBalance, currency) : 0);
      },
      () => live && setBalance(0),
    );
    return () => {
      live = false;
    };
  }, [currency]);

  const owed = total - (coupon?.discount ?? 0);
  const canUse = depositOnly ? balance >= owed : balance > 0;
  const fromWallet = useWallet && canUse ? Math.min(balance, owed) : 0;
  const due = owed - fromWallet;
  useEffect(() => {
    onChange({ useWallet: fromWallet > 0, couponNo: coupon?.code, due });
  }, [fromWallet, coupon, due, onChange]);

  const apply = async () => {
    const c = code.trim();
    if (!c) return;
    setChecking(true);
    setCouponError('');
    try {
      const r = await couponDiscount({ couponNo: c, currency, amount: total - deposit });
      setCoupon({ code: c, discount: r.discount });
    } catch (e) {
      setCoupon(null);
      setCouponError(errorText(e, t));
    } finally {
      setChecking(false);
    }
  };
  const m = (minor: number) => money(currency, toMajor(minor, currency));

  return (
    <section className="mifi-pay-options" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`} className="section-title">
        {t('mifiPay.title')}
      </h2>
      {canUse ? (
        <label className="check-row">
          <input type="checkbox" checked={useWallet} onChange={(e) => setUseWallet(e.target.checked)} />
          <span>{t('mifiPay.useWallet', { amount: m(balance) })}</span>
        </label>
      ) : balance > 0 ? (
        <p className="muted small">{t('mifiPay.walletShort', { amount: m(balance) })}</p>
      ) : null}
      {depositOnly ? null : (
        <div className="coupon-row">
          <label htmlFor={`${id}-coupon`}>{t('mifiPay.coupon')}</label>
          <input
            id={`${id}-coupon`}
            value={code}
            maxLength={64}
            autoComplete="off"
            aria-invalid={couponError ? true : undefined}
            aria-describedby={couponError ? `${id}-coupon-error` : undefined}
            onChange={(e) => {
              setCode(e.target.value);
              setCoupon(null);
              setCouponError('');
            }}
          />
          <button
            type="button"
            className="button small"
            disabled={checking || !code.trim()}
            onClick={() => void apply()}
          >
            {t('mifiPay.apply')}
          </button>
          {couponError ? (
            <p id={`${id}-coupon-error`} className="field-error" role="alert">
              {couponError}
            </p>
          ) : null}
          {coupon ? <p role="status">{t('mifiPay.discount', { amount: m(coupon.discount) })}</p> : null}
        </div>
      )}
      {fromWallet > 0 ? (
        <p role="status">
          {due > 0
            ? t('mifiPay.split', { wallet: m(fromWallet), rest: m(due) })
            : t('mifiPay.allWallet', { amount: m(fromWallet) })}
        </p>
      ) : null}
    </section>
  );
}
