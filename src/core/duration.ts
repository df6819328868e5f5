// Spec §9: "Duration is rounded to the nearest half hour in one language text". Pure.

/**
 * Minutes → hours rounded to the nearest half hour (halves round up: 15 min → 0.5 h, 44 → 0.5, 45 → 1).
 * Negative or missing durations count as 0.
 */
export function halfHours(minutes: number | undefined): number {
  const m = Math.max(0, Number.isFinite(minutes) ? (minutes as number) : 0);
  return Math.round(m / 30) / 2;
}
