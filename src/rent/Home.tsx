// Route '/home': the scanned cabinet — venue, price, features, the pay or Borrow button.
import { useEffect, useRef, useState } from 'react';
import { useStore } from '@nanostores/react';
import { useLatest } from '../ui/hooks.ts';
import { useT, errorText, type T } from '../i18n/index.ts';
import { $cabinet } from '../stores/cabinet.ts';
import { $qrcode } from '../stores/scan.ts';
import { $homePathName, $token, randomId } from '../stores/session.ts';
import { href, navigate } from '../stores/router.ts';
import { checkCabinet, rentWithBalance, type Cabinet } from '../api/cabinet.ts';
import { ApiError } from '../api/client.ts';
import { depositDue, depositRoute, rentAction, rentBlock } from '../core/cabinet.ts';
import { planFromWire } from '../core/pricing.ts';
import { toMajor } from '../core/money.ts';
import { PageHeader } from '../ui/PageHeader.tsx';
import { Loading } from '../ui/Loading.tsx';
import { showMessage } from '../ui/feedback.tsx';
import { money } from '../ui/format.ts';
import { perUnitText } from '../ui/price.ts';

export default function Home() {
  const t = useT();
  const cabinet = useStore($cabinet);
  const qrcode = useStore($qrcode);
  const token = useStore($token);
  const [loadError, setLoadError] = useState('');

  // The cabinet home is the user's home route from now on (homePathName).
  useEffect(() => {
    if (cabinet) $homePathName.set('/home');
  }, [cabinet]);

  // Refresh the cabinet (counts, wallet) whenever the screen opens with a session.
  const latest = useLatest({ cabinet, qrcode, t });
  useEffect(() => {
    const { cabinet, qrcode, t } = latest.current;
    const code = cabinet?.qrcode || qrcode;
    if (!code) return;
    // No session yet: the code-link entry makes the tourist session and comes back here.
    if (!token) return navigate(`/?qrcode=${encodeURIComponent(code)}`, { replace: true });
    let live = true;
    checkCabinet(code, undefined, cabinet?.qrcode === code ? cabinet.deviceType : undefined)
      .then((c) => live && $cabinet.set(c))
      .catch((e) => live && !cabinet && setLoadError(errorText(e, t)));
    return () => {
      live = false;
    };
    // Once per visit (and after a new session), not on every cabinet update.
  }, [token, latest]);

  if (!cabinet) {
    return (
      <>
        <PageHeader title={t('home.title')} />
        <main className="page center">
          {loadError ? (
            <p role="alert">{loadError}</p>
          ) : qrcode && token ? (
            <Loading label={t('common.loading')} />
          ) : (
            <p>{t('home.noCabinet')}</p>
          )}
        </main>
      </>
    );
  }
  return <CabinetHome cabinet={cabinet} t={t} />;
}

