// The ops API's coupons: list (with their uses), one with its latest redemptions, create, pause and resume.
// Every write is audited with its reason; a coupon outside the caller's agents is not found.
import type { App } from '../../lib/route.ts';
import {
  CouponCreate,
  CouponDetail,
  CouponId,
  CouponListQuery,
  CouponPage,
  CouponPause,
  Coupon,
} from '#contract/ops/coupons.ts';
import { actorOf } from '../../plugins/ops-api.ts';
import type { CouponsService } from './service.ts';

export function couponOpsRoutes(o: { coupons: CouponsService }) {
  return async (ops: App) => {
    ops.get(
      '/coupons',
      {
        config: { permission: 'coupons.read' },
        schema: { querystring: CouponListQuery, response: { 200: CouponPage } },
      },
      async (req) => o.coupons.list(req.opsScope, req.query.cursor, req.query.limit ?? 50),
    );
    ops.get(
      '/coupons/:id',
      { config: { permission: 'coupons.read' }, schema: { params: CouponId, response: { 200: CouponDetail } } },
      async (req) => o.coupons.detail(req.opsScope, req.params.id),
    );
    ops.post(
      '/coupons',
      { config: { permission: 'coupons.write' }, schema: { body: CouponCreate, response: { 200: CouponDetail } } },
      async (req) => o.coupons.create(req.opsScope, actorOf(req, req.body.reason), req.body),
    );
    ops.post(
      '/coupons/:id/paused',
      {
        config: { permission: 'coupons.write' },
        schema: { params: CouponId, body: CouponPause, response: { 200: Coupon } },
      },
      async (req) => o.coupons.setPaused(req.opsScope, actorOf(req, req.body.reason), req.params.id, req.body.paused),
    );
  };
}
