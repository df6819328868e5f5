// A list of the ops API read by cursor: the first page for the query, then "Show more" appends the next one.
import { useCallback, useEffect, useState } from 'react';
import type { PageOf } from '../contract/ops/common.ts';
import { opsCall, withQuery } from './api.ts';

type Query = Record<string, string | number | undefined>;

export function useCursorList<T>(path: string, query: Query, limit = 50) {
  // The query by value: a new object with the same filter does not reload.
  const key = JSON.stringify(query);
  const [rows, setRows] = useState<T[]>([]);
  const [next, setNext] = useState<string>();
  const [error, setError] = useState<unknown>();
  const [loaded, setLoaded] = useState(false);
  const load = useCallback(async (cursor?: string) => {
    try {
      const page = await opsCall<PageOf<T>>('GET', withQuery(path, { ...(JSON.parse(key) as Query), cursor, limit }));
      setRows((r) => (cursor ? [...r, ...page.items] : page.items));
      setNext(page.next);
      setError(undefined);
      setLoaded(true);
    } catch (e) {
      setError(e);
    }
  }, [path, key, limit]);
  useEffect(() => void load(), [load]);
  return { rows, next, error, loaded, more: () => (next ? load(next) : Promise.resolve()) };
}
