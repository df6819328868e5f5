// The ops API's staff identity (modules/staff): sign-in with a passkey or single sign-on, the session, staff and
// their memberships, invitations, passkeys. WebAuthn option and response objects are SimpleWebAuthn's JSON forms.
import { Type, type Static } from 'typebox';
import type {
  AuthenticationResponseJSON, PublicKeyCredentialCreationOptionsJSON, PublicKeyCredentialRequestOptionsJSON, RegistrationResponseJSON,
} from '@simplewebauthn/browser';
import { PERMISSIONS, STAFF_ROLES, type Permission, type StaffRole as StaffRoleName } from '../../core/opsAccess.ts';
import { Page, PageQuery, Reason } from './common.ts';

export const StaffRole = Type.Unsafe<StaffRoleName>(Type.String({ enum: [...STAFF_ROLES] }));
export const PermissionName = Type.Unsafe<Permission>(Type.String({ enum: [...PERMISSIONS] }));

export const MembershipShape = Type.Object({
  agentId: Type.String({ minLength: 1, maxLength: 64, description: "an agent's id, or '*' for the platform (every agent)" }),
  role: StaffRole,
  venueIds: Type.Array(Type.String({ maxLength: 64 }), { maxItems: 200, description: "a venue partner's venues" }),
});
export type MembershipShape = Static<typeof MembershipShape>;

export const Me = Type.Object({
  id: Type.String(),
  email: Type.String(),
  name: Type.String(),
  memberships: Type.Array(MembershipShape),
  permissions: Type.Array(PermissionName),
  passkeys: Type.Integer(),
});
export type Me = Static<typeof Me>;

/** GET /session: who is signed in (or nobody) and the CSRF token every unsafe request sends as X-CSRF-Token. */
export const SessionState = Type.Object({
  csrf: Type.String(),
  me: Type.Optional(Me),
  sso: Type.Boolean({ description: 'single sign-on is configured' }),
});
export type SessionState = Static<typeof SessionState>;

/** WebAuthn options (PublicKeyCredentialCreationOptionsJSON / …RequestOptionsJSON). */
export const WebAuthnOptions = Type.Unsafe<PublicKeyCredentialCreationOptionsJSON | PublicKeyCredentialRequestOptionsJSON>(Type.Object({}, { additionalProperties: true }));
/** The browser's answer (RegistrationResponseJSON / AuthenticationResponseJSON). */
export const WebAuthnResponse = Type.Unsafe<RegistrationResponseJSON | AuthenticationResponseJSON>(
  Type.Object({ id: Type.String({ maxLength: 1400 }), response: Type.Object({}, { additionalProperties: true }) }, { additionalProperties: true }),
);

export const PasskeyLoginVerify = Type.Object({ credential: WebAuthnResponse });
export const PasskeyRegisterVerify = Type.Object({ credential: WebAuthnResponse, label: Type.Optional(Type.String({ maxLength: 80 })) });
export type PasskeyRegisterVerify = Static<typeof PasskeyRegisterVerify>;

export const PasskeyShape = Type.Object({ id: Type.String(), label: Type.String(), createdAt: Type.String(), lastUsedAt: Type.Optional(Type.String()) });
export type PasskeyShape = Static<typeof PasskeyShape>;

export const StaffShape = Type.Object({
  id: Type.String(),
  email: Type.String(),
  name: Type.String(),
  disabled: Type.Boolean(),
  version: Type.Integer(),
  memberships: Type.Array(MembershipShape),
});
export type StaffShape = Static<typeof StaffShape>;
export const StaffPage = Page(StaffShape);
export type StaffPage = Static<typeof StaffPage>;

export const StaffListQuery = Type.Object({
  ...PageQuery,
  q: Type.Optional(Type.String({ maxLength: 100, description: 'part of the name or e-mail' })),
  agentId: Type.Optional(Type.String({ maxLength: 64 })),
  sort: Type.Optional(Type.Union([Type.Literal('name'), Type.Literal('-name'), Type.Literal('email'), Type.Literal('-email')])),
});
export type StaffListQuery = Static<typeof StaffListQuery>;

export const StaffIdParams = Type.Object({ id: Type.String({ pattern: '^[0-9]{1,18}$' }) });

export const InvitationCreate = Type.Object({
  email: Type.String({ format: 'email', maxLength: 254 }),
  name: Type.String({ minLength: 1, maxLength: 120 }),
  membership: MembershipShape,
  reason: Reason,
});
export type InvitationCreate = Static<typeof InvitationCreate>;
export const InvitationCreated = Type.Object({ email: Type.String(), expiresAt: Type.String() });

/** Changing a person: name, disabled, memberships (replaces those inside the caller's scope). Needs If-Match. */
export const StaffUpdate = Type.Object({
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 120 })),
  disabled: Type.Optional(Type.Boolean()),
  reason: Reason,
});
export type StaffUpdate = Static<typeof StaffUpdate>;

export const InvitationToken = Type.Object({ token: Type.String({ minLength: 20, maxLength: 100 }) });
export const InvitationInfo = Type.Object({ email: Type.String(), name: Type.String() });
export const InvitationAccept = Type.Object({ token: Type.String({ minLength: 20, maxLength: 100 }), credential: WebAuthnResponse });
