// Opening hours at a moment: whether a venue is open, and when it next opens. The hours are local to the venue's time
// zone (its agent's, agent_return_settings.time_zone: VenuesService `zoned`); a venue without hours is always open.
import type { OpeningHours } from '../contract/ops-fleet.ts';

const WEEKDAY = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'] as const;
const minutes = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));

/** The local calendar day and minute of `at` in `timeZone`. */
function local(at: number, timeZone: string) {
  const parts = new Intl.DateTimeFormat('en-GB', {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).formatToParts(at);
  const n = (type: string) => Number(parts.find((p) => p.type === type)?.value ?? 0);
  return { day: Date.UTC(n('year'), n('month') - 1, n('day')), minute: n('hour') * 60 + n('minute') };
}

/** The ranges of a local day (`day`: its midnight as a UTC date): the exception for that date, else its weekday's. */
function rangesOn(oh: OpeningHours, day: number) {
  const d = new Date(day);
  const date = d.toISOString().slice(0, 10);
  return (oh.exceptions.find((e) => e.date === date)?.ranges ?? oh.weekly[WEEKDAY[d.getUTCDay()]!]).map((r) => ({
    open: minutes(r.open),
    close: minutes(r.close),
  }));
}

/** The instant of local minute `minute` of local day `day` in `timeZone`. */
function instant(day: number, minute: number, timeZone: string) {
  const guess = day + minute * 60_000;
  const offset = (t: number) => {
    const l = local(t, timeZone);
    return l.day + l.minute * 60_000 - Math.floor(t / 60_000) * 60_000;
  };
  const first = guess - offset(guess);
  return guess - offset(first);
}

/** Whether the venue is open at `at`. A range whose close is before its open runs past midnight. */
export function openAt(oh: OpeningHours | null | undefined, timeZone: string, at: number): boolean {
  if (!oh) return true;
  const l = local(at, timeZone);
  if (rangesOn(oh, l.day).some((r) => r.open <= l.minute && (r.close > r.open ? l.minute < r.close : true)))
    return true;
  return rangesOn(oh, l.day - 86_400_000).some((r) => r.close < r.open && l.minute < r.close);
}

/** When the venue next opens after `at` (within a week and a day), or null (never in that time, or always open). */
export function nextOpening(oh: OpeningHours | null | undefined, timeZone: string, at: number): number | null {
  if (!oh) return null;
  const today = local(at, timeZone).day;
  for (let k = 0; k <= 8; k++) {
    const day = today + k * 86_400_000;
    for (const r of rangesOn(oh, day).sort((a, b) => a.open - b.open)) {
      const t = instant(day, r.open, timeZone);
      if (t > at) return t;
    }
  }
  return null;
}
