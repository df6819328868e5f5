// Agents (the operators a venue belongs to, and the embed's hosts): create and update, validated against the
// contract (src/contract/ops-fleet.ts); origins are exact origins (isOrigin), an update names the version it read.
import { AgentCreate, AgentUpdate, type Agent } from '#contract/ops-fleet.ts';
import type { Clock } from '../../lib/clock.ts';
import { conflict, notFound } from '../../lib/errors.ts';
import { schemaProblems, type Problems } from '../../lib/validate.ts';
import type { AgentAdminRow, AgentsRepository } from './repository.ts';
import { isOrigin } from './service.ts';

const toAgent = (r: AgentAdminRow): Agent => ({
  id: r.id,
  name: r.name,
  country: r.country?.trim() ?? null,
  currencies: r.currencies.map((c) => c.trim()),
  origins: r.origins,
  depositByPayment: r.deposit_by_payment === true,
  version: r.version,
});

function checkLists(p: Problems, a: { origins?: string[]; currencies?: string[] }) {
  a.origins?.forEach((o, i) => {
    if (!isOrigin(o)) p.add(`origins.${i}`, 'origin');
  });
  a.origins?.forEach((o, i) => {
    if (a.origins!.indexOf(o) !== i) p.add(`origins.${i}`, 'duplicate');
  });
  a.currencies?.forEach((c, i) => {
    if (a.currencies!.indexOf(c) !== i) p.add(`currencies.${i}`, 'duplicate');
  });
}

export class AgentsService {
  constructor(private readonly d: { repo: AgentsRepository; clock: Clock }) {}

  async get(id: string): Promise<Agent> {
    const r = await this.d.repo.get(id);
    if (!r) throw notFound('error.fleet.notFound', { id });
    return toAgent(r);
  }

  async exists(id: string): Promise<boolean> {
    return (await this.d.repo.get(id)) !== undefined;
  }

  /** The currencies an agent sells in; undefined when there is no such agent. */
  async currencies(id: string): Promise<string[] | undefined> {
    return (await this.d.repo.get(id))?.currencies.map((c) => c.trim());
  }

  async list(): Promise<Agent[]> {
    return (await this.d.repo.list()).map(toAgent);
  }

  async create(input: unknown): Promise<Agent> {
    const p = schemaProblems(AgentCreate, input);
    p.throwIfAny();
    const a = input as AgentCreate;
    checkLists(p, a);
    p.throwIfAny();
    const row = {
      id: a.id,
      name: a.name,
      country: a.country ?? null,
      currencies: a.currencies,
      origins: a.origins,
      deposit_by_payment: a.depositByPayment ?? false,
    };
    if (!(await this.d.repo.insert(row, this.d.clock.now()))) p.add('id', 'duplicate').throwIfAny();
    return toAgent({ ...row, version: 1 });
  }

  /** Changes the named fields; refused with 409 when the agent changed since `version` was read. */
  async update(id: string, input: unknown): Promise<Agent> {
    const p = schemaProblems(AgentUpdate, input);
    p.throwIfAny();
    const u = input as AgentUpdate;
    checkLists(p, u);
    p.throwIfAny();
    const cur = await this.get(id);
    const next = {
      id,
      name: u.name ?? cur.name,
      country: u.country ?? cur.country,
      currencies: u.currencies ?? cur.currencies,
      origins: u.origins ?? cur.origins,
      deposit_by_payment: u.depositByPayment ?? cur.depositByPayment,
    };
    const saved = await this.d.repo.update(next, u.version, this.d.clock.now());
    if (!saved) throw conflict('error.fleet.stale');
    return toAgent(saved);
  }
}
