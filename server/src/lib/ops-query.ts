// List helpers of the ops API (docs/architecture.md "Back office"): keyset pagination with opaque cursors, and
// sorting by a whitelist of columns. A repository names its sortable columns once (a SortSpec); the route passes
// the client's `sort` and `cursor` through, and a cursor that was not made here is a 400, never a 500.
import type { Scope } from '#core/opsAccess.ts';
import { badRequest } from './errors.ts';

/** Sort names a client may ask for → the SQL expression each stands for (the only text that reaches the SQL). */
export type SortSpec = Record<string, string>;

/**
 * `sort` ('name' ascending, '-name' descending; the first key of the spec when absent) as an ORDER BY with the
 * row's id as the tie-breaker, so keyset pages never skip or repeat a row.
 */
export function orderBy(
  spec: SortSpec,
  sort: string | undefined,
  idColumn: string,
): { key: string; desc: boolean; sql: string } {
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

/** `idPattern`: what the list's ids look like (default: bigint ids). */
export function decodeCursor(cursor: string | undefined, idPattern = /^\d{1,18}$/): [string, string] | undefined {
  if (!cursor) return undefined;
  try {
    const v: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (
      Array.isArray(v) &&
      v.length === 2 &&
      typeof v[0] === 'string' &&
      typeof v[1] === 'string' &&
      idPattern.test(v[1])
    )
      return [v[0], v[1]];
  } catch {
    // fall through
  }
  throw badRequest('ops.error.cursor');
}

/**
 * A page from rows read with `limit + 1`: the first `limit` rows, and the cursor of the next page when the extra
 * row shows there is one.
 */
export function pageOf<R, T>(
  rows: R[],
  limit: number,
  cursorOf: (row: R) => [string, string],
  map: (row: R) => T,
): { items: T[]; next?: string } {
  const items = rows.slice(0, limit);
  const last = items[items.length - 1];
  return {
    items: items.map(map),
    ...(rows.length > limit && last ? { next: encodeCursor(...cursorOf(last)) } : {}),
  };
}

/**
 * A caller's scope as SQL parameters: the agents whose every object is visible (null: every agent), and the
 * `agent/venue` pairs of a venue partner's venues.
 */
export interface ScopeParams {
  agents: string[] | null;
  pairs: string[];
}

export function scopeParams(scope: Scope): ScopeParams {
  if (scope.kind === 'all') return { agents: null, pairs: [] };
  if (scope.kind === 'none') return { agents: [], pairs: [] };
  return {
    agents: scope.agents.filter((a) => scope.venues[a] === undefined),
    pairs: Object.entries(scope.venues).flatMap(([a, vs]) => vs.map((v) => `${a}/${v}`)),
  };
}

/** The scope's condition over a row's agent and venue columns, with ScopeParams as $1 (agents) and $2 (pairs). */
export const scopeSql = (agent: string, venue: string) =>
  `($1::text[] is null or ${agent} = any($1::text[]) or (${agent} || '/' || ${venue}) = any($2::text[]))`;

/** The same as flags for SQL that tests `all` first (the venues' and agents' lists). */
export function scopeFlags(scope: Scope): { all: boolean; agents: string[]; pairs: string[] } {
  const p = scopeParams(scope);
  return { all: p.agents === null, agents: p.agents ?? [], pairs: p.pairs };
}

/** A search text as a LIKE pattern (lower case, its own % and _ taken literally); null without one. */
export const likeOf = (q: string | undefined) => (q ? `%${q.toLowerCase().replace(/[\\%_]/g, '\\$&')}%` : null);

/** The ids an operator gives the fleet's objects (venues, agents, plans). */
export const FLEET_ID = /^[A-Za-z0-9._-]{1,64}$/;

/** A search's rider fields (phone, e-mail, id, a card's last 4), each naming riders. */
export interface WhoQuery {
  phone?: string;
  email?: string;
  riderId?: string;
  cardLast4?: string;
}

/** The riders every given field names (their intersection), or null when no field is given (no such filter). */
export type RidersNamed = (q: WhoQuery) => Promise<number[] | null>;
