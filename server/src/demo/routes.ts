// The demo control API (/demo-api/), registered only when the cabinet simulator runs in this process: lets the
// demo page see the simulated cabinets, return a power bank at any cabinet, and make the next eject fail.
import { Type } from 'typebox';
import { Envelope } from '#contract/envelope.ts';
import { ok } from '../lib/envelope.ts';
import { conflict, notFound } from '../lib/errors.ts';
import type { App } from '../lib/route.ts';
import type { SimulatorFleet } from './simulator/fleet.ts';
import type { CabinetsRepository } from '../modules/cabinets/repository.ts';

const CabinetParams = Type.Object({ cabinetId: Type.String({ minLength: 1, maxLength: 64 }) });

export default async function demoRoutes(app: App, opts: { fleet: SimulatorFleet; cabinets: CabinetsRepository }) {
  app.get('/cabinets', {
    schema: {
      tags: ['demo'],
      summary: 'Simulated cabinets (slots as the cabinet sees them) and the power banks out on rent',
      response: {
        200: Envelope(Type.Object({
          cabinets: Type.Array(Type.Object({
            cabinetId: Type.String(), venueName: Type.String(), currency: Type.String(), online: Type.Boolean(),
            slots: Type.Array(Type.Object({ slot: Type.Integer(), powerbankId: Type.Union([Type.String(), Type.Null()]) })),
          })),
          outOnRent: Type.Array(Type.Object({ powerbankId: Type.String(), orderId: Type.String(), fromCabinetId: Type.String() })),
        })),
      },
    },
  }, async () => {
    const rows = await opts.cabinets.all();
    const rented = await opts.cabinets.rentedPowerbanks();
    return ok({
      cabinets: rows.filter((r) => opts.fleet.get(r.id)).map((r) => {
        const sim = opts.fleet.get(r.id)!;
        return {
          cabinetId: r.id, venueName: r.venue_name, currency: r.currency, online: r.online && sim.online,
          slots: sim.inventory().map((s) => ({ slot: s.slot, powerbankId: s.powerbankId })),
        };
      }),
      outOnRent: rented.map((p) => ({ powerbankId: p.id, orderId: p.order_id ?? '', fromCabinetId: p.from_cabinet_id })),
    });
  });

  app.post('/cabinets/:cabinetId/return', {
    schema: {
      tags: ['demo'],
      summary: 'Push a power bank into a free slot of this cabinet (the cabinet then reports `returned`)',
      params: CabinetParams,
      body: Type.Object({ powerbankId: Type.String({ minLength: 1, maxLength: 64 }) }),
      response: { 200: Envelope(Type.Object({ cabinetId: Type.String(), slot: Type.Integer(), powerbankId: Type.String() })) },
    },
  }, async (req) => {
    const sim = opts.fleet.get(req.params.cabinetId);
    if (!sim) throw notFound('error.cabinetNotFound');
    const { powerbankId } = req.body;
    if (!(await opts.cabinets.powerbankExists(powerbankId))) throw notFound('error.demo.unknownPowerbank');
    if (opts.fleet.holder(powerbankId)) throw conflict('error.demo.alreadyInCabinet');
    if (!sim.inventory().some((s) => s.powerbankId === null)) throw conflict('error.demo.noFreeSlot');
    const { slot } = await sim.insert(powerbankId);
    return ok({ cabinetId: sim.id, slot, powerbankId });
  });

  app.post('/cabinets/:cabinetId/fail-next-eject', {
    schema: {
      tags: ['demo'],
      summary: "Make this cabinet's next eject fail (it reports pop-failed, reason jammed)",
      params: CabinetParams,
      response: { 200: Envelope(Type.Object({ cabinetId: Type.String(), failNextEject: Type.Boolean() })) },
    },
  }, async (req) => {
    const sim = opts.fleet.get(req.params.cabinetId);
    if (!sim) throw notFound('error.cabinetNotFound');
    sim.failNextEject();
    return ok({ cabinetId: sim.id, failNextEject: true });
  });
}
