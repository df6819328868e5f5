// Live updates (docs/api.md "Live updates"): a one-use ticket, then a server-sent event stream of what changed.
import { Type, type Static } from 'typebox';

export const LiveTicket = Type.Object({
  ticket: Type.String({ description: 'one use, valid 60 s: GET live/events?ticket=…' }),
  expiresIn: Type.Integer({ description: 'seconds' }),
});
export type LiveTicket = Static<typeof LiveTicket>;

export const LiveEventsQuery = Type.Object({ ticket: Type.String({ minLength: 16, maxLength: 100 }) });
export type LiveEventsQuery = Static<typeof LiveEventsQuery>;

/** GET live/shop: a venue's stream (its cabinets' free slots and power banks), with a ticket of live/ticket. */
export const LiveShopQuery = Type.Object({
  ticket: Type.String({ minLength: 16, maxLength: 100 }),
  shopId: Type.String({ minLength: 1, maxLength: 64 }),
});
export type LiveShopQuery = Static<typeof LiveShopQuery>;

/**
 * One change of the signed-in user's data: the page refetches what it shows (the event carries no state, so the
 * answer of the ordinary endpoint stays the one source). 'resync': events may have been missed; refetch all.
 */
export const LiveEvent = Type.Object({
  kind: Type.Union([
    Type.Literal('order'),
    Type.Literal('wallet'),
    Type.Literal('resync'),
    Type.Literal('notice'),
    Type.Literal('shop'),
  ]),
  /** kind 'shop' (GET live/shop only): what the venue's cabinets hold or take back changed; the page reads it again. */
  shopId: Type.Optional(Type.String()),
  /** kind 'notice': a receipt or reminder (server/src/modules/notify/notices.ts), passed on to an embed's host page. */
  notice: Type.Optional(
    Type.Object({ kind: Type.String(), tag: Type.String(), title: Type.String(), body: Type.String() }),
  ),
  orderId: Type.Optional(Type.String()),
  /** The order's state after the change (states), when kind is 'order'. */
  state: Type.Optional(Type.Integer()),
});
export type LiveEvent = Static<typeof LiveEvent>;
