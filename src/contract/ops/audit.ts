// The ops API's audit log (modules/audit): every back-office write, who, when, from where, what and why.
import { Type, type Static } from 'typebox';
import { Page, PageQuery } from './common.ts';

export const AuditEntry = Type.Object({
  id: Type.String(),
  at: Type.String(),
  staffId: Type.Optional(Type.String()),
  staffEmail: Type.Optional(Type.String()),
  ip: Type.Optional(Type.String()),
  userAgent: Type.Optional(Type.String()),
  action: Type.String(),
  entity: Type.String(),
  entityId: Type.String(),
  agentId: Type.Optional(Type.String()),
  before: Type.Optional(Type.Unknown()),
  after: Type.Optional(Type.Unknown()),
  reason: Type.Optional(Type.String()),
});
export type AuditEntry = Static<typeof AuditEntry>;
export const AuditPage = Page(AuditEntry);
export type AuditPage = Static<typeof AuditPage>;

export const AuditFilter = {
  entity: Type.Optional(Type.String({ maxLength: 40 })),
  entityId: Type.Optional(Type.String({ maxLength: 100 })),
  staffId: Type.Optional(Type.String({ pattern: '^[0-9]{1,18}$' })),
  action: Type.Optional(Type.String({ maxLength: 60 })),
  from: Type.Optional(Type.String({ format: 'date-time' })),
  to: Type.Optional(Type.String({ format: 'date-time' })),
};
export const AuditListQuery = Type.Object({ ...PageQuery, ...AuditFilter });
export type AuditListQuery = Static<typeof AuditListQuery>;
export const AuditExportQuery = Type.Object(AuditFilter);
