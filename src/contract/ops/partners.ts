// The ops API's partners (modules/partners): revenue share rules, tax and provider fee rates, monthly statements
// and a partner's earnings. Amounts are integer minor units of `currency`; rates are basis points (1 % = 100).
import { Type, type Static } from 'typebox';
import { Reason } from './common.ts';

export const PartnerType = Type.Union([Type.Literal('venue'), Type.Literal('agent')]);
const Id = Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_.:-]+$' });
const Currency = Type.String({ pattern: '^[A-Z]{3}$' });
const Bps = Type.Integer({ minimum: 0, maximum: 10_000, description: 'basis points: 1 % = 100' });
const Minor = Type.Integer({ description: 'minor units of the currency' });

export const ShareRule = Type.Object({
  id: Type.String(),
  partnerType: PartnerType,
  partnerId: Type.String(),
  currency: Type.String(),
  percentBps: Bps,
  monthlyFee: Minor,
  effectiveFrom: Type.String({ format: 'date-time' }),
});
export type ShareRule = Static<typeof ShareRule>;
export const ShareRuleList = Type.Object({ items: Type.Array(ShareRule) });

export const RulesQuery = Type.Object({ partnerType: Type.Optional(PartnerType), partnerId: Type.Optional(Id) });
export type RulesQuery = Static<typeof RulesQuery>;

export const ShareRuleCreate = Type.Object(
  {
    partnerType: PartnerType,
    partnerId: Id,
    currency: Currency,
    percentBps: Bps,
    monthlyFee: Type.Integer({ minimum: 0, maximum: 1_000_000_000 }),
    effectiveFrom: Type.Optional(Type.String({ format: 'date-time', description: 'default: now; never in the past' })),
    reason: Reason,
  },
  { additionalProperties: false },
);
export type ShareRuleCreate = Static<typeof ShareRuleCreate>;

export const Rates = Type.Object({
  tax: Type.Array(Type.Object({ country: Type.String(), rateBps: Bps })),
  fees: Type.Array(Type.Object({ provider: Type.String(), rateBps: Bps })),
});
export const TaxRateSet = Type.Object(
  { country: Type.String({ pattern: '^[A-Z]{2}$' }), rateBps: Bps, reason: Reason },
  { additionalProperties: false },
);
export const ProviderFeeSet = Type.Object(
  { provider: Id, rateBps: Bps, reason: Reason },
  { additionalProperties: false },
);

export const StatementShape = Type.Object({
  id: Type.String(),
  partnerType: PartnerType,
  partnerId: Type.String(),
  currency: Type.String(),
  period: Type.String(),
  total: Minor,
  issuedAt: Type.String({ format: 'date-time' }),
});
export type StatementShape = Static<typeof StatementShape>;
export const StatementLine = Type.Object({
  kind: Type.Union([Type.Literal('rental'), Type.Literal('adjustment'), Type.Literal('monthly_fee')]),
  orderId: Type.Optional(Type.String()),
  settledAt: Type.Optional(Type.String({ format: 'date-time' })),
  at: Type.String({ format: 'date-time' }),
  gross: Minor,
  refunded: Minor,
  providerFee: Minor,
  tax: Minor,
  net: Minor,
  percentBps: Bps,
  amount: Minor,
});
export type StatementLine = Static<typeof StatementLine>;
export const StatementDetail = Type.Object({ statement: StatementShape, lines: Type.Array(StatementLine) });
export const StatementList = Type.Object({ items: Type.Array(StatementShape) });
export const StatementsQuery = RulesQuery;
export const StatementIssue = Type.Object(
  {
    partnerType: PartnerType,
    partnerId: Id,
    currency: Currency,
    period: Type.String({
      pattern: '^[0-9]{4}-(0[1-9]|1[0-2])$',
      description: 'YYYY-MM (UTC), a month that has ended',
    }),
    reason: Reason,
  },
  { additionalProperties: false },
);
export type StatementIssue = Static<typeof StatementIssue>;
export const StatementParams = Type.Object({ id: Type.String({ pattern: '^[0-9]{1,18}$' }) });

export const Earnings = Type.Object({
  items: Type.Array(
    Type.Object({
      partnerType: PartnerType,
      partnerId: Type.String(),
      currency: Type.String(),
      balance: Minor,
      rentals: Type.Integer(),
      unreported: Minor,
    }),
  ),
});
export type Earnings = Static<typeof Earnings>;

export const PartnerRentals = Type.Object(
  {
    items: Type.Array(
      Type.Object({
        orderId: Type.String(),
        venueId: Type.String(),
        currency: Type.String(),
        settledAt: Type.String({ format: 'date-time' }),
        gross: Minor,
        refunded: Minor,
        venueShare: Minor,
        agentShare: Minor,
      }),
    ),
  },
  { description: "no rider data: the rental, its venue, what it took and each partner's share" },
);
export type PartnerRentals = Static<typeof PartnerRentals>;
