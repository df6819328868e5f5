// The ops API's coupons (modules/coupons): a percentage or a fixed amount off a paying call (couponNo), valid
// between two times, limited per user and in total, for every agent or one agent (and venue), pausable.
import { Type, type Static } from 'typebox';
import { Page, PageQuery, Reason } from './common.ts';

const Code = Type.String({ pattern: '^[A-Za-z0-9_-]{3,64}$', description: 'what riders type (couponNo)' });
const Currency = Type.String({ pattern: '^[A-Za-z]{3}$' });
const Instant = Type.String({ format: 'date-time', maxLength: 40 });

export const CouponCreate = Type.Object({
  code: Code,
  kind: Type.Union([Type.Literal('percent'), Type.Literal('fixed')]),
  percent: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, description: 'percent coupons' })),
  amount: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 100_000_000, description: 'fixed coupons: minor units of currency' }),
  ),
  currency: Type.Optional(Currency),
  validFrom: Instant,
  validTo: Instant,
  limitPerUser: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 1 })),
  limitTotal: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 10_000_000, description: 'absent: no limit in total' }),
  ),
  agentId: Type.Optional(
    Type.String({ minLength: 1, maxLength: 64, description: 'absent: every agent (platform staff only)' }),
  ),
  venueId: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  reason: Reason,
});
export type CouponCreate = Static<typeof CouponCreate>;

export const Coupon = Type.Object({
  id: Type.String(),
  code: Type.String(),
  kind: Type.Union([Type.Literal('percent'), Type.Literal('fixed')]),
  percent: Type.Optional(Type.Integer()),
  amount: Type.Optional(Type.Integer()),
  currency: Type.Optional(Type.String()),
  validFrom: Type.String(),
  validTo: Type.String(),
  limitPerUser: Type.Integer(),
  limitTotal: Type.Optional(Type.Integer()),
  agentId: Type.Union([Type.String(), Type.Null()]),
  venueId: Type.Union([Type.String(), Type.Null()]),
  paused: Type.Boolean(),
  redeemed: Type.Integer({ description: 'uses whose charge was taken' }),
  reserved: Type.Integer({ description: 'uses whose charge is under way' }),
  given: Type.Record(Type.String(), Type.Integer(), { description: 'minor units given, per currency' }),
});
export type Coupon = Static<typeof Coupon>;

export const Redemption = Type.Object({
  orderId: Type.String(),
  purpose: Type.String(),
  userId: Type.Integer(),
  gross: Type.Integer(),
  discount: Type.Integer(),
  currency: Type.String(),
  status: Type.Union([Type.Literal('reserved'), Type.Literal('redeemed'), Type.Literal('released')]),
  at: Type.String(),
});
export const CouponDetail = Type.Object({ ...Coupon.properties, redemptions: Type.Array(Redemption) });
export type CouponDetail = Static<typeof CouponDetail>;

export const CouponPage = Page(Coupon);
export type CouponPage = Static<typeof CouponPage>;
export const CouponListQuery = Type.Object({ ...PageQuery });
export const CouponId = Type.Object({ id: Type.String({ pattern: '^[0-9]{1,18}$' }) });
export const CouponPause = Type.Object({ paused: Type.Boolean(), reason: Reason });
export type CouponPause = Static<typeof CouponPause>;
