// The order's money timeline (docs/payments.md): held, eject confirmed → captured, released, refunded, charged.
import { useEffect, useState } from 'react';
import { useStore } from '@nanostores/react';
import { useT, $activeLang } from '../i18n/index.ts';
import { moneyTimeline, type MoneyStep } from '../api/payment.ts';
import { dateTime, money } from '../ui/format.ts';
import { usePayStrings } from '../pay/strings.ts';

export function MoneyTimeline({ orderId, symbol }: { orderId: string; symbol: string }) {
  const t = useT();
  usePayStrings();
  const lang = useStore($activeLang);
  const [steps, setSteps] = useState<MoneyStep[] | null>(null);
  useEffect(() => {
    let live = true;
    // The timeline is extra information: the detail stays usable when it cannot be loaded.
    moneyTimeline(orderId).then(
      (s) => live && setSteps(s),
      () => live && setSteps([]),
    );
    return () => {
      live = false;
    };
  }, [orderId]);
  if (!steps?.length) return null;
  return (
    <section className="money-timeline" aria-labelledby="money-title">
      <h2 id="money-title" className="section-title">
        {t('money.title')}
      </h2>
      <ol>
        {steps.map((s, i) => (
          <li key={i}>
            <strong>{t(`money.step.${s.step}`, { amount: money(symbol, s.amount) })}</strong>{' '}
            <span className="muted">
              {t(`money.purpose.${s.purpose}`)} · <time dateTime={s.at}>{dateTime(s.at, lang)}</time>
            </span>
          </li>
        ))}
      </ol>
    </section>
  );
}
