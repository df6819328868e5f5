// Optimistic concurrency of the ops API: a row with a `version` column is read with an ETag ("v<version>") and
// saved with If-Match. A save whose version is no longer the row's (someone saved in between) is a 409 that says
// so; a save without If-Match is a 428. The repository's update is `… where id = $1 and version = $2`.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError, conflict } from './errors.ts';

export const etagOf = (version: number) => `"v${version}"`;

/** Sets the ETag of the row sent. */
export function sendVersion(reply: FastifyReply, version: number) {
  void reply.header('ETag', etagOf(version));
}

/** The version the client read (If-Match); 428 when it sent none, 409 when it is not one of ours. */
export function expectedVersion(req: FastifyRequest): number {
  const raw = req.headers['if-match'];
  if (!raw) throw new AppError(428, 'ops.error.ifMatch');
  const m = /^(?:W\/)?"v(\d{1,9})"$/.exec(raw.trim());
  if (!m) throw conflict('ops.error.stale');
  return Number(m[1]);
}

/** The one answer to a save that lost the race: 409, "changed by someone else since you opened it". */
export const staleVersion = () => conflict('ops.error.stale');
