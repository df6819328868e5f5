// The ops API's withdrawals queue (modules/wallet/payout-queue.ts): bank withdrawals with the payee's fields, and a
// person's approve (through the payout adapter that pays the channel), record of a manual bank transfer, or reject
// (the money goes back to the rider's wallet). Money in integer minor units with its currency; times ISO 8601.
import { Type, type Static } from 'typebox';
import { OpsError, Page, PageQuery, Reason } from './common.ts';

export const WITHDRAWAL_STATES = ['awaiting_payout', 'pending', 'paid', 'rejected'] as const;
export type WithdrawalState = (typeof WITHDRAWAL_STATES)[number];
const State = Type.Unsafe<WithdrawalState>(Type.String({ enum: [...WITHDRAWAL_STATES] }));

export const WithdrawalItem = Type.Object({
  id: Type.String({ description: 'the withdrawal (TX…), also the payee bank statement reference' }),
  userId: Type.String(),
  agentId: Type.String(),
  amount: Type.Integer({ description: 'integer minor units of currency' }),
  currency: Type.String(),
  state: State,
  channel: Type.String({ description: 'the withdrawal channel (payout-sepa, payout-ach, manual)' }),
  payee: Type.Record(Type.String(), Type.String(), { description: "the payee's account fields the channel asked for" }),
  createdAt: Type.String(),
  rail: Type.Optional(
    Type.String({ description: 'the payout adapter an approval pays through; absent: record a bank transfer' }),
  ),
  provider: Type.Optional(Type.String({ description: 'the payout adapter paying or that paid it' })),
  providerRef: Type.Optional(Type.String()),
  waitReason: Type.Optional(Type.String({ description: 'why it waits for a person, or why it was rejected' })),
  bankReference: Type.Optional(Type.String()),
  approvedBy: Type.Optional(Type.String()),
  settledBy: Type.Optional(Type.String()),
});
export type WithdrawalItem = Static<typeof WithdrawalItem>;
export const WithdrawalPage = Page(WithdrawalItem);
export type WithdrawalPage = Static<typeof WithdrawalPage>;

const WithdrawalFilter = {
  state: Type.Optional(
    Type.Union([State, Type.Literal('all')], { default: 'awaiting_payout', description: 'awaiting_payout by default' }),
  ),
  q: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 100,
      description: "a withdrawal id, or the rider's id, phone number (digits compared) or e-mail",
    }),
  ),
  from: Type.Optional(Type.String({ format: 'date-time', description: 'requested at or after' })),
  to: Type.Optional(Type.String({ format: 'date-time', description: 'requested before' })),
};
export const WithdrawalListQuery = Type.Object({ ...PageQuery, ...WithdrawalFilter });
export type WithdrawalListQuery = Static<typeof WithdrawalListQuery>;
export const WithdrawalExportQuery = Type.Object(WithdrawalFilter);
export type WithdrawalExportQuery = Static<typeof WithdrawalExportQuery>;
export const WITHDRAWAL_CSV_COLUMNS = [
  'id',
  'created_at',
  'state',
  'rider_id',
  'agent_id',
  'amount',
  'currency',
  'channel',
  'payee',
  'provider',
  'provider_ref',
  'bank_reference',
  'approved_by',
  'settled_by',
  'wait_reason',
] as const;
export const WithdrawalIdParams = Type.Object({ id: Type.String({ pattern: '^[A-Za-z0-9_-]{1,64}$' }) });

export const WithdrawalApprove = Type.Object({ reason: Reason }, { additionalProperties: false });
export const WithdrawalManual = Type.Object(
  {
    bankReference: Type.String({
      minLength: 1,
      maxLength: 100,
      pattern: '\\S',
      description: "the bank transfer's reference",
    }),
    reason: Reason,
  },
  { additionalProperties: false },
);
export type WithdrawalManual = Static<typeof WithdrawalManual>;
export const WithdrawalReject = Type.Object({ reason: Reason }, { additionalProperties: false });

/** What each action answers: the withdrawal after it; 404 outside the scope, 409 when someone else acted first. */
export const WithdrawalActionResponses = { 200: WithdrawalItem, 404: OpsError, 409: OpsError, 422: OpsError };
