// Fair returns: what became of a cancelled rental's deposit (and the rider's choice to keep a top-up in the wallet).
import { Type, type Static } from 'typebox';

export const DepositBack = Type.Object({
  orderId: Type.String(),
  kind: Type.Union([Type.Literal('card_hold'), Type.Literal('refund'), Type.Literal('wallet')], {
    description:
      'card_hold: a card pre-authorisation, voided; refund: a deposit top-up going back to the card or method it was charged to; wallet: the deposit was held from the wallet balance and is back there',
  }),
  state: Type.Union(
    [
      Type.Literal('releasing'),
      Type.Literal('released'),
      Type.Literal('in_wallet'),
      Type.Literal('scheduled'),
      Type.Literal('refunded'),
      Type.Literal('kept'),
      Type.Literal('kept_spent'),
      Type.Literal('kept_unrefundable'),
    ],
    {
      description:
        'releasing/released (card_hold); in_wallet (wallet); scheduled (refunded at `at` unless kept), refunded, kept (the rider chose the wallet), kept_spent (the wallet balance was used meanwhile), kept_unrefundable (the method takes no refunds) (refund)',
    },
  ),
  amount: Type.Number({ description: 'The deposit, major units' }),
  refunded: Type.Number({
    description:
      'Refunded to the card or method, major units (state refunded; less than amount when some was spent meanwhile)',
  }),
  currency: Type.String(),
  at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
    description: 'When it happened; for `scheduled`, when the refund is made',
  }),
  method: Type.Union([Type.String(), Type.Null()], {
    description: 'The card the money goes back to ("Visa •••• 4242"), when known',
  }),
  canKeep: Type.Boolean({
    description: 'The refund is still scheduled: POST cdb/mine/order/deposit/keep keeps it in the wallet instead',
  }),
});
export type DepositBack = Static<typeof DepositBack>;

// ---- rental notices (receipts and reminders) ----

export const NOTICE_KIND_NAMES = ['receipt', 'free_end', 'cap', 'day', 'tier', 'buyout', 'hold'] as const;
export const NoticeKindName = Type.Union(NOTICE_KIND_NAMES.map((k) => Type.Literal(k)));
export const NoticeChannelName = Type.Union([
  Type.Literal('push'),
  Type.Literal('email'),
  Type.Literal('sms'),
  Type.Literal('host'),
]);

export const NoticePrefs = Type.Object({
  channels: Type.Array(NoticeChannelName, {
    maxItems: 4,
    uniqueItems: true,
    description: "Where notices go: push (this browser, once subscribed), email, sms, host (the embed's host page)",
  }),
  kindsOff: Type.Array(NoticeKindName, { maxItems: 7, uniqueItems: true, description: 'Kinds the rider turned off' }),
  email: Type.Union([Type.String({ maxLength: 320, pattern: '^[^\\s@]+@[^\\s@]+\\.[^\\s@]+$' }), Type.Null()]),
  phone: Type.Union([Type.String({ pattern: '^\\+[1-9][0-9]{6,14}$', description: 'E.164' }), Type.Null()]),
  locale: Type.Union([
    Type.Literal('en-US'),
    Type.Literal('zh-CN'),
    Type.Literal('lt-LT'),
    Type.Literal('pt-PT'),
    Type.Literal('es-ES'),
  ]),
  timeZone: Type.String({
    minLength: 1,
    maxLength: 64,
    description: 'IANA time zone of the rider (the times in notices)',
  }),
  quietFrom: Type.Union([Type.Integer({ minimum: 0, maximum: 1439 }), Type.Null()], {
    description: 'Quiet hours start, minutes after local midnight',
  }),
  quietTo: Type.Union([Type.Integer({ minimum: 0, maximum: 1439 }), Type.Null()], {
    description: 'Quiet hours end, minutes after local midnight',
  }),
});
export type NoticePrefs = Static<typeof NoticePrefs>;

export const PushKey = Type.Object({
  publicKey: Type.String({ description: 'The VAPID public key (applicationServerKey), base64url' }),
});
export type PushKey = Static<typeof PushKey>;

export const PushSubscriptionBody = Type.Object({
  endpoint: Type.String({ minLength: 12, maxLength: 1000, pattern: '^https://' }),
  keys: Type.Object({
    p256dh: Type.String({ minLength: 20, maxLength: 200 }),
    auth: Type.String({ minLength: 8, maxLength: 100 }),
  }),
});
export type PushSubscriptionBody = Static<typeof PushSubscriptionBody>;

export const PushEndpointBody = Type.Object({ endpoint: Type.String({ minLength: 12, maxLength: 1000 }) });

// ---- "I returned it" ----

export const ReturnClaimBody = Type.Object({
  orderId: Type.String({ minLength: 1, maxLength: 64 }),
  cabinetId: Type.String({
    minLength: 1,
    maxLength: 64,
    description: 'The cabinet the power bank went into (its code)',
  }),
  at: Type.String({
    minLength: 10,
    maxLength: 40,
    description: 'About when (ISO 8601 date-time; outside the rental: 400)',
  }),
});
export type ReturnClaimBody = Static<typeof ReturnClaimBody>;

