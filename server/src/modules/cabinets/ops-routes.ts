// The ops API's cabinets: the list (filter, sort, cursor), one cabinet (ETag), registration, assignment
// (If-Match), broker credentials (shown once), remote commands (their own permission), the CSV import (dry run)
// and the live stream (server-sent events naming each cabinet that changed; the console reads it again).
import { createRequire } from 'node:module';
import type { FastifyPluginAsync } from 'fastify';
import type { SSEPluginOptions } from '@fastify/sse';
import { Type } from 'typebox';
import {
  CabinetAssignBody,
  CabinetCommandBody,
  CabinetCommandSent,
  CabinetCredentialsIssued,
  CabinetIdParams,
  CabinetImportBody,
  CabinetImportReport,
  CabinetListQuery,
  CabinetRegisterBody,
  OpsCabinet,
  OpsCabinetPage,
  ReasonBody,
  type CabinetLiveEvent,
} from '#contract/ops/cabinets.ts';
import { DevicePlaceBody } from '#contract/ops/mifi.ts';
import { expectedVersion, sendVersion } from '../../lib/ops-concurrency.ts';
import type { App } from '../../lib/route.ts';
import { actorOf } from '../../plugins/ops-api.ts';
import type { FleetLive } from './fleet-live.ts';
import type { CabinetOpsService } from './ops.ts';

const sse = createRequire(import.meta.url)('@fastify/sse') as FastifyPluginAsync<SSEPluginOptions>;
/** A comment line this often keeps proxies from closing an idle stream. */
const HEARTBEAT_MS = 20_000;

export function cabinetOpsRoutes(o: { cabinets: CabinetOpsService; live: FleetLive }) {
  return async (ops: App) => {
    await ops.register(sse, { heartbeatInterval: HEARTBEAT_MS });
    const open = new Set<() => void>();
    ops.addHook('preClose', async () => {
      for (const end of open) end();
    });

    ops.get(
      '/cabinets',
      {
        config: { permission: 'fleet.read' },
        schema: { querystring: CabinetListQuery, response: { 200: OpsCabinetPage } },
      },
      async (req) => o.cabinets.list(req.opsScope, req.query),
    );

    ops.get(
      '/cabinets/:id',
      { config: { permission: 'fleet.read' }, schema: { params: CabinetIdParams, response: { 200: OpsCabinet } } },
      async (req, reply) => {
        const c = await o.cabinets.get(req.opsScope, req.params.id);
        sendVersion(reply, c.version);
        return c;
      },
    );

    ops.post(
      '/cabinets',
      {
        config: { permission: 'fleet.write' },
        schema: {
          description: 'Registers a cabinet by its serial and vendor family.',
          body: CabinetRegisterBody,
          response: { 200: OpsCabinet },
        },
      },
      async (req, reply) => {
        const c = await o.cabinets.register(req.opsScope, actorOf(req, req.body.reason), req.body);
        sendVersion(reply, c.version);
        return c;
      },
    );

    ops.patch(
      '/cabinets/:id',
      {
        config: { permission: 'fleet.write' },
        schema: {
          description:
            'Assigns the cabinet to a venue (null: none). Needs If-Match with the ETag read; a save after another one answers 409.',
          params: CabinetIdParams,
          body: CabinetAssignBody,
          response: { 200: OpsCabinet },
        },
      },
      async (req, reply) => {
        const c = await o.cabinets.assign(
          req.opsScope,
          actorOf(req, req.body.reason),
          req.params.id,
          expectedVersion(req),
          req.body,
        );
        sendVersion(reply, c.version);
        return c;
      },
    );

    ops.post(
      '/cabinets/:id/credentials',
      {
        config: { permission: 'fleet.write' },
        schema: {
          description: 'Issues or rotates the broker password (shown once; the previous one is refused from now on).',
          params: CabinetIdParams,
          body: ReasonBody,
          response: { 200: CabinetCredentialsIssued },
        },
      },
      async (req, reply) => {
        void reply.header('Cache-Control', 'no-store');
        return o.cabinets.rotateCredentials(req.opsScope, actorOf(req, req.body.reason), req.params.id);
      },
    );

    ops.post(
      '/cabinets/:id/devices',
      {
        config: { permission: 'fleet.write' },
        schema: {
          description: 'Puts a power bank or a power station in a free slot (lendable from there).',
          params: CabinetIdParams,
          body: DevicePlaceBody,
          response: { 200: OpsCabinet },
        },
      },
      async (req) => o.cabinets.placeDevice(req.opsScope, actorOf(req, req.body.reason), req.params.id, req.body),
    );

    ops.post(
      '/cabinets/:id/commands',
      {
        config: { permission: 'cabinets.command' },
        schema: {
          description:
            'Sends a remote command: eject, lock or unlock a slot, report the inventory now, restart. 409 when the cabinet is offline or the slot busy; 422 when its family does not take the command.',
          params: CabinetIdParams,
          body: CabinetCommandBody,
          response: { 200: CabinetCommandSent },
        },
      },
      async (req) => o.cabinets.command(req.opsScope, actorOf(req, req.body.reason), req.params.id, req.body),
    );

    ops.post(
      '/cabinets/import',
      {
        config: { permission: 'fleet.write' },
        bodyLimit: 2_200_000,
        schema: {
          description:
            'Registers cabinets from CSV. A dry run, or any bad row, imports nothing; every bad row is reported.',
          body: CabinetImportBody,
          response: { 200: CabinetImportReport },
        },
      },
      async (req) => o.cabinets.importCsv(req.opsScope, actorOf(req, req.body.reason), req.body, req.locale),
    );

    ops.get(
      '/cabinets/events',
      {
        sse: 'only',
        config: { permission: 'fleet.read' },
        schema: {
          description:
            'Server-sent events: {kind:"cabinet", id} whenever a cabinet in scope changes (online, heartbeat, slots, commands); {kind:"resync"} first and after a gap.',
          querystring: Type.Object({ id: Type.Optional(CabinetIdParams.properties.id) }),
        },
      },
      async (req, reply) => {
        const scope = req.opsScope;
        const only = req.query.id;
        reply.header('cache-control', 'no-cache, no-transform');
        reply.header('x-accel-buffering', 'no');
        reply.sse.keepAlive();
        const send = (e: CabinetLiveEvent) => {
          if (reply.sse.isConnected) void reply.sse.send({ event: 'change', data: e }).catch(() => undefined);
        };
        const off = o.live.subscribe((id) => {
          if (id === null) return send({ kind: 'resync' });
          if (only && id !== only) return;
          // Only cabinets the caller may see are named.
          void o.cabinets.get(scope, id).then(
            () => send({ kind: 'cabinet', id }),
            () => undefined,
          );
        });
        const end = () => reply.sse.close();
        open.add(end);
        reply.sse.onClose(() => {
          off();
          open.delete(end);
        });
        await reply.sse.send({ event: 'change', data: { kind: 'resync' } satisfies CabinetLiveEvent, retry: 3000 });
      },
    );
  };
}
