// Cabinets and their devices: registering, assigning, importing by CSV, and the live view the ops API answers.
import { Type, type Static } from 'typebox';
import { DeviceKind, Id } from './fields.ts';

export const CabinetRegister = Type.Object(
  {
    id: Type.String({
      pattern: '^[A-Za-z0-9._-]{1,64}$',
      description: 'the serial printed on the cabinet (its QR code and broker username)',
    }),
    vendor: Type.Optional(
      Type.String({
        pattern: '^[a-z0-9-]{1,40}$',
        description: "the vendor family whose protocol it speaks (default 'powerly')",
      }),
    ),
    slots: Type.Integer({ minimum: 1, maximum: 200 }),
    venueId: Type.Optional(Type.Union([Id, Type.Null()])),
  },
  { additionalProperties: false },
);
export type CabinetRegister = Static<typeof CabinetRegister>;
export const CabinetAssign = Type.Object({ venueId: Type.Union([Id, Type.Null()]) }, { additionalProperties: false });
export const DeviceRegister = Type.Object(
  {
    id: Type.String({ pattern: '^[A-Za-z0-9._-]{1,64}$' }),
    kind: Type.Optional(DeviceKind),
    cabinetId: Type.String({ minLength: 1, maxLength: 64 }),
    slot: Type.Integer({ minimum: 1, maximum: 200 }),
  },
  { additionalProperties: false },
);
export type DeviceRegister = Static<typeof DeviceRegister>;
export const CabinetSlot = Type.Object({
  slot: Type.Integer(),
  deviceId: Type.Union([Type.String(), Type.Null()]),
  kind: Type.Union([DeviceKind, Type.Null()]),
  state: Type.Union([Type.String(), Type.Null()], { description: 'in_cabinet, quarantined (null: empty)' }),
  charge: Type.Union([Type.Integer(), Type.Null()], { description: 'battery in percent, as last reported' }),
});
export const CabinetLive = Type.Object({
  id: Type.String(),
  vendor: Type.String(),
  venueId: Type.Union([Type.String(), Type.Null()]),
  venueName: Type.Union([Type.String(), Type.Null()]),
  slotCount: Type.Integer(),
  online: Type.Boolean({ description: 'online by its status and heard from recently' }),
  lastHeartbeatAt: Type.Union([Type.String(), Type.Null()]),
  hasCredentials: Type.Boolean(),
  slots: Type.Array(CabinetSlot),
});
export type CabinetLive = Static<typeof CabinetLive>;
export const CabinetCredentials = Type.Object({
  username: Type.String(),
  password: Type.String({ description: 'shown once; only a hash is stored' }),
});
/** A refused field: where, which field, a message key (locales/server `error.field.<code>`) and its English text. */
export const FieldIssue = Type.Object({
  row: Type.Optional(Type.Integer({ description: 'CSV line number (1 = the header)' })),
  field: Type.String(),
  code: Type.String(),
  message: Type.String(),
});
export type FieldIssue = Static<typeof FieldIssue>;
export const CabinetImportRequest = Type.Object(
  {
    csv: Type.String({
      maxLength: 2_000_000,
      description: 'header id,vendor,slots,venueId (vendor and venueId may be empty)',
    }),
    dryRun: Type.Boolean(),
  },
  { additionalProperties: false },
);
export const CabinetImportReport = Type.Object({
  rows: Type.Integer(),
  imported: Type.Integer({ description: '0 on a dry run or when any row is bad' }),
  issues: Type.Array(FieldIssue),
});
export type CabinetImportReport = Static<typeof CabinetImportReport>;
