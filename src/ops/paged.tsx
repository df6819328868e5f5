// The console's lists and forms, written once: a server-paged list (the first page on every change of its query,
// "Show more" for the next by cursor) with its footer, and a form's state with its submit and error.
import { useCallback, useEffect, useState } from 'react';
import { useT } from '../i18n/index.ts';
import type { PageOf } from '../contract/ops/common.ts';
import { opsCall, withQuery } from './api.ts';
import { Problem } from './screens/Problem.tsx';

export function usePaged<T>(path: string, query: Record<string, string | number | undefined>, limit = 50) {
  const [rows, setRows] = useState<T[]>([]);
  const [next, setNext] = useState<string>();
  const [error, setError] = useState<unknown>();
  const [loaded, setLoaded] = useState(false);
  // The query by value: a new object with the same filter does not reload.
  const key = JSON.stringify(query);
  const load = useCallback(
    async (cursor?: string) => {
      try {
        const page = await opsCall<PageOf<T>>(
          'GET',
          withQuery(path, { ...(JSON.parse(key) as Record<string, string>), cursor, limit }),
        );
        setRows((r) => (cursor ? [...r, ...page.items] : page.items));
        setNext(page.next);
        setError(undefined);
        setLoaded(true);
      } catch (e) {
        setError(e);
      }
    },
    [path, key, limit],
  );
  useEffect(() => void load(), [load]);
  return { rows, setRows, next, error, load, loaded, more: () => (next ? load(next) : Promise.resolve()) };
}

/** Under a list: "Nothing here yet", "Show more" while there is a next page, and the list's error. */
export function ListFooter({
  count,
  next,
  error,
  load,
}: {
  count: number;
  next?: string;
  error: unknown;
  load: (cursor?: string) => Promise<void>;
}) {
  const t = useT();
  return (
    <>
      {!count && <p>{t('ops.list.empty')}</p>}
      {next && (
        <button type="button" onClick={() => void load(next)}>
          {t('ops.list.more')}
        </button>
      )}
      <Problem error={error} />
    </>
  );
}

/** A form's fields, a setter per field, and a submit that runs `send` and keeps its error. */
export function useOpsForm<F extends Record<string, string | boolean>>(
  empty: F,
  send: (form: F) => Promise<unknown>,
  keep = false,
) {
  const [form, setForm] = useState(empty);
  const [error, setError] = useState<unknown>();
  const set = (k: keyof F) => (e: { currentTarget: { value: string } }) =>
    setForm({ ...form, [k]: e.currentTarget.value });
  const submit = async (e: React.FormEvent) => {
    e.preventDefault();
    setError(undefined);
    try {
      await send(form);
      if (!keep) setForm(empty);
    } catch (err) {
      setError(err);
    }
  };
  return { form, setForm, set, error, submit: (e: React.FormEvent) => void submit(e) };
}
