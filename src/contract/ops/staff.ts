// The ops API's staff identity (modules/staff): sign-in with a passkey or single sign-on, the session, staff and
// their memberships, invitations, passkeys. WebAuthn option and response objects are SimpleWebAuthn's JSON forms.
import { Type, type Static } from 'typebox';
import type {
  AuthenticationResponseJSON,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
} from '@simplewebauthn/browser';
import { PERMISSIONS, STAFF_ROLES, type Permission, type StaffRole as StaffRoleName } from '../../core/opsAccess.ts';
import { Page, PageQuery, Reason } from './common.ts';

export const StaffRole = Type.Unsafe<StaffRoleName>(Type.String({ enum: [...STAFF_ROLES] }));
export const PermissionName = Type.Unsafe<Permission>(Type.String({ enum: [...PERMISSIONS] }));

export const MembershipShape = Type.Object({
  agentId: Type.String({
    minLength: 1,
    maxLength: 64,
    description: "an agent's id, or '*' for the platform (every agent)",
  }),
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
  /** The person's version (If-Match "v<version>" when they end a membership of their own). */
  version: Type.Optional(Type.Integer()),
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
export const WebAuthnOptions = Type.Unsafe<
  PublicKeyCredentialCreationOptionsJSON | PublicKeyCredentialRequestOptionsJSON
>(Type.Object({}, { additionalProperties: true }));
/** The browser's answer (RegistrationResponseJSON / AuthenticationResponseJSON). */
export const WebAuthnResponse = Type.Unsafe<RegistrationResponseJSON | AuthenticationResponseJSON>(
  Type.Object(
    { id: Type.String({ maxLength: 1400 }), response: Type.Object({}, { additionalProperties: true }) },
    { additionalProperties: true },
  ),
);

export const PasskeyLoginVerify = Type.Object({ credential: WebAuthnResponse });
export const PasskeyRegisterVerify = Type.Object({
  credential: WebAuthnResponse,
  label: Type.Optional(Type.String({ maxLength: 80 })),
});
export type PasskeyRegisterVerify = Static<typeof PasskeyRegisterVerify>;

export const PasskeyShape = Type.Object({
  id: Type.String(),
  label: Type.String(),
  createdAt: Type.String(),
  lastUsedAt: Type.Optional(Type.String()),
});
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
  sort: Type.Optional(
    Type.Union([Type.Literal('name'), Type.Literal('-name'), Type.Literal('email'), Type.Literal('-email')]),
  ),
});
export type StaffListQuery = Static<typeof StaffListQuery>;

export const StaffIdParams = Type.Object({ id: Type.String({ pattern: '^[0-9]{1,18}$' }) });

/** How an invited person signs in: a passkey made through the e-mailed link, or single sign-on with that e-mail. */
export const INVITATION_SIGN_IN = ['passkey', 'sso'] as const;
export type InvitationSignIn = (typeof INVITATION_SIGN_IN)[number];
const SignIn = Type.Union([Type.Literal('passkey'), Type.Literal('sso')]);

export const InvitationCreate = Type.Object({
  email: Type.String({ format: 'email', maxLength: 254 }),
  name: Type.String({ minLength: 1, maxLength: 120 }),
  membership: MembershipShape,
  signIn: Type.Optional(
    Type.Union([Type.Literal('passkey'), Type.Literal('sso')], {
      description:
        "passkey (default): the e-mailed link creates a passkey; sso: the person's first single sign-on with this e-mail accepts it (400 when single sign-on is not configured)",
    }),
  ),
  reason: Reason,
});
export type InvitationCreate = Static<typeof InvitationCreate>;
export const InvitationCreated = Type.Object({ id: Type.String(), email: Type.String(), expiresAt: Type.String() });

export const INVITATION_STATES = ['pending', 'accepted', 'revoked', 'expired'] as const;
export const InvitationShape = Type.Object({
  id: Type.String(),
  email: Type.String(),
  name: Type.String(),
  membership: MembershipShape,
  signIn: SignIn,
  state: Type.Union([
    Type.Literal('pending'),
    Type.Literal('accepted'),
    Type.Literal('revoked'),
    Type.Literal('expired'),
  ]),
  invitedBy: Type.String({ description: 'the e-mail of the person who invited' }),
  createdAt: Type.String(),
  expiresAt: Type.String(),
});
export type InvitationShape = Static<typeof InvitationShape>;
export const InvitationPage = Page(InvitationShape);
export type InvitationPage = Static<typeof InvitationPage>;
export const InvitationListQuery = Type.Object({
  ...PageQuery,
  state: Type.Optional(
    Type.Union([Type.Literal('pending'), Type.Literal('accepted'), Type.Literal('revoked'), Type.Literal('expired')], {
      description: 'only invitations in this state',
    }),
  ),
  q: Type.Optional(Type.String({ maxLength: 100, description: 'part of the e-mail or name' })),
  agentId: Type.Optional(Type.String({ maxLength: 64 })),
});
export type InvitationListQuery = Static<typeof InvitationListQuery>;
export const InvitationIdParams = Type.Object({ id: Type.String({ pattern: '^[0-9]{1,18}$' }) });
export const InvitationRevoke = Type.Object({ reason: Reason }, { additionalProperties: false });

/** A person's role at one agent, changed (or a new membership at an agent in the caller's scope). Needs If-Match. */
export const MembershipParams = Type.Object({
  id: Type.String({ pattern: '^[0-9]{1,18}$' }),
  agentId: Type.String({ minLength: 1, maxLength: 64 }),
});
export const MembershipChange = Type.Object(
  {
    role: StaffRole,
    venueIds: Type.Array(Type.String({ maxLength: 64 }), {
      maxItems: 200,
      description: "a venue partner's venues (empty for every other role)",
    }),
    reason: Reason,
  },
  { additionalProperties: false },
);
export type MembershipChange = Static<typeof MembershipChange>;

/** Ending one membership of a person (their others and their account stay). Needs If-Match. */
export const MembershipEnd = Type.Object({ reason: Reason }, { additionalProperties: false });
export type MembershipEnd = Static<typeof MembershipEnd>;

/** Changing a person: name, disabled, memberships (replaces those inside the caller's scope). Needs If-Match. */
export const StaffUpdate = Type.Object({
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 120 })),
  disabled: Type.Optional(Type.Boolean()),
  reason: Reason,
});
export type StaffUpdate = Static<typeof StaffUpdate>;

export const InvitationToken = Type.Object({ token: Type.String({ minLength: 20, maxLength: 100 }) });
export const InvitationInfo = Type.Object({ email: Type.String(), name: Type.String() });
export const InvitationAccept = Type.Object({
  token: Type.String({ minLength: 20, maxLength: 100 }),
  credential: WebAuthnResponse,
});
