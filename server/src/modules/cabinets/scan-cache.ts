// The scan's cache: what one session read about one cabinet (ScanView), kept in this process until the database
// announces a change that can alter it. A rental flow scans the same cabinet from several screens (the scan, the
// package choice, back from a top-up), and a queue at a café scans the same cabinet again and again; each answer
// from here costs no round trip to the database.
//
// Exact, not time-based: triggers announce every change that matters, made by any process or by hand (the
// migration 20261127120000_scan_cache_notify.sql lists them: sessions, the user's wallet accounts and open
// rentals, the cabinet and its devices, venues and price plans; agents since 20270126120000), on a channel each API process listens to. A
// NOTIFY is delivered when its transaction commits: an answer may lag a commit by that delivery (well under a
// millisecond on one host); every rent decides on the database, under its locks, never on a scan. What is
// read while a change is announced is not kept (the generation check); when the listening connection is lost
// every entry is dropped, and nothing is kept or answered until it is back. Until the listener is up nothing is kept. Two rules need no announcement:
//   - a session's expiry: checked against the clock on every hit;
//   - the missed-heartbeat rule (liveness.ts): a heartbeat only moves last_seen_at, which announces nothing, so
//     an entry whose cabinet says online but whose last_seen_at is too old by now is read again.
import { schemaChannel, type Db } from '../../db/db.ts';
import type { ScanView } from './repository.ts';

/** At most this many entries (least recently used dropped first): about 2 kB each. */
export const SCAN_CACHE_ENTRIES = 10_000;
/** An entry is read again after this long even without an announcement (a bound, not the rule). */
export const SCAN_CACHE_MAX_AGE_MS = 60_000;

export interface ScanRead {
  userId: number;
  sessionExpiresAt: Date;
  view: ScanView;
}

interface Entry {
  read: ScanRead;
  tags: string[];
  at: number;
}

export class ScanCache {
  private readonly entries = new Map<string, Entry>();
  private readonly byTag = new Map<string, Set<string>>();
  private generation = 0;
  private listening = false;
  private unlisten: (() => Promise<void>) | null = null;
  /** Answers served from here, and read from the database (operations, tests). */
  hits = 0;
  misses = 0;

  constructor(
    private readonly db: Db,
    /** The database schema (its channel is named after it). */
    private readonly schema: () => Promise<string>,
    private readonly now: () => number,
    private readonly maxEntries = SCAN_CACHE_ENTRIES,
  ) {}

  static key(tokenHash: string, cabinetId: string, kind: string): string {
    return `${tokenHash}\n${cabinetId}\n${kind}`;
  }

  /** Listens for the announcements (on app ready); nothing is kept before. */
  async start(): Promise<void> {
    if (this.unlisten) return;
    this.unlisten = await this.db.listen(schemaChannel('powerly_scan_', await this.schema()), (payload) =>
      this.changed(payload),
    );
    this.listening = true;
  }

  async stop(): Promise<void> {
    this.listening = false;
    this.drop();
    const u = this.unlisten;
    this.unlisten = null;
    await u?.();
  }

  /**
   * The cached read for `key`, if still valid at `at`; `live` is the liveness rule: an entry whose cabinet is
   * online by its flag but no longer by the rule (no heartbeat heard in time by this entry) is read again.
   */
  get(key: string, at: Date, live: (c: ScanView['cabinet']) => boolean): ScanRead | undefined {
    const e = this.entries.get(key);
    if (!e) return this.miss();
    // Deaf (the listening connection is down): changes would go unheard, so nothing is answered from here.
    if (!this.db.hearing()) return this.miss();
    const { read } = e;
    if (
      read.sessionExpiresAt <= at ||
      this.now() - e.at > SCAN_CACHE_MAX_AGE_MS ||
      (read.view.cabinet.online && !live(read.view.cabinet))
    ) {
      this.remove(key);
      return this.miss();
    }
    // Least recently used first out: a hit moves the entry to the end.
    this.entries.delete(key);
    this.entries.set(key, e);
    this.hits++;
    return read;
  }

  /** The generation to pass to `set` for a read starting now. */
  get mark(): number {
    return this.generation;
  }

  /** Keeps a read made since `mark`, unless a change was announced in between (it may predate the change). */
  set(key: string, read: ScanRead, tokenHash: string, mark: number): void {
    if (!this.listening || mark !== this.generation || !this.db.hearing()) return;
    this.remove(key);
    const tags = [`s:${tokenHash}`, `u:${read.userId}`, `c:${read.view.cabinet.id}`];
    this.entries.set(key, { read, tags, at: this.now() });
    for (const t of tags) {
      let set = this.byTag.get(t);
      if (!set) this.byTag.set(t, (set = new Set()));
      set.add(key);
    }
    while (this.entries.size > this.maxEntries) this.remove(this.entries.keys().next().value!);
  }

  get size(): number {
    return this.entries.size;
  }

  private miss(): undefined {
    this.misses++;
    return undefined;
  }

  /** An announcement: the entries it names go; `*` or a lost connection (null) drops them all. */
  private changed(payload: string | null) {
    this.generation++;
    if (payload === null || payload === '*') return this.drop();
    for (const key of this.byTag.get(payload) ?? []) this.remove(key);
  }

  private drop() {
    this.entries.clear();
    this.byTag.clear();
  }

  private remove(key: string) {
    const e = this.entries.get(key);
    if (!e) return;
    this.entries.delete(key);
    for (const t of e.tags) {
      const set = this.byTag.get(t);
      set?.delete(key);
      if (set && !set.size) this.byTag.delete(t);
    }
  }
}
