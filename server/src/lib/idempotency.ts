// One idempotency mechanism for every money-moving call (rentals, top-up, withdrawal, saved cards):
// the first request with an `Idempotency-Key` runs; a replay gets the stored response, which is also the first
// answer (a response read again after the business commit could differ from its replays); a duplicate while the
// first still runs gets 409; the same key with other parameters 422. Unexpected (5xx) failures release the key
// so that the client may retry; business refusals are stored like successes (a replay is refused the same way).
// Keys live in the idempotency_keys table (server/src/idempotency/repository.ts), so replays work across restarts
// and across API processes.
import { AsyncLocalStorage } from 'node:async_hooks';
import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { currentUser } from '../plugins/context.ts';
import type { Clock } from './clock.ts';
import { AppError, appErrorBody } from './errors.ts';

/** A key left 'started' by a process that died mid-request is taken over after this long (same request only). */
export const STALE_KEY_MS = 120_000;

export const IdemHeaders = Type.Object({
  'idempotency-key': Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
});
/** For calls where the key is mandatory (new money-moving calls; the flows always send one). */
export const IdemHeadersRequired = Type.Object({ 'idempotency-key': Type.String({ minLength: 1, maxLength: 200 }) });

export interface ExistingKey {
  request_hash: string;
  state: string;
  response_code: number | null;
  response_body: unknown;
}

export interface KeyStore {
  claimKey(
    userId: number,
    key: string,
    hash: string,
    at: Date,
  ): Promise<{ claimed: true } | { claimed: false; existing: ExistingKey | undefined }>;
  /**
   * Stores the response of a key still 'started' (a key already completed, e.g. in the business transaction, stays).
   * Whether it completed the key now.
   */
  completeKey(userId: number, key: string, code: number, body: unknown): Promise<boolean>;
  releaseKey(userId: number, key: string): Promise<void>;
  /** Runs `fn` once the caller's unit of work commits (at once outside one): Db.afterCommit. */
  afterCommit(fn: () => void): void;
}

/** The key of the request being served, for the business transaction to complete (commitIdempotencyKey). */
const scope = new AsyncLocalStorage<(result: unknown) => Promise<void>>();

/**
 * Called by a service INSIDE its business transaction with its result: the idempotency key is completed in that
 * same transaction (the response body made by the route's `committed` mapper), so a crash right after the commit
 * cannot leave the key open for a second run of a request whose money already moved. No-op without a key.
 */
export async function commitIdempotencyKey(result: unknown) {
  await scope.getStore()?.(result);
}

export async function idempotent<T extends object, R = never>(
  store: KeyStore,
  clock: Clock,
  req: FastifyRequest,
  reply: FastifyReply,
  params: unknown,
  run: () => Promise<T>,
  opts: { committed?: (result: R) => T } = {},
): Promise<T> {
  const key = (req.headers as Record<string, string | undefined>)['idempotency-key'];
  if (!key) return run();
  const user = currentUser(req);
  const hash = createHash('sha256')
    .update(JSON.stringify([req.routeOptions.url, params]))
    .digest('hex');
  const claim = await store.claimKey(user.id, key, hash, clock.now());
  if (!claim.claimed) {
    const ex = claim.existing;
    if (!ex || ex.request_hash !== hash) throw new AppError(422, 'error.idempotency.mismatch');
    if (ex.state !== 'done') throw new AppError(409, 'error.idempotency.inProgress');
    const body =
      typeof ex.response_body === 'string' ? (JSON.parse(ex.response_body) as object) : (ex.response_body as object);
    void reply.header('idempotent-replayed', 'true');
    return reply.status(ex.response_code ?? 200).send(body) as unknown as T;
  }
  // The response stored by the business transaction, once it committed: the last one that completed the key (an
  // attempt rolled back leaves the key 'started', and this unset, so a later attempt completes it again).
  let stored: T | undefined;
  try {
    const committed = opts.committed;
    const body = committed
      ? await scope.run(async (result) => {
          const b = committed(result as R);
          if (await store.completeKey(user.id, key, 200, b)) store.afterCommit(() => (stored = b));
        }, run)
      : await run();
    // The business transaction completed the key and committed: that is the answer, and nothing is left to write.
    if (stored !== undefined) return stored;
    // Completes a key the business transaction did not (only a 'started' key changes: never a committed one).
    if (await store.completeKey(user.id, key, 200, body)) return body;
    // The first answer is the stored one, which every replay gets: what the route read after the commit (a balance
    // another request has changed since) would answer this request differently from its own replays.
    return stored ?? body;
  } catch (err) {
    if (err instanceof AppError && err.code !== 409) {
      // A refusal after the business transaction committed (the key is done already): the request did what it
      // stored, so it answers that, as its replays will, never a refusal of something that happened.
      if (!(await store.completeKey(user.id, key, err.code, appErrorBody(err, req.locale))) && stored !== undefined)
        return stored;
    } else {
      await store.releaseKey(user.id, key);
    }
    throw err;
  }
}
