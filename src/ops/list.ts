// A list screen's rows from the ops API: the first page for the current filter (again whenever it changes), the
// next pages by cursor ("Show more"), and the error of the last call.
import { useCallback, useEffect, useState } from 'react';
import type { PageOf } from '../contract/ops/common.ts';
import { opsCall, withQuery } from './api.ts';

export function usePagedList<T>(path: string, query: Record<string, string | number | undefined>) {
  const [rows, setRows] = useState<T[]>([]);
  const [next, setNext] = useState<string>();
  const [error, setError] = useState<unknown>();
  const key = JSON.stringify(query);
  const load = useCallback(async (cursor?: string) => {
    try {
      const page = await opsCall<PageOf<T>>('GET', withQuery(path, { ...(JSON.parse(key) as Record<string, string>), cursor, limit: 50 }));
      setRows((r) => (cursor ? [...r, ...page.items] : page.items));
      setNext(page.next);
      setError(undefined);
    } catch (e) {
      setError(e);
    }
  }, [path, key]);
  useEffect(() => void load(), [load]);
  return { rows, next, error, load };
}
