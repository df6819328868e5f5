// The ops API's Wi-Fi line: regions, packages and plans (SKUs) with their prices per currency, boxes and their
// password rotation, the box deposit per currency; a region's changes. Reading needs fleet.read; changing fleet.write (the catalogue and
// the box deposits: platform-wide only).
import { Reason } from '#contract/ops/common.ts';
import {
  BoxDepositBody,
  BoxDepositList,
  BoxDepositParams,
  BoxDepositShape,
  MifiBoxBody,
  MifiBoxListQuery,
  MifiBoxPage,
  MifiBoxParams,
  MifiBoxShape,
  MifiRegionBody,
  MifiRegionChangeBody,
  MifiRegionList,
  MifiRegionParams,
  MifiRegionShape,
  MifiSkuBody,
  MifiSkuListQuery,
  MifiSkuChangeBody,
  MifiSkuPage,
  MifiSkuParams,
  MifiSkuShape,
} from '#contract/ops/mifi.ts';
import { Type } from 'typebox';
import { expectedVersion, sendVersion } from '../../lib/ops-concurrency.ts';
import type { App } from '../../lib/route.ts';
import { actorOf } from '../../plugins/ops-api.ts';
import type { MifiOpsService } from './ops.ts';

export function mifiOpsRoutes(o: { mifi: MifiOpsService }) {
  return async (ops: App) => {
    ops.get(
      '/mifi/regions',
      { config: { permission: 'fleet.read' }, schema: { response: { 200: MifiRegionList } } },
      async () => o.mifi.regions(),
    );
    ops.post(
      '/mifi/regions',
      {
        config: { permission: 'fleet.write' },
        schema: {
          description: 'A region with its countries (platform-wide members only: 403 otherwise).',
          body: MifiRegionBody,
          response: { 200: MifiRegionShape },
        },
      },
      async (req) => o.mifi.createRegion(req.opsScope, actorOf(req, req.body.reason), req.body),
    );
    ops.patch(
      '/mifi/regions/:id',
      {
        config: { permission: 'fleet.write' },
        schema: {
          description:
            'Changes a region: its name and its countries (replaced whole; platform-wide members only). A country of another region is a 400; ' +
            'dropping one a package is sold for a 409. Needs If-Match with the version read ("v<version>"); a save after another one answers 409 and changes nothing.',
          errors: [404, 409],
          params: MifiRegionParams,
          body: MifiRegionChangeBody,
          response: { 200: MifiRegionShape },
        },
      },
      async (req, reply) => {
        const r = await o.mifi.updateRegion(
          req.opsScope,
          actorOf(req, req.body.reason),
          req.params.id,
          expectedVersion(req),
          req.body,
        );
        sendVersion(reply, r.version);
        return r;
      },
    );

    ops.get(
      '/mifi/skus',
      {
        config: { permission: 'fleet.read' },
        schema: { querystring: MifiSkuListQuery, response: { 200: MifiSkuPage } },
      },
      async (req) => o.mifi.skus(req.query),
    );
    ops.post(
      '/mifi/skus',
      {
        config: { permission: 'fleet.write' },
        schema: {
          description: 'A package or a per-day plan with its price per currency (platform-wide members only).',
          body: MifiSkuBody,
          response: { 200: MifiSkuShape },
        },
      },
      async (req) => o.mifi.createSku(req.opsScope, actorOf(req, req.body.reason), req.body),
    );

    ops.patch(
      '/mifi/skus/:id',
      {
        config: { permission: 'fleet.write' },
        schema: {
          description:
            'Changes a package or plan: its names per language, plan, days, prices (replaced whole) and whether it is on sale (platform-wide ' +
            'members only). Needs If-Match with the version read ("v<version>"); a save after another one answers 409 and changes nothing.',
          params: MifiSkuParams,
          body: MifiSkuChangeBody,
          response: { 200: MifiSkuShape },
        },
      },
      async (req, reply) => {
        const s = await o.mifi.updateSku(
          req.opsScope,
          actorOf(req, req.body.reason),
          req.params.id,
          expectedVersion(req),
          req.body,
        );
        sendVersion(reply, s.version);
        return s;
      },
    );

    ops.get(
      '/mifi/box-deposits',
      { config: { permission: 'fleet.read' }, schema: { response: { 200: BoxDepositList } } },
      async () => o.mifi.boxDeposits(),
    );
    ops.put(
      '/mifi/box-deposits/:currency',
      {
        config: { permission: 'fleet.write' },
        schema: {
          description:
            'Sets the Wi-Fi box deposit of a currency (platform-wide members only). A currency not set yet is created without If-Match (409 if ' +
            'someone set it meanwhile); a change needs If-Match with the version read ("v<version>"): a save after another one answers 409 and changes nothing.',
          params: BoxDepositParams,
          body: BoxDepositBody,
          response: { 200: BoxDepositShape },
        },
      },
      async (req, reply) => {
        const version = req.headers['if-match'] ? expectedVersion(req) : null;
        const d = await o.mifi.setBoxDeposit(
          req.opsScope,
          actorOf(req, req.body.reason),
          req.params.currency,
          version,
          req.body.amount,
        );
        sendVersion(reply, d.version);
        return d;
      },
    );

    ops.get(
      '/mifi/boxes',
      {
        config: { permission: 'fleet.read' },
        schema: { querystring: MifiBoxListQuery, response: { 200: MifiBoxPage } },
      },
      async (req) => o.mifi.boxes(req.opsScope, req.query),
    );
    ops.post(
      '/mifi/boxes',
      {
        config: { permission: 'fleet.write' },
        schema: {
          description: 'A box (serial, SSID, first password), in a cabinet slot when cabinetId and slot are given.',
          body: MifiBoxBody,
          response: { 200: MifiBoxShape },
        },
      },
      async (req) => o.mifi.createBox(req.opsScope, actorOf(req, req.body.reason), req.body),
    );
    ops.post(
      '/mifi/boxes/:sn/password',
      {
        config: { permission: 'fleet.write' },
        schema: {
          description:
            'Rotates the Wi-Fi password: a new one is sent to the box through its cabinet and takes effect once the box confirms it (409 when the box is in no cabinet).',
          params: MifiBoxParams,
          body: Type.Object({ reason: Reason }, { additionalProperties: false }),
          response: { 200: MifiBoxShape },
        },
      },
      async (req) => o.mifi.rotatePassword(req.opsScope, actorOf(req, req.body.reason), req.params.sn),
    );
  };
}
