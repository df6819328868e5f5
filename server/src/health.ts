// GET /healthz: for load balancers and monitoring. 200 while this process can serve (its database answers and its
// cabinet link is connected), 503 otherwise; with what an operator must look at: dead jobs (npm run jobs:dead) and
// dead cabinet events (npm run cabinet:inbox). Not rate-limited (not an API call); it reads two counts.
import { Type } from 'typebox';
import type { JobRunner } from './jobs/runner.ts';
import type { App } from './lib/route.ts';
import type { CabinetLink } from './modules/cabinets/link.ts';
import type { CabinetsRepository } from './modules/cabinets/repository.ts';

const Health = Type.Object({
  status: Type.Union([Type.Literal('ok'), Type.Literal('attention'), Type.Literal('down')], {
    description:
      'ok; attention: serving, but dead jobs or dead cabinet events wait for an operator; down: cannot serve',
  }),
  database: Type.Union([Type.Literal('up'), Type.Literal('down')]),
  broker: Type.Union([Type.Literal('up'), Type.Literal('down')]),
  deadJobs: Type.Union([Type.Integer(), Type.Null()]),
  deadCabinetEvents: Type.Union([Type.Integer(), Type.Null()]),
});

export default async function healthRoutes(
  app: App,
  opts: { jobs: JobRunner; cabinets: CabinetsRepository; link: CabinetLink },
) {
  app.get(
    '/healthz',
    {
      schema: {
        tags: ['operations'],
        summary: 'Health for load balancers and monitoring (503 when this process cannot serve)',
        errors: [],
        response: { 200: Health, 503: Health },
      },
    },
    async (_req, reply) => {
      const broker = opts.link.isUp() ? ('up' as const) : ('down' as const);
      const counts = await Promise.all([opts.jobs.deadCount(), opts.cabinets.deadCount()]).catch(() => null);
      const database = counts ? ('up' as const) : ('down' as const);
      const [deadJobs, deadCabinetEvents] = counts ?? [null, null];
      const status =
        database === 'down' || broker === 'down'
          ? ('down' as const)
          : deadJobs || deadCabinetEvents
            ? ('attention' as const)
            : ('ok' as const);
      void reply.header('cache-control', 'no-store').status(status === 'down' ? 503 : 200);
      return { status, database, broker, deadJobs, deadCabinetEvents };
    },
  );
}
