// The fleet's service operations, put together over one database: what the ops API, the demo seed, the test
// fixtures and the operator scripts call to set up a network (docs/operations.md "From an empty database to the
// first rental"). Each service lives in the module that owns its tables.
import type { Db } from './db/db.ts';
import { DeadJobsService } from './jobs/dead.ts';
import { JobsRepository } from './jobs/repository.ts';
import type { Clock } from './lib/clock.ts';
import { CabinetCredentialsRepository } from './modules/cabinets/credentials-repository.ts';
import { CabinetFleetRepository } from './modules/cabinets/fleet-repository.ts';
import { CabinetFleetService } from './modules/cabinets/fleet.ts';
import { Liveness } from './modules/cabinets/liveness.ts';
import { CabinetsRepository } from './modules/cabinets/repository.ts';
import { CabinetTokenSecrets, type SecretsKey } from './modules/cabinets/token-secrets.ts';
import { AgentsService } from './modules/embed/agents.ts';
import { AgentsRepository } from './modules/embed/repository.ts';
import { MifiCatalogueAdmin } from './modules/mifi/catalogue-admin.ts';
import { MifiCatalogueRepository } from './modules/mifi/catalogue-repository.ts';
import { VenuesAdminRepository } from './modules/venues/admin-repository.ts';
import { VenuesAdminService } from './modules/venues/admin.ts';
import { PricePlansService } from './modules/venues/plans.ts';

export interface Fleet {
  agents: AgentsService;
  venues: VenuesAdminService;
  plans: PricePlansService;
  cabinets: CabinetFleetService;
  mifi: MifiCatalogueAdmin;
  deadJobs: DeadJobsService;
}

/** `secretsKey`: the key the TCP family's token secrets are sealed with (token-secrets.ts); none: they cannot be issued. */
export function fleetServices(d: { db: Db; clock: Clock; liveness?: Liveness; secretsKey?: SecretsKey }): Fleet {
  const { db, clock } = d;
  const agents = new AgentsService({ repo: new AgentsRepository(db), clock });
  const venuesRepo = new VenuesAdminRepository(db);
  const venues = new VenuesAdminService({ repo: venuesRepo, clock, agentExists: (id) => agents.exists(id) });
  const plans = new PricePlansService({ repo: venuesRepo, clock, agentCurrencies: (id) => agents.currencies(id) });
  const credentials = new CabinetCredentialsRepository(db);
  const cabinets = new CabinetFleetService({
    db,
    clock,
    repo: new CabinetFleetRepository(db),
    cabinets: new CabinetsRepository(db),
    credentials,
    tokenSecrets: new CabinetTokenSecrets(credentials, d.secretsKey ?? (() => Promise.resolve(undefined))),
    liveness: d.liveness ?? new Liveness(clock),
    venueExists: (id) => venues.exists(id),
  });
  const mifi = new MifiCatalogueAdmin({
    db,
    repo: new MifiCatalogueRepository(db),
    registerDevice: (x) => cabinets.registerDevice(x),
  });
  const deadJobs = new DeadJobsService({ repo: new JobsRepository(db), clock });
  return { agents, venues, plans, cabinets, mifi, deadJobs };
}
