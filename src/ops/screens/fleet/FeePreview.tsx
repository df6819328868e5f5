// The live fee preview of a plan being edited: the durations the operator picks, each with the fee the server
// computes by the one fee rule (src/core/pricing.ts, as a rental is charged), in the operator's language.
import { useStore } from '@nanostores/react';
import { useEffect, useState } from 'react';
import type { FeePreview as Preview } from '../../../contract/ops-fleet.ts';
import { formatDuration } from '../../../core/duration.ts';
import { formatMoney } from '../../../core/money.ts';
import { $activeLang, useT } from '../../../i18n/index.ts';
import { opsCall } from '../../api.ts';
import { Field } from '../../form.tsx';
import { Problem } from '../Problem.tsx';

const DURATIONS = '^\\s*\\d{1,7}(\\s*,\\s*\\d{1,7})*\\s*$';

export function FeePreview({ plan }: { plan: Record<string, unknown> }) {
  const t = useT();
  const lang = useStore($activeLang);
  const [minutes, setMinutes] = useState('15, 30, 60, 120, 1440, 2880');
  const [preview, setPreview] = useState<Preview>();
  const [error, setError] = useState<unknown>();
  const key = JSON.stringify(plan);
  useEffect(() => {
    if (!new RegExp(DURATIONS).test(minutes)) return;
    const list = minutes
      .split(',')
      .map((m) => Number(m.trim()))
      .slice(0, 100);
    let gone = false;
    const timer = setTimeout(() => {
      opsCall<Preview>('POST', '/plans/preview', { plan: JSON.parse(key) as unknown, minutes: list }).then(
        (p) => {
          if (gone) return;
          setPreview(p);
          setError(undefined);
        },
        (e: unknown) => !gone && setError(e),
      );
    }, 300);
    return () => {
      gone = true;
      clearTimeout(timer);
    };
  }, [key, minutes]);
  return (
    <section aria-labelledby="ops-preview">
      <h3 id="ops-preview">{t('ops.plans.preview')}</h3>
      <div className="ops-form">
        <Field
          label={t('ops.plans.durations')}
          pattern={DURATIONS}
          value={minutes}
          onValue={setMinutes}
          hint={t('ops.plans.durationsHint')}
        />
      </div>
      {preview && (
        <table className="ops-table ops-narrow" aria-live="polite">
          <thead>
            <tr>
              <th scope="col">{t('ops.plans.duration')}</th>
              <th scope="col">{t('ops.plans.fee')}</th>
            </tr>
          </thead>
          <tbody>
            {preview.fees.map((f, i) => (
              <tr key={i}>
                <td>{formatDuration(f.minutes * 60_000, lang)}</td>
                <td>{formatMoney(f.fee, preview.currency, lang)}</td>
              </tr>
            ))}
            <tr>
              <td>{t('ops.plans.buyOut', { after: formatDuration(preview.buyOutAfterMinutes * 60_000, lang) })}</td>
              <td>{formatMoney(preview.buyOutFee, preview.currency, lang)}</td>
            </tr>
          </tbody>
        </table>
      )}
      <Problem error={error} />
    </section>
  );
}
