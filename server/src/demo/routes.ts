// The demo control API (/demo-api/), registered only when the cabinet simulator runs in this process: lets the
// demo page see the simulated cabinets, return a power bank (or a Wi-Fi box) at any cabinet, make the next eject
// fail, and act as a Wi-Fi box: push traffic onto it (box-telemetry through a cabinet's gateway) or read the pickup
// QR code the app shows (the box binds that package).
import { Type } from 'typebox';
import { Envelope } from '#contract/envelope.ts';
import { ok } from '../lib/envelope.ts';
import { conflict, notFound } from '../lib/errors.ts';
import type { App } from '../lib/route.ts';
import type { SimulatorFleet } from './simulator/fleet.ts';
import type { CabinetsRepository } from '../modules/cabinets/repository.ts';
import type { MifiService } from '../modules/mifi/service.ts';

const CabinetParams = Type.Object({ cabinetId: Type.String({ minLength: 1, maxLength: 64 }) });
const BoxParams = Type.Object({ sn: Type.String({ minLength: 1, maxLength: 64 }) });
const MB = 1_048_576;

export default async function demoRoutes(
  app: App,
  opts: { fleet: SimulatorFleet; cabinets: CabinetsRepository; mifi: MifiService },
) {
  app.get(
    '/cabinets',
    {
      schema: {
        tags: ['demo'],
        summary: 'Simulated cabinets (slots as the cabinet sees them) and the power banks out on rent',
        response: {
          200: Envelope(
            Type.Object({
              cabinets: Type.Array(
                Type.Object({
                  cabinetId: Type.String(),
                  venueName: Type.String(),
                  currency: Type.String(),
                  online: Type.Boolean(),
                  slots: Type.Array(
                    Type.Object({
                      slot: Type.Integer(),
                      powerbankId: Type.Union([Type.String(), Type.Null()]),
                      kind: Type.Optional(Type.String()),
                    }),
                  ),
                }),
              ),
              outOnRent: Type.Array(
                Type.Object({ powerbankId: Type.String(), orderId: Type.String(), fromCabinetId: Type.String() }),
              ),
              boxesOut: Type.Array(Type.Object({ sn: Type.String(), packageId: Type.String() })),
            }),
          ),
        },
      },
    },
    async () => {
      const rows = await opts.cabinets.all();
      const rented = await opts.cabinets.rentedPowerbanks();
      return ok({
        cabinets: rows
          .filter((r) => opts.fleet.demoCabinet(r.id))
          .map((r) => {
            const sim = opts.fleet.demoCabinet(r.id)!;
            return {
              cabinetId: r.id,
              venueName: r.venue_name,
              currency: r.currency,
              online: r.online && sim.online,
              slots: sim
                .inventory()
                .map((s) => ({ slot: s.slot, powerbankId: s.powerbankId, ...(s.kind ? { kind: s.kind } : {}) })),
            };
          }),
        outOnRent: rented.map((p) => ({
          powerbankId: p.id,
          orderId: p.order_id ?? '',
          fromCabinetId: p.from_cabinet_id,
        })),
        boxesOut: (await opts.cabinets.rentedBoxes()).map((b) => ({ sn: b.id, packageId: b.order_id ?? '' })),
      });
    },
  );

  app.post(
    '/cabinets/:cabinetId/return',
    {
      schema: {
        tags: ['demo'],
        summary: 'Push a power bank into a free slot of this cabinet (the cabinet then reports `returned`)',
        params: CabinetParams,
        body: Type.Object({ powerbankId: Type.String({ minLength: 1, maxLength: 64 }) }),
        response: {
          200: Envelope(Type.Object({ cabinetId: Type.String(), slot: Type.Integer(), powerbankId: Type.String() })),
        },
      },
    },
    async (req) => {
      const sim = opts.fleet.demoCabinet(req.params.cabinetId);
      if (!sim) throw notFound('error.cabinetNotFound');
      const { powerbankId } = req.body;
      if (!(await opts.cabinets.powerbankExists(powerbankId))) throw notFound('error.demo.unknownPowerbank');
      if (opts.fleet.held(powerbankId)) throw conflict('error.demo.alreadyInCabinet');
      if (!sim.inventory().some((s) => s.powerbankId === null)) throw conflict('error.demo.noFreeSlot');
      const { slot } = await sim.insert(powerbankId);
      return ok({ cabinetId: sim.id, slot, powerbankId });
    },
  );

  app.post(
    '/cabinets/:cabinetId/fail-next-eject',
    {
      schema: {
        tags: ['demo'],
        summary: "Make this cabinet's next eject fail (it reports pop-failed, reason jammed)",
        params: CabinetParams,
        response: { 200: Envelope(Type.Object({ cabinetId: Type.String(), failNextEject: Type.Boolean() })) },
      },
    },
    async (req) => {
      const sim = opts.fleet.demoCabinet(req.params.cabinetId);
      if (!sim) throw notFound('error.cabinetNotFound');
      sim.failNextEject();
      return ok({ cabinetId: sim.id, failNextEject: true });
    },
  );

  app.post(
    '/boxes/:sn/traffic',
    {
      schema: {
        tags: ['demo'],
        summary:
          'The box uses data: it reports its traffic counter raised by `megabytes` (box-telemetry through a cabinet gateway)',
        params: BoxParams,
        body: Type.Object({
          megabytes: Type.Number({ exclusiveMinimum: 0, maximum: 100_000 }),
          battery: Type.Optional(Type.Integer({ minimum: 0, maximum: 100 })),
          signal: Type.Optional(Type.Integer({ minimum: 0, maximum: 5 })),
        }),
        response: { 200: Envelope(Type.Object({ sn: Type.String(), bytesTotal: Type.Integer() })) },
      },
    },
    async (req) => {
      const { sn } = req.params;
      if (!(await opts.cabinets.powerbankExists(sn))) throw notFound('error.demo.unknownPowerbank');
      const gateway = opts.fleet.list().find((c) => c.online);
      if (!gateway) throw conflict('error.cabinetOffline');
      const before = await opts.mifi.lastBytes(sn);
      // A box's first report sets its counter's base; the traffic is the rise after it (the server counts rises).
      if (before === 0)
        await gateway.boxTelemetry({ sn, bytesTotal: 0, battery: req.body.battery, signal: req.body.signal });
      const bytesTotal = before + Math.round(req.body.megabytes * MB);
      await gateway.boxTelemetry({ sn, bytesTotal, battery: req.body.battery, signal: req.body.signal });
      return ok({ sn, bytesTotal });
    },
  );

  app.post(
    '/boxes/:sn/read-qr',
    {
      schema: {
        tags: ['demo'],
        summary: "The box reads the pickup QR code the app shows (the package's order id) and binds that package",
        params: BoxParams,
        body: Type.Object({ code: Type.String({ minLength: 1, maxLength: 64 }) }),
        response: { 200: Envelope(Type.Object({ sn: Type.String(), packageId: Type.String() })) },
      },
    },
    async (req) => {
      const holder = opts.fleet.holder(req.params.sn);
      // A box in a cabinet is taken out by hand first: the cabinet reports it gone with its next heartbeat.
      if (holder) await holder.takeOut(req.params.sn);
      // The box tells what it read through a cabinet gateway (the protocol's box-code-read), as a real box does.
      const gateway = holder?.online ? holder : opts.fleet.list().find((c) => c.online);
      if (!gateway) throw conflict('error.cabinetOffline');
      await gateway.boxCodeRead(req.params.sn, req.body.code.trim());
      return ok({ sn: req.params.sn, packageId: req.body.code.trim() });
    },
  );
}
