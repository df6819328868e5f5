// The one rule for a date a client sends: from 2000-01-01 to 2100-01-01 (UTC), as epoch milliseconds, epoch
// seconds or ISO 8601 text, checked by the schema: anything else is a 400 naming the field, never handed to the
// database (which would refuse it with an error, or store a date no one meant).
import { Type } from 'typebox';

export const DATE_MIN_MS = Date.UTC(2000, 0, 1);
export const DATE_MAX_MS = Date.UTC(2100, 0, 1);

/** ISO 8601 text of a year 2000..2099: a date, optionally a time and an offset. */
const ISO_DATE =
  '^20\\d{2}-(0[1-9]|1[0-2])-(0[1-9]|[12]\\d|3[01])([T ]([01]\\d|2[0-3]):[0-5]\\d(:[0-5]\\d(\\.\\d{1,9})?)?(Z|[+-]([01]\\d|2[0-3]):?[0-5]\\d)?)?$';

/** Epoch milliseconds within the range. */
export const EpochMs = (opts: { description?: string } = {}) =>
  Type.Integer({ minimum: DATE_MIN_MS, maximum: DATE_MAX_MS, ...opts });
/** Epoch seconds within the range. */
export const EpochSeconds = (opts: { description?: string } = {}) =>
  Type.Integer({ minimum: DATE_MIN_MS / 1000, maximum: DATE_MAX_MS / 1000, ...opts });
/** ISO 8601 text within the range. */
export const DateText = (opts: { description?: string } = {}) =>
  Type.String({ maxLength: 40, pattern: ISO_DATE, ...opts });
/** Epoch milliseconds or ISO 8601 text, within the range (the number first: a numeric text is read as milliseconds). */
export const DateInput = (opts: { description?: string } = {}) => Type.Union([EpochMs(), DateText()], opts);
