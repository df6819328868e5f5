// The ops API's support desk over rentals (modules/rentals ops-*): search (paged, CSV export), one timeline per
// rental with its fee worked out step by step, and corrections (a refund) made with a reason, once per key.
import { Type, type Static } from 'typebox';
import type { FeeStep } from '../../core/pricing.ts';
import { Page, PageQuery, Reason } from './common.ts';

const Id = Type.String({ minLength: 1, maxLength: 100 });

export const RentalFilter = {
  q: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 100,
      description: 'an order id, a rider id, a phone number or an e-mail address',
    }),
  ),
  phone: Type.Optional(
    Type.String({
      minLength: 3,
      maxLength: 40,
      description: "the rider's phone number (digits compared, any formatting)",
    }),
  ),
  email: Type.Optional(Type.String({ minLength: 3, maxLength: 200 })),
  riderId: Type.Optional(Type.String({ pattern: '^[0-9]{1,18}$' })),
  cardLast4: Type.Optional(Type.String({ pattern: '^[0-9]{4}$' })),
  powerbankId: Type.Optional(Id),
  cabinetId: Type.Optional(Id),
  venueId: Type.Optional(Id),
  state: Type.Optional(Type.Integer({ minimum: 0, maximum: 8, description: 'the order state (docs/api.md, pZujie)' })),
  from: Type.Optional(Type.String({ format: 'date-time', description: 'created at or after' })),
  to: Type.Optional(Type.String({ format: 'date-time', description: 'created before' })),
};
export const RentalListQuery = Type.Object({ ...PageQuery, ...RentalFilter });
export type RentalListQuery = Static<typeof RentalListQuery>;
export const RentalExportQuery = Type.Object(RentalFilter);
export type RentalExportQuery = Static<typeof RentalExportQuery>;

const Money = Type.Object({ amount: Type.Integer({ description: 'minor units' }), currency: Type.String() });

export const RentalSummary = Type.Object({
  id: Type.String(),
  state: Type.Integer(),
  settled: Type.Boolean(),
  riderId: Type.String(),
  riderPhone: Type.Optional(Type.String()),
  riderEmail: Type.Optional(Type.String()),
  agentId: Type.Optional(Type.String()),
  venueId: Type.String(),
  venueName: Type.String(),
  cabinetId: Type.String(),
  powerbankId: Type.Optional(Type.String()),
  createdAt: Type.String(),
  borrowedAt: Type.Optional(Type.String()),
  returnedAt: Type.Optional(Type.String()),
  fee: Type.Optional(Money),
  deposit: Money,
});
export type RentalSummary = Static<typeof RentalSummary>;
export const RentalPage = Page(RentalSummary);
export type RentalPage = Static<typeof RentalPage>;

/** One step of the fee's computation (src/core/pricing.ts explainFee); amounts in minor units. */
export const FeeStepShape = Type.Unsafe<FeeStep>(
  Type.Object(
    {
      kind: Type.String({
        description: 'elapsed | free | fullDays | units | dailyCap | tier | noTier | depositCeiling | buyOut',
      }),
    },
    { additionalProperties: Type.Integer() },
  ),
);

export const TIMELINE_SOURCES = ['order', 'cabinet', 'payment', 'provider', 'ledger', 'message', 'staff'] as const;
export type TimelineSource = (typeof TIMELINE_SOURCES)[number];

export const TimelineEntry = Type.Object({
  at: Type.String({ description: 'when it happened: the cabinet’s own time for cabinet events, else the server’s' }),
  receivedAt: Type.Optional(Type.String({ description: 'cabinet events: when the server received it' })),
  source: Type.Unsafe<TimelineSource>(Type.String({ enum: [...TIMELINE_SOURCES] })),
  what: Type.String({
    description: 'a stable name: order.created, cabinet.popped, payment.captured, ledger.rent, staff.rental.refund, …',
  }),
  amount: Type.Optional(Money),
  detail: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
});
export type TimelineEntry = Static<typeof TimelineEntry>;

export const RentalTimeline = Type.Object({
  rental: RentalSummary,
  /** How the fee was reached (or, for an open rental, the fee so far). */
  fee: Type.Object({
    steps: Type.Array(FeeStepShape),
    total: Type.Integer(),
    currency: Type.String(),
    until: Type.String(),
  }),
  /** What the rider was charged for this rental, what was given back, and what may still be refunded. */
  money: Type.Object({
    charged: Type.Integer(),
    refunded: Type.Integer(),
    refundable: Type.Integer(),
    currency: Type.String(),
  }),
  entries: Type.Array(TimelineEntry),
  /** The number of corrections made so far: a correction sends it back as If-Match "v<version>" (also the ETag). */
  version: Type.Integer(),
});
export type RentalTimeline = Static<typeof RentalTimeline>;

export const RentalParams = Type.Object({ id: Id });

/** POST /rentals/{id}/refund (Idempotency-Key and If-Match headers). */
export const RefundBody = Type.Object({
  amount: Type.Integer({ minimum: 1, maximum: 100_000_000, description: 'minor units of the rental’s currency' }),
  reason: Reason,
});
export type RefundBody = Static<typeof RefundBody>;

export const RefundResult = Type.Object({
  id: Type.String({ description: 'the correction’s id' }),
  orderId: Type.String(),
  amount: Type.Integer(),
  currency: Type.String(),
  /** Where the money goes: to the card the rental was paid with, and (what it cannot take) to the rider's wallet. */
  toCard: Type.Integer(),
  toWallet: Type.Integer(),
  refundable: Type.Integer({ description: 'what may still be refunded after this one' }),
});
export type RefundResult = Static<typeof RefundResult>;

/** The desk's ways of putting a rental right (Idempotency-Key and If-Match headers, as a refund). */
export const RENTAL_ACTIONS = ['end', 'waive', 'release', 'reverse'] as const;
export type RentalAction = (typeof RENTAL_ACTIONS)[number];
/** POST /rentals/{id}/end and /reverse-buy-out: the time the rental ended (the cabinet evidence), within [the pop, now]. */
export const RentalEndBody = Type.Object(
  {
    at: Type.String({
      format: 'date-time',
      description: 'when the power bank went back, as the cabinets’ records support it',
    }),
    reason: Reason,
  },
  { additionalProperties: false },
);
export type RentalEndBody = Static<typeof RentalEndBody>;
export const RentalReasonBody = Type.Object({ reason: Reason }, { additionalProperties: false });
export const RentalActionResult = Type.Object({
  id: Type.String({ description: 'the correction’s id' }),
  orderId: Type.String(),
  kind: Type.Unsafe<RentalAction>(Type.String({ enum: [...RENTAL_ACTIONS] })),
  amount: Type.Integer({
    description: 'end: the fee charged; waive: the debt waived; reverse: what went back; release: the deposit released',
  }),
  currency: Type.String(),
  toCard: Type.Integer(),
  toWallet: Type.Integer(),
  state: Type.Integer({ description: 'the order’s state after it (pZujie)' }),
});
export type RentalActionResult = Static<typeof RentalActionResult>;
