// The ops API's cabinets (modules/cabinets/ops.ts): the list with live state (filter, sort, cursor), one cabinet
// (ETag), registration, assignment (If-Match), broker credentials, remote commands, the CSV import, the live
// stream. Every write carries the reason stored with it in the audit log.
import { Type, type Static } from 'typebox';
import { CabinetImportReport, CabinetRegister, FieldIssue } from '../ops-fleet.ts';
import { Page, PageQuery, Reason } from './common.ts';

const Id = Type.String({ pattern: '^[A-Za-z0-9._-]{1,64}$' });
/** The vendor families a cabinet may speak (docs/cabinet-protocol.md "Vendor families"). */
export const CABINET_VENDORS = ['powerly', 'a8', 'tcp60'] as const;
export const CABINET_COMMANDS = ['eject', 'lock', 'unlock', 'inventory', 'restart', 'volume'] as const;
export type CabinetCommandType = (typeof CABINET_COMMANDS)[number];
/** Commands about one slot (the others are about the whole cabinet). */
export const SLOT_COMMANDS: readonly CabinetCommandType[] = ['eject', 'lock', 'unlock'];

export const OpsCabinetSlot = Type.Object({
  slot: Type.Integer(),
  deviceId: Type.Union([Type.String(), Type.Null()]),
  kind: Type.Union([Type.String(), Type.Null()], { description: 'cdb, station, mifi (null: empty)' }),
  state: Type.Union([Type.String(), Type.Null()], { description: 'in_cabinet, quarantined (null: empty)' }),
  charge: Type.Union([Type.Integer(), Type.Null()], { description: 'battery in percent, as last reported' }),
  temperature: Type.Union([Type.Number(), Type.Null()], { description: '°C, as last reported (null: not reported)' }),
  faults: Type.Array(Type.String(), { description: 'fault codes the cabinet last reported for the slot' }),
  locked: Type.Boolean({ description: 'locked by an operator: nothing is lent or returned through it' }),
});
export type OpsCabinetSlot = Static<typeof OpsCabinetSlot>;

export const OpsCabinet = Type.Object({
  id: Type.String(),
  vendor: Type.String(),
  agentId: Type.Union([Type.String(), Type.Null()]),
  venueId: Type.Union([Type.String(), Type.Null()]),
  venueName: Type.Union([Type.String(), Type.Null()]),
  slotCount: Type.Integer(),
  online: Type.Boolean({ description: 'online by its status and heard from recently' }),
  lastHeartbeatAt: Type.Union([Type.String(), Type.Null()]),
  offlineAfterMs: Type.Integer({
    description: 'without a heartbeat for this long after lastHeartbeatAt it counts as offline',
  }),
  hasCredentials: Type.Boolean(),
  volume: Type.Union([Type.Integer(), Type.Null()], {
    description: 'speaker volume in percent, as the cabinet last reported it (null: never reported)',
  }),
  version: Type.Integer(),
  slots: Type.Array(OpsCabinetSlot),
  commands: Type.Array(
    Type.Object({
      id: Type.String(),
      type: Type.String(),
      slot: Type.Union([Type.Integer(), Type.Null()]),
      at: Type.String(),
      state: Type.String({
        description: 'sent, accepted, done, or what the cabinet answered (expired, unknown_command, pop-failed:…)',
      }),
    }),
    { description: 'the last operator commands (newest first)' },
  ),
});
export type OpsCabinet = Static<typeof OpsCabinet>;
export const OpsCabinetPage = Page(OpsCabinet);
export type OpsCabinetPage = Static<typeof OpsCabinetPage>;

export const CABINET_SORTS = [
  'id',
  '-id',
  'vendor',
  '-vendor',
  'venue',
  '-venue',
  'lastHeartbeat',
  '-lastHeartbeat',
] as const;
export const CabinetListQuery = Type.Object({
  ...PageQuery,
  q: Type.Optional(Type.String({ maxLength: 64, description: 'part of the serial' })),
  venueId: Type.Optional(Id),
  agentId: Type.Optional(Id),
  vendor: Type.Optional(Type.String({ maxLength: 40 })),
  online: Type.Optional(Type.Union([Type.Literal('true'), Type.Literal('false')])),
  sort: Type.Optional(Type.Union(CABINET_SORTS.map((s) => Type.Literal(s)))),
});
export type CabinetListQuery = Static<typeof CabinetListQuery>;
export const CabinetIdParams = Type.Object({ id: Id });

export const CabinetRegisterBody = Type.Object(
  {
    ...CabinetRegister.properties,
    agentId: Type.Optional(Id),
    reason: Reason,
  },
  {
    additionalProperties: false,
    description: 'agentId: the venue’s when a venue is named; else needed unless the caller belongs to one agent',
  },
);
export type CabinetRegisterBody = Static<typeof CabinetRegisterBody>;
export const CabinetAssignBody = Type.Object(
  { venueId: Type.Union([Id, Type.Null()]), reason: Reason },
  { additionalProperties: false },
);
export type CabinetAssignBody = Static<typeof CabinetAssignBody>;
export const ReasonBody = Type.Object({ reason: Reason }, { additionalProperties: false });
export const CabinetCredentialsIssued = Type.Object({
  username: Type.String(),
  password: Type.String({
    description:
      'shown once; the previous one is refused from now on (a broker password is stored as a hash, a token secret sealed)',
  }),
  kind: Type.Union([Type.Literal('broker-password'), Type.Literal('token-secret')], {
    description:
      "broker-password: the MQTT password (internal protocol, 0xA8 family); token-secret: the TCP family's secret its frames are signed with",
  }),
});
export type CabinetCredentialsIssued = Static<typeof CabinetCredentialsIssued>;

export const CabinetCommandBody = Type.Object(
  {
    type: Type.Union(CABINET_COMMANDS.map((c) => Type.Literal(c))),
    slot: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, description: 'eject, lock and unlock: the slot' })),
    level: Type.Optional(
      Type.Integer({ minimum: 0, maximum: 100, description: 'volume: the speaker volume in percent (0: silent)' }),
    ),
    reason: Reason,
  },
  { additionalProperties: false },
);
export type CabinetCommandBody = Static<typeof CabinetCommandBody>;
export const CabinetCommandSent = Type.Object({
  commandId: Type.String(),
  type: Type.String(),
  slot: Type.Union([Type.Integer(), Type.Null()]),
});
export type CabinetCommandSent = Static<typeof CabinetCommandSent>;

export const CabinetImportBody = Type.Object(
  {
    csv: Type.String({
      maxLength: 2_000_000,
      description: 'header id,vendor,slots,venueId (vendor and venueId may be empty)',
    }),
    dryRun: Type.Boolean(),
    agentId: Type.Optional(Id),
    reason: Reason,
  },
  { additionalProperties: false },
);
export type CabinetImportBody = Static<typeof CabinetImportBody>;
export { CabinetImportReport, FieldIssue };

/** The live stream's events: `cabinet` names one that changed (read it again); `resync`: read everything again. */
export const CabinetLiveEvent = Type.Union([
  Type.Object({ kind: Type.Literal('cabinet'), id: Type.String() }),
  Type.Object({ kind: Type.Literal('resync') }),
]);
export type CabinetLiveEvent = Static<typeof CabinetLiveEvent>;
