// Live updates: the user's open screens learn at once that an order or their wallet changed.
//
// publish() runs inside the unit of work that made the change and sends a PostgreSQL NOTIFY, which PostgreSQL
// delivers only when that transaction commits (never for a rolled-back change) to every API process listening on
// the channel; each process hands it to the event streams (routes.ts) of that user it holds. The event says what
// changed, not the new state: the page refetches through the ordinary endpoints, so there is one source of truth,
// and polling (intervals) stays the fallback when the stream is down.
import { createHash, randomBytes } from 'node:crypto';
import type { LiveEvent } from '#contract/live.ts';
import { schemaChannel, type Db } from '../../db/db.ts';
import type { Clock } from '../../lib/clock.ts';
import { unauthorized } from '../../lib/errors.ts';
import type { LiveRepository } from './repository.ts';

export const TICKET_TTL_S = 60;
type Listener = (e: LiveEvent) => void;

const hash = (ticket: string) => createHash('sha256').update(ticket).digest('hex');

export class LiveService {
  private channel: Promise<string> | null = null;
  private readonly subscribers = new Map<number, Set<Listener>>();
  private unlisten: (() => Promise<void>) | null = null;

  constructor(
    private readonly d: { db: Db; repo: LiveRepository; clock: Clock; log: { warn(o: object, m: string): void } },
  ) {}

  /** One channel per database schema: tests (and tenants) sharing one PostgreSQL server never hear each other. */
  private channelName(): Promise<string> {
    this.channel ??= this.d.repo.schema().then((s) => schemaChannel('powerly_live_', s));
    return this.channel;
  }

  /** Tells the user's open screens (in every API process) that something changed, once the unit of work commits. */
  async publish(userId: number, e: LiveEvent): Promise<void> {
    await this.d.repo.notify(await this.channelName(), JSON.stringify({ u: userId, e }));
  }

  /** Starts listening (on app ready). */
  async start(): Promise<void> {
    if (this.unlisten) return;
    this.unlisten = await this.d.db.listen(await this.channelName(), (payload) => this.dispatch(payload));
  }

  async stop(): Promise<void> {
    const u = this.unlisten;
    this.unlisten = null;
    await u?.();
  }

  private dispatch(payload: string | null) {
    if (payload === null) {
      // The listening connection was re-established: anything may have been missed.
      for (const set of this.subscribers.values()) for (const fn of set) fn({ kind: 'resync' });
      return;
    }
    try {
      const { u, e } = JSON.parse(payload) as { u: number; e: LiveEvent };
      for (const fn of this.subscribers.get(u) ?? []) fn(e);
    } catch (err) {
      this.d.log.warn({ err }, 'bad live notification');
    }
  }

  /** Streams of `userId` in this process; returns the unsubscribe. */
  subscribe(userId: number, fn: Listener): () => void {
    let set = this.subscribers.get(userId);
    if (!set) this.subscribers.set(userId, (set = new Set()));
    set.add(fn);
    return () => {
      set.delete(fn);
      if (!set.size && this.subscribers.get(userId) === set) this.subscribers.delete(userId);
    };
  }

  /** How many streams this process holds (operations, tests). */
  get streams(): number {
    let n = 0;
    for (const set of this.subscribers.values()) n += set.size;
    return n;
  }

  /** A one-use ticket for the event stream's URL (EventSource cannot send the session header). */
  async ticket(userId: number): Promise<{ ticket: string; expiresIn: number }> {
    const ticket = randomBytes(24).toString('base64url');
    const now = this.d.clock.now();
    await this.d.repo.deleteExpired(now);
    await this.d.repo.insertTicket(hash(ticket), userId, new Date(now.getTime() + TICKET_TTL_S * 1000));
    return { ticket, expiresIn: TICKET_TTL_S };
  }

  async redeem(ticket: string): Promise<number> {
    const user = await this.d.repo.takeTicket(hash(ticket), this.d.clock.now());
    if (user === undefined) throw unauthorized();
    return user;
  }
}
