// List helpers of the ops API (docs/architecture.md "Back office"): keyset pagination with opaque cursors, and
// sorting by a whitelist of columns. A repository names its sortable columns once (a SortSpec); the route passes
// the client's `sort` and `cursor` through, and a cursor that was not made here is a 400, never a 500.
import { badRequest } from './errors.ts';

/** Sort names a client may ask for → the SQL expression each stands for (the only text that reaches the SQL). */
export type SortSpec = Record<string, string>;

/**
 * `sort` ('name' ascending, '-name' descending; the first key of the spec when absent) as an ORDER BY with the
 * row's id as the tie-breaker, so keyset pages never skip or repeat a row.
 */
export function orderBy(spec: SortSpec, sort: string | undefined, idColumn: string): { key: string; desc: boolean; sql: string } {
  const desc = sort?.startsWith('-') ?? false;
  const name = sort?.replace(/^-/, '') || Object.keys(spec)[0]!;
  const key = spec[name];
  if (!key) throw badRequest('ops.error.sort', { sort: name });
  const dir = desc ? 'desc' : 'asc';
  return { key, desc, sql: `${key} ${dir}, ${idColumn} ${dir}` };
}

/** An opaque cursor: the last row's sort value and id. */
export function encodeCursor(sortValue: string, id: string): string {
  return Buffer.from(JSON.stringify([sortValue, id])).toString('base64url');
}

/** `idPattern`: what a row id of the list looks like (numeric ids unless the list says otherwise). */
export function decodeCursor(cursor: string | undefined, idPattern = /^\d{1,18}$/): [string, string] | undefined {
  if (!cursor) return undefined;
  try {
    const v: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (Array.isArray(v) && v.length === 2 && typeof v[0] === 'string' && typeof v[1] === 'string' && idPattern.test(v[1])) return [v[0], v[1]];
  } catch {
    // fall through
  }
  throw badRequest('ops.error.cursor');
}

/**
 * A page from rows read with `limit + 1`: the first `limit` rows, and the cursor of the next page when the extra
 * row shows there is one.
 */
export function pageOf<R, T>(rows: R[], limit: number, cursorOf: (row: R) => [string, string], map: (row: R) => T): { items: T[]; next?: string } {
  const items = rows.slice(0, limit);
  const last = items[items.length - 1];
  return {
    items: items.map(map),
    ...(rows.length > limit && last ? { next: encodeCursor(...cursorOf(last)) } : {}),
  };
}
