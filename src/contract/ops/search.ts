// The ops API's support desk searches beyond rentals (docs/api.md "Support desk"): riders, payments and Wi-Fi
// packages, each by the rider (id, phone, e-mail, card last 4), its own ids and state and a date range; paged by
// cursor, exported as CSV. Amounts in minor units.
import { Type, type Static } from 'typebox';
import { Page, PageQuery } from './common.ts';
import { TimelineEntry } from './rentals.ts';

const Id = Type.String({ minLength: 1, maxLength: 100 });
const Money = Type.Object({ amount: Type.Integer({ description: 'minor units' }), currency: Type.String() });

/** The rider's fields every search has (riders: these are the rider). */
const WhoFilter = {
  phone: Type.Optional(
    Type.String({
      minLength: 3,
      maxLength: 40,
      description: "the rider's phone number (digits compared, any formatting)",
    }),
  ),
  email: Type.Optional(
    Type.String({ minLength: 3, maxLength: 200, description: "the rider's e-mail address (any case)" }),
  ),
  riderId: Type.Optional(Type.String({ pattern: '^[0-9]{1,18}$' })),
  cardLast4: Type.Optional(
    Type.String({ pattern: '^[0-9]{4}$', description: 'the last 4 digits of a card the rider paid with' }),
  ),
  from: Type.Optional(Type.String({ format: 'date-time', description: 'created at or after' })),
  to: Type.Optional(Type.String({ format: 'date-time', description: 'created before' })),
};

export const RiderFilter = {
  ...WhoFilter,
  q: Type.Optional(
    Type.String({ minLength: 1, maxLength: 100, description: 'a rider id, a phone number or an e-mail address' }),
  ),
  state: Type.Optional(Type.Union([Type.Literal('active'), Type.Literal('blocked')])),
};
export const RiderListQuery = Type.Object({ ...PageQuery, ...RiderFilter });
export type RiderListQuery = Static<typeof RiderListQuery>;
export const RiderExportQuery = Type.Object(RiderFilter);
export type RiderExportQuery = Static<typeof RiderExportQuery>;
export const RiderSummary = Type.Object({
  id: Type.String(),
  kind: Type.String(),
  name: Type.String(),
  email: Type.Optional(Type.String()),
  mobile: Type.Optional(Type.String()),
  createdAt: Type.String(),
  blocked: Type.Boolean(),
  agents: Type.Array(Type.String(), {
    description: 'the agents the rider is a customer of: an account with, a rental at its venues (the scope)',
  }),
});
export type RiderSummary = Static<typeof RiderSummary>;
export const RiderPage = Page(RiderSummary);

export const PaymentFilter = {
  ...WhoFilter,
  q: Type.Optional(
    Type.String({ minLength: 1, maxLength: 200, description: "a payment id, the provider's reference or an order id" }),
  ),
  provider: Type.Optional(Type.String({ pattern: '^[a-z0-9_-]{1,40}$' })),
  purpose: Type.Optional(
    Type.String({
      pattern: '^[a-z_]{1,40}$',
      description: 'deposit_preauth, wallet_topup, mifi, … (docs/payments.md)',
    }),
  ),
  state: Type.Optional(
    Type.String({
      pattern: '^[a-z_]{1,40}$',
      description: 'the payment status: pending, authorized, captured, refunded, declined, …',
    }),
  ),
  powerbankId: Type.Optional(Id),
  cabinetId: Type.Optional(
    Type.String({ minLength: 1, maxLength: 100, description: "the rental's or the Wi-Fi order's cabinet" }),
  ),
  venueId: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: "the rental's venue" })),
};
export const PaymentListQuery = Type.Object({ ...PageQuery, ...PaymentFilter });
export type PaymentListQuery = Static<typeof PaymentListQuery>;
export const PaymentExportQuery = Type.Object(PaymentFilter);
export type PaymentExportQuery = Static<typeof PaymentExportQuery>;
export const PaymentSummary = Type.Object({
  id: Type.String(),
  provider: Type.String(),
  providerRef: Type.Optional(Type.String()),
  purpose: Type.String(),
  state: Type.String(),
  amount: Money,
  captured: Type.Integer(),
  refunded: Type.Integer(),
  cardBrand: Type.Optional(Type.String()),
  cardLast4: Type.Optional(Type.String()),
  orderId: Type.Optional(Type.String()),
  riderId: Type.String(),
  riderPhone: Type.Optional(Type.String()),
  riderEmail: Type.Optional(Type.String()),
  agentId: Type.Optional(Type.String({ description: "the rental's venue's agent" })),
  cabinetId: Type.Optional(Type.String()),
  createdAt: Type.String(),
  updatedAt: Type.String(),
});
export type PaymentSummary = Static<typeof PaymentSummary>;
export const PaymentPage = Page(PaymentSummary);

export const PackageFilter = {
  ...WhoFilter,
  q: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 100,
      description: 'a package id, an order id or a Wi-Fi box serial number',
    }),
  ),
  powerbankId: Type.Optional(
    Type.String({ minLength: 1, maxLength: 100, description: "the Wi-Fi box's serial number" }),
  ),
  cabinetId: Type.Optional(Id),
  venueId: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: "the order's cabinet's venue" })),
  state: Type.Optional(
    Type.Integer({ minimum: 0, maximum: 99, description: 'the package status (docs/api.md, Wi-Fi packages)' }),
  ),
};
export const PackageListQuery = Type.Object({ ...PageQuery, ...PackageFilter });
export type PackageListQuery = Static<typeof PackageListQuery>;
export const PackageExportQuery = Type.Object(PackageFilter);
export type PackageExportQuery = Static<typeof PackageExportQuery>;
export const PackageSummary = Type.Object({
  id: Type.String(),
  orderId: Type.String(),
  state: Type.Integer(),
  name: Type.String(),
  country: Type.Optional(Type.String()),
  days: Type.Integer(),
  price: Money,
  deposit: Type.Integer(),
  refunded: Type.Integer(),
  deviceSn: Type.Optional(Type.String()),
  cabinetId: Type.Optional(Type.String()),
  venueId: Type.Optional(Type.String()),
  agentId: Type.Optional(Type.String({ description: "the order's cabinet's agent" })),
  riderId: Type.String(),
  riderPhone: Type.Optional(Type.String()),
  riderEmail: Type.Optional(Type.String()),
  cardLast4: Type.Optional(Type.String()),
  startAt: Type.String(),
  endAt: Type.String(),
  createdAt: Type.String(),
});
export type PackageSummary = Static<typeof PackageSummary>;
export const PackagePage = Page(PackageSummary);
export const PackageParams = Type.Object({ id: Id });

/** One Wi-Fi package's timeline: the package's own steps, and its order's cabinet, payment, ledger, message and staff entries. */
export const PackageTimeline = Type.Object({
  package: PackageSummary,
  entries: Type.Array(TimelineEntry),
});
export type PackageTimeline = Static<typeof PackageTimeline>;