export function CabinetHome({ cabinet: c, t }: { cabinet: Cabinet; t: T }) {
  const currency = c.currency ?? 'CNY';
  // The price strategy; the flat fields jifei / jifeiDanwei / mianfei / fengding / yajin fill what it lacks.
  const plan = planFromWire(c.priceStrategy, currency, c);
  const unitPrice = toMajor(plan.unitPrice, currency);
  const unitMinutes = plan.unitMinutes;
  const freeMinutes = plan.freeMinutes;
  const dailyCap = toMajor(plan.dailyCap, currency);
  const deposit = c.yajin ?? toMajor(plan.deposit, currency);
  const action = rentAction(c);
  const block = rentBlock(c);
  const count = c.haveBatteryCount ?? 0;
  const [busy, setBusy] = useState(false);
  const fail = (text: string) => void showMessage({ title: t('home.borrowFailedTitle'), text });
  const actionKey = useRef<string | null>(null);

  const pay = () => {
    if (action.kind !== 'pay') return;
    navigate(
      href('/confirm', {
        price: action.amount,
        payType: 'YJ',
        qrcode: c.qrcode,
        cabinetID: c.cabinetID,
        yaJinType: c.yajintype ?? '',
      }),
    );
  };

  const borrow = async () => {
    // Deposit routing and the BGN rule, before asking the server.
    const route = depositRoute(c);
    if (route === 'paymentFail') return fail(t('rentRules.paymentFail'));
    if (route === 'confirm') {
      const due = depositDue(c.yajin ?? 0, c.userWallet?.pBalance ?? c.myyue ?? 0, c.currency);
      return navigate(
        href('/confirm', {
          price: due,
          payType: 'YJ',
          qrcode: c.qrcode,
          cabinetID: c.cabinetID,
          yaJinType: c.yajintype ?? '',
        }),
      );
    }
    setBusy(true);
    actionKey.current ??= randomId();
    try {
      const r = await rentWithBalance(c.qrcode, actionKey.current, c.deviceType);
      actionKey.current = null;
      if (!r?.outTradNo) {
        fail(t('home.borrowFailed'));
        return;
      }
      navigate(href('/borrowSuccess', { tradeNo: r.outTradNo }));
    } catch (e) {
      // Only an unknown outcome (network, timeout) keeps the key, so the retry is the same Borrow;
      // a refusal is final (the server stores it under the key), so the next tap is a new action.
      if (!(e instanceof ApiError && (e.kind === 'network' || e.kind === 'timeout'))) actionKey.current = null;
      fail(errorText(e, t));
    } finally {
      setBusy(false);
    }
  };

  return (
    <>
      <PageHeader title={t('home.title')} back={false} />
      <main className="page home">
        {c.deviceType === 'station' ? (
          <p className="device-kind" data-testid="device-kind">
            {t('home.deviceKind', { device: t('devices.station') })}
          </p>
        ) : null}
        <section className="venue" aria-labelledby="venue-name">
          {c.shoplogo ? (
            <img
              className="venue-logo"
              src={c.shoplogo}
              alt={t('home.logoAlt', { name: c.shopname ?? '' })}
              width="56"
              height="56"
            />
          ) : null}
          <div>
            <h2 id="venue-name" className="venue-name">
              {c.shopname}
            </h2>
            {c.shopAddress ? <p className="muted">{c.shopAddress}</p> : null}
            {c.shopTime ? <p className="muted">{t('home.openingHours', { time: c.shopTime })}</p> : null}
          </div>
        </section>

        <section className="price-card" aria-labelledby="price-title">
          <h2 id="price-title" className="visually-hidden">
            {t('home.priceTitle')}
          </h2>
          <p className="price">{perUnitText(t, currency, unitPrice, unitMinutes)}</p>
          <ul className="price-desc">
            {freeMinutes > 0 ? <li>{t('home.freeMinutes', { n: freeMinutes })}</li> : null}
            {dailyCap > 0 ? <li>{t('home.dailyCap', { amount: money(currency, dailyCap) })}</li> : null}
            <li>{t('home.deposit', { amount: money(currency, deposit) })}</li>
            {c.overtimeAmount ? <li>{t('home.overtime', { amount: money(currency, c.overtimeAmount) })}</li> : null}
          </ul>
          {/* The fee table is on the package screen just before (selectPakage); not repeated here. */}
        </section>

        <ul className="features" aria-label={t('home.featuresTitle')}>
          <li>{t('home.featurePhones')}</li>
          <li>{t('home.featureReturn')}</li>
          <li>{t('home.featureWireless')}</li>
        </ul>

        <p className="availability" role="status" aria-live="polite">
          {c.online === false ? t('home.offline') : t('home.available', { n: count })}
        </p>

        {block === 'rentCount' ? (
          <div className="notice" role="alert">
            <p>{t('home.rentCount', { n: c.zujieNum ?? 0 })}</p>
            <button type="button" className="button" onClick={() => navigate('/order')}>
              {t('home.viewOrders')}
            </button>
          </div>
        ) : null}

        <div className="actions">
          {action.kind === 'pay' ? (
            <button type="button" className="button primary block" disabled={block !== null} onClick={pay}>
              {action.label === 'preAuth'
                ? t('home.payPreAuth', { amount: money(currency, Number(action.amount)) })
                : t('home.payTopUp', { amount: money(currency, Number(action.amount)) })}
            </button>
          ) : null}
          {/* A deposit partly covered by the wallet says where the rest comes from. */}
          {action.kind === 'pay' && action.label !== 'preAuth' && deposit > Number(action.amount) ? (
            <p className="small" data-testid="from-wallet">
              {t('home.fromWallet', {
                wallet: money(currency, deposit - Number(action.amount)),
                deposit: money(currency, deposit),
              })}
            </p>
          ) : null}
          {action.kind === 'pay' ? null : (
            <button
              type="button"
              className="button primary block"
              disabled={block !== null}
              aria-disabled={busy}
              aria-busy={busy}
              onClick={() => !busy && void borrow()}
            >
              {busy ? t('home.borrowing') : t('home.borrow')}
            </button>
          )}
          <p className="tip">{t('home.tip')}</p>
          <button type="button" className="button link" onClick={() => navigate('/order')}>
            {t('home.myOrders')}
          </button>
        </div>
      </main>
    </>
  );
}
