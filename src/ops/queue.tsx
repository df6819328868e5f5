// The console's queues, written once (withdrawals, wallet credits and debits, disputes): a list filtered by state on
// the server, paged ("Show more"), a row opens its detail below the list; the detail's heading takes the focus, its
// actions post with a reason and show the server's answer (a status line, or the problem: someone else's decision
// first is the server's 409 message), and the list reads again after each.
import { Fragment, useEffect, useRef, useState, type ReactNode } from 'react';
import { useT } from '../i18n/index.ts';
import { OPS_API, opsCall, withQuery } from './api.ts';
import { ListFooter, usePaged } from './paged.tsx';
import { Problem } from './screens/Problem.tsx';

export interface QueueProps<T extends { id: string }> {
  path: string;
  states: readonly string[];
  initial: string;
  /** The screen's strings: `<prefix>.state` labels the filter, `<prefix>.states.<state>` its options ('all' too). */
  prefix: string;
  /** The column headings' string keys. */
  heads: string[];
  /** A row's cells; `open` shows its detail. */
  cells: (item: T, open: () => void) => ReactNode;
  /** The opened item's detail; `done` takes the item as the server answered after an action. */
  detail: (item: T, done: (after: T) => void) => ReactNode;
  /** An item made outside the queue (a new request): opened, and the list read again. */
  show?: T;
  /** A queue the server searches: the search field's label (`q`), a date range, and the CSV export of the search. */
  search?: { label: string; csv: string };
}

const NO_SEARCH = { q: '', from: '', to: '' };
const iso = (local: string) => (local ? new Date(local).toISOString() : undefined);

export function Queue<T extends { id: string }>(p: QueueProps<T>) {
  const t = useT();
  const [state, setState] = useState(p.initial);
  const [draft, setDraft] = useState(NO_SEARCH);
  const [search, setSearch] = useState(NO_SEARCH);
  const query = { state, q: search.q || undefined, from: iso(search.from), to: iso(search.to) };
  const list = usePaged<T>(p.path, query);
  const set = (k: keyof typeof NO_SEARCH) => (e: { currentTarget: { value: string } }) =>
    setDraft({ ...draft, [k]: e.currentTarget.value });
  const [open, setOpen] = useState<T>();
  const done = (after: T) => {
    setOpen(after);
    void list.load();
  };
  useEffect(() => {
    if (p.show) done(p.show);
    // eslint-disable-next-line react-hooks/exhaustive-deps -- only a newly shown item opens and reloads
  }, [p.show]);
  return (
    <>
      <form
        className="ops-filters"
        role={p.search ? 'search' : undefined}
        onSubmit={(e) => {
          e.preventDefault();
          setSearch({ ...draft, q: draft.q.trim() });
        }}
      >
        {p.search && (
          <>
            <label>
              {t(p.search.label)}
              <input type="search" maxLength={100} value={draft.q} onChange={set('q')} />
            </label>
            <label>
              {t('ops.audit.from')}
              <input type="datetime-local" value={draft.from} onChange={set('from')} />
            </label>
            <label>
              {t('ops.audit.to')}
              <input type="datetime-local" value={draft.to} onChange={set('to')} />
            </label>
          </>
        )}
        <label>
          {t(`${p.prefix}.state`)}
          <select value={state} onChange={(e) => setState(e.currentTarget.value)}>
            {[...p.states, 'all'].map((s) => (
              <option key={s} value={s}>
                {t(`${p.prefix}.states.${s}`)}
              </option>
            ))}
          </select>
        </label>
        {p.search && (
          <>
            <button type="submit">{t('ops.rentals.search')}</button>
            <a className="ops-button" href={withQuery(`${OPS_API}${p.search.csv}`, query)} download>
              {t('ops.audit.export')}
            </a>
          </>
        )}
      </form>
      <table className="ops-table">
        <thead>
          <tr>
            {p.heads.map((h) => (
              <th key={h} scope="col">
                {t(h)}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {list.rows.map((r) => (
            <tr key={r.id}>{p.cells(r, () => setOpen(r))}</tr>
          ))}
        </tbody>
      </table>
      <ListFooter count={list.rows.length} next={list.next} error={list.error} load={list.load} />
      {open && <Fragment key={open.id}>{p.detail(open, done)}</Fragment>}
    </>
  );
}

/** A detail's actions: `act` posts to `path` and, answered, shows `note` and hands the answer to `onDone`. */
export function useQueueAction<T>(onDone: (after: T) => void) {
  const [note, setNote] = useState('');
  const [error, setError] = useState<unknown>();
  const act = async (path: string, body: Record<string, string | undefined>, doneNote: string) => {
    setError(undefined);
    try {
      const after = await opsCall<T>('POST', path, body);
      setNote(doneNote);
      onDone(after);
    } catch (e) {
      setError(e);
    }
  };
  return { note, error, act };
}

/** An opened item: a region named by its heading, which takes the focus; below its content, the last answer. */
export function QueueDetail({
  id,
  title,
  note,
  error,
  children,
}: {
  id: string;
  title: string;
  note: string;
  error: unknown;
  children: ReactNode;
}) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []);
  return (
    <section aria-labelledby={id}>
      <h2 id={id} ref={heading} tabIndex={-1}>
        {title}
      </h2>
      {children}
      {note && <p role="status">{note}</p>}
      <Problem error={error} />
    </section>
  );
}