export const ReturnClaim = Type.Object({
  id: Type.Integer(),
  orderId: Type.String(),
  cabinetId: Type.String(),
  claimedAt: Type.String({ format: 'date-time' }),
  state: Type.Union(
    [Type.Literal('matched'), Type.Literal('open'), Type.Literal('accepted'), Type.Literal('rejected')],
    {
      description:
        "matched: the cabinets' records confirmed it and the order is settled; open: a dispute the desk is looking at; accepted / rejected: the desk's decision",
    },
  ),
  message: Type.Union([Type.String(), Type.Null()], { description: "The desk's message to the rider" }),
  createdAt: Type.String({ format: 'date-time' }),
  decidedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
});
export type ReturnClaim = Static<typeof ReturnClaim>;

// ---- return slot reservations ----

export const ReturnReserveBody = Type.Object(
  {
    cabinetId: Type.Optional(
      Type.String({ minLength: 1, maxLength: 64, description: 'The cabinet to keep a slot at' }),
    ),
    shopId: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 64,
        description: 'Or the venue: its first online cabinet with a free slot',
      }),
    ),
  },
  { description: 'One of cabinetId or shopId' },
);
export type ReturnReserveBody = Static<typeof ReturnReserveBody>;

export const ReturnReservation = Type.Object({
  id: Type.String(),
  cabinetId: Type.String(),
  shopId: Type.String(),
  shopName: Type.String(),
  slot: Type.Integer({ minimum: 1, description: 'The slot kept for the power bank' }),
  state: Type.Union([Type.Literal('held'), Type.Literal('used'), Type.Literal('expired'), Type.Literal('cancelled')], {
    description: 'held until expiresAt; used: the power bank was returned; expired; cancelled by the rider',
  }),
  confirmed: Type.Boolean({
    description: 'The cabinet acknowledged keeping the slot (false: it will be told as soon as it is reachable)',
  }),
  createdAt: Type.String({ format: 'date-time' }),
  expiresAt: Type.String({ format: 'date-time' }),
  endedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
});
export type ReturnReservation = Static<typeof ReturnReservation>;

// ---- grace periods ----

export const GraceReason = Type.Union(
  [Type.Literal('closed'), Type.Literal('full'), Type.Literal('offline'), Type.Literal('none')],
  {
    description:
      'Why nowhere nearby could take the power bank: closed (the cabinets nearby are closed until a known opening), full (open, no free slot), offline (no cabinet nearby online), none (no cabinet within the radius)',
  },
);

/** A grace period as the order records it (orders.grace): the rental does not count from `from` to `until`. */
export const GracePeriod = Type.Object({
  from: Type.String({ format: 'date-time' }),
  until: Type.String({
    format: 'date-time',
    description:
      "The next opening nearby (or the agent's grace length when none is known), at most the agent's longest grace",
  }),
  reason: GraceReason,
  radiusM: Type.Integer({ description: 'The radius searched around the rider, metres (per agent)' }),
  nearest: Type.Union(
    [
      Type.Object({
        shopId: Type.String(),
        name: Type.String(),
        distanceM: Type.Integer(),
        opensAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
      }),
      Type.Null(),
    ],
    {
      description:
        'The place the grace waits for (the first to open), else the nearest venue; null when none is in the radius',
    },
  ),
  at: Type.String({ format: 'date-time', description: 'When it was granted' }),
});
export type GracePeriod = Static<typeof GracePeriod>;

export const GraceBody = Type.Object({
  orderId: Type.String({ minLength: 1, maxLength: 64 }),
  lat: Type.Number({ minimum: -90, maximum: 90, description: 'Where the rider is' }),
  lng: Type.Number({ minimum: -180, maximum: 180 }),
});
export type GraceBody = Static<typeof GraceBody>;

export const GraceCheckQuery = GraceBody;

/** What the rider's screen shows: whether a grace period may be asked for here, or the one running. */
export const GraceAnswer = Type.Object({
  applies: Type.Boolean({
    description: 'No cabinet within the radius is open with a free slot now: a grace period is granted if asked',
  }),
  active: Type.Union(
    [
      Type.Object({
        from: Type.String({ format: 'date-time' }),
        until: Type.String({ format: 'date-time' }),
        reason: GraceReason,
      }),
      Type.Null(),
    ],
    { description: 'The grace period running now, if any' },
  ),
  until: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
    description: 'applies: until when a grace period asked now would last',
  }),
  reason: Type.Union([GraceReason, Type.Null()]),
  place: Type.Union(
    [Type.Object({ shopId: Type.String(), name: Type.String(), distanceM: Type.Integer() }), Type.Null()],
    {
      description: 'not applies: the nearest place open with a free slot (return there); applies: the place waited for',
    },
  ),
  radiusM: Type.Integer(),
});
export type GraceAnswer = Static<typeof GraceAnswer>;
