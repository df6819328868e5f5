// Opening hours per weekday ("09:00-13:00, 14:00-20:00"; empty: closed) and exceptions on dates (holidays, events),
// typed as text so the keyboard is enough; the server checks order and overlap and names the field it refuses.
import { WEEKDAYS, type OpeningHours } from '../../../contract/ops-fleet.ts';
import { useT } from '../../../i18n/index.ts';
import { Field } from '../../form.tsx';

const RANGES =
  '^\\s*([0-2][0-9]:[0-5][0-9]\\s*-\\s*[0-2][0-9]:[0-5][0-9](\\s*,\\s*[0-2][0-9]:[0-5][0-9]\\s*-\\s*[0-2][0-9]:[0-5][0-9])*)?\\s*$';

export const rangesText = (r: OpeningHours['weekly']['mon']) => r.map((x) => `${x.open}-${x.close}`).join(', ');
export function parseRanges(text: string): OpeningHours['weekly']['mon'] {
  return text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((s) => {
      const [open = '', close = ''] = s.split('-').map((x) => x.trim());
      return { open, close };
    });
}

/** The hours as the form edits them: text per weekday, exceptions with text ranges. */
export interface HoursDraft {
  weekly: Record<(typeof WEEKDAYS)[number], string>;
  exceptions: Array<{ date: string; ranges: string; note: string }>;
}

export const hoursDraft = (oh: OpeningHours | null): HoursDraft => ({
  weekly: Object.fromEntries(
    WEEKDAYS.map((d) => [d, oh ? rangesText(oh.weekly[d]) : '09:00-21:00']),
  ) as HoursDraft['weekly'],
  exceptions: (oh?.exceptions ?? []).map((e) => ({ date: e.date, ranges: rangesText(e.ranges), note: e.note ?? '' })),
});

export const hoursOf = (d: HoursDraft): OpeningHours => ({
  weekly: Object.fromEntries(WEEKDAYS.map((w) => [w, parseRanges(d.weekly[w])])) as OpeningHours['weekly'],
  exceptions: d.exceptions.map((e) => ({
    date: e.date,
    ranges: parseRanges(e.ranges),
    ...(e.note ? { note: e.note } : {}),
  })),
});

export function HoursEditor({ value, onChange }: { value: HoursDraft; onChange: (v: HoursDraft) => void }) {
  const t = useT();
  const setException = (i: number, k: 'date' | 'ranges' | 'note', v: string) =>
    onChange({ ...value, exceptions: value.exceptions.map((e, j) => (j === i ? { ...e, [k]: v } : e)) });
  return (
    <fieldset className="ops-fieldset">
      <legend>{t('ops.venues.hours')}</legend>
      <p className="ops-note">{t('ops.venues.hoursHint')}</p>
      <div className="ops-form">
        {WEEKDAYS.map((d) => (
          <Field
            key={d}
            label={t(`ops.weekday.${d}`)}
            value={value.weekly[d]}
            pattern={RANGES}
            placeholder="09:00-21:00"
            onValue={(v) => onChange({ ...value, weekly: { ...value.weekly, [d]: v } })}
          />
        ))}
      </div>
      <h3>{t('ops.venues.exceptions')}</h3>
      {value.exceptions.map((e, i) => (
        <div className="ops-form" key={i}>
          <Field
            label={t('ops.venues.exceptionDate')}
            type="date"
            required
            value={e.date}
            onValue={(v) => setException(i, 'date', v)}
          />
          <Field
            label={t('ops.venues.exceptionHours')}
            value={e.ranges}
            pattern={RANGES}
            onValue={(v) => setException(i, 'ranges', v)}
          />
          <Field
            label={t('ops.venues.exceptionNote')}
            maxLength={120}
            value={e.note}
            onValue={(v) => setException(i, 'note', v)}
          />
          <button
            type="button"
            onClick={() => onChange({ ...value, exceptions: value.exceptions.filter((_, j) => j !== i) })}
          >
            {t('ops.form.remove')}
            <span className="ops-sr"> {e.date}</span>
          </button>
        </div>
      ))}
      <button
        type="button"
        onClick={() => onChange({ ...value, exceptions: [...value.exceptions, { date: '', ranges: '', note: '' }] })}
      >
        {t('ops.venues.addException')}
      </button>
    </fieldset>
  );
}
