// "Duration is rounded to the nearest half hour in one language text". Pure.

/**
 * Minutes → hours rounded to the nearest half hour (halves round up: 15 min → 0.5 h, 44 → 0.5, 45 → 1).
 * Negative or missing durations count as 0.
 */
export function halfHours(minutes: number | undefined): number {
  const m = Math.max(0, Number.isFinite(minutes) ? (minutes as number) : 0);
  return Math.round(m / 30) / 2;
}

const UNITS = [
  ['day', 86_400_000],
  ['hour', 3_600_000],
  ['minute', 60_000],
  ['second', 1000],
] as const;

/**
 * A duration in the user's language without zero parts: "1 hr", "1 day, 5 min" style per locale ("1 h 5 min" where
 * the locale says so), through Intl.NumberFormat units joined by Intl.ListFormat. Minutes are the smallest part
 * unless `seconds`; under the smallest part it is "0 min" / "0 sec".
 */
export function formatDuration(ms: number, locale: string, opts: { seconds?: boolean } = {}): string {
  let rest = Math.max(0, Number.isFinite(ms) ? Math.floor(ms) : 0);
  const units = opts.seconds ? UNITS : UNITS.slice(0, 3);
  const parts: string[] = [];
  for (const [unit, size] of units) {
    const n = Math.floor(rest / size);
    rest -= n * size;
    if (n > 0) parts.push(new Intl.NumberFormat(locale, { style: 'unit', unit, unitDisplay: 'short' }).format(n));
  }
  if (!parts.length)
    parts.push(
      new Intl.NumberFormat(locale, { style: 'unit', unit: units[units.length - 1]![0], unitDisplay: 'short' }).format(
        0,
      ),
    );
  try {
    return new Intl.ListFormat(locale, { style: 'narrow', type: 'unit' }).format(parts);
  } catch {
    return parts.join(' ');
  }
}
