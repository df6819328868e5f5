// The operator's view of dead jobs (a compensation, capture or payout that exhausted its attempts): list them,
// and make one due again with a fresh attempt budget once its cause is fixed, or give up on it. `npm run jobs:dead`
// and the back office (ops-routes.ts, with who may, and the audit entry) call these.
import type { Clock } from '../lib/clock.ts';
import type { DeadJob, JobsRepository } from './repository.ts';

export class DeadJobsService {
  constructor(private readonly d: { repo: JobsRepository; clock: Clock }) {}

  /** Dead jobs, newest first, with their last error. */
  list(limit = 100): Promise<DeadJob[]> {
    return this.d.repo.dead(Math.max(1, Math.min(limit, 1000)));
  }

  /** A dead job locked for an action (inside a unit of work); undefined when it is not dead. */
  lock(id: number): Promise<DeadJob | undefined> {
    return Number.isSafeInteger(id) && id > 0 ? this.d.repo.lockDead(id) : Promise.resolve(undefined);
  }

  /** Done without running again (its cause was handled another way); false when the job is not dead. */
  abandon(id: number, by: string): Promise<boolean> {
    return Number.isSafeInteger(id) && id > 0
      ? this.d.repo.abandon(id, by, this.d.clock.now())
      : Promise.resolve(false);
  }

  /** Due again now; false when the job is not dead. */
  retry(id: number): Promise<boolean> {
    return Number.isSafeInteger(id) && id > 0 ? this.d.repo.revive(id, this.d.clock.now()) : Promise.resolve(false);
  }
}
