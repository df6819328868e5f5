-- The back office (modules/staff, modules/audit): staff are people of the platform, of an agent or of a venue
-- partner; they are not riders (users) and sign in with passkeys or single sign-on, never with a rider's session.

create table staff (
  id bigserial primary key,
  email text not null,
  name text not null,
  disabled_at timestamptz,
  version integer not null default 1,             -- optimistic concurrency: If-Match "v<version>"
  created_at timestamptz not null default now()
);
create unique index staff_email on staff (lower(email));

-- One role per agent. agent_id '*' is the platform (every agent). venue_ids: a venue partner's venues.
create table staff_memberships (
  staff_id bigint not null references staff(id),
  agent_id text not null,
  role text not null check (role in ('owner', 'admin', 'support', 'finance', 'field_technician', 'read_only', 'venue_partner')),
  venue_ids text[] not null default '{}',
  primary key (staff_id, agent_id)
);

create table staff_sessions (
  token_hash text primary key,                    -- sha256 of the cookie's value; the value itself is never stored
  staff_id bigint not null references staff(id),
  method text not null,                           -- passkey | oidc | invitation
  ip text,
  user_agent text,
  created_at timestamptz not null,
  last_seen_at timestamptz not null,
  expires_at timestamptz not null                 -- the absolute end; the idle timeout counts from last_seen_at
);
create index staff_sessions_staff on staff_sessions (staff_id);

create table staff_invitations (
  token_hash text primary key,
  email text not null,
  name text not null,
  agent_id text not null,
  role text not null,
  venue_ids text[] not null default '{}',
  invited_by bigint not null references staff(id),
  created_at timestamptz not null,
  expires_at timestamptz not null,
  accepted_at timestamptz,
  staff_id bigint references staff(id)
);

create table staff_passkeys (
  credential_id text primary key,                 -- base64url
  staff_id bigint not null references staff(id),
  public_key bytea not null,                      -- COSE public key
  counter bigint not null default 0,
  transports text[] not null default '{}',
  label text not null default '',
  created_at timestamptz not null,
  last_used_at timestamptz
);
create index staff_passkeys_staff on staff_passkeys (staff_id);

-- WebAuthn challenges and single sign-on states waiting for their answer (any API process may get it).
create table staff_ceremonies (
  id text primary key,                            -- the ceremony cookie's value (random)
  kind text not null,                             -- passkey-register | passkey-login | oidc
  challenge text not null,                        -- WebAuthn challenge, or the OIDC state
  staff_id bigint references staff(id),
  verifier text,                                  -- OIDC: PKCE code verifier
  nonce text,
  expires_at timestamptz not null
);

-- The audit log: every write of the back office, who, when, from where, what (before and after) and why.
-- Append-only: the trigger below refuses UPDATE, DELETE and TRUNCATE for every role, the table owner's included.
create table audit_log (
  id bigserial primary key,
  at timestamptz not null,
  staff_id bigint,
  staff_email text,
  ip text,
  user_agent text,
  action text not null,
  entity text not null,
  entity_id text not null,
  agent_id text,
  before jsonb,
  after jsonb,
  reason text
);
create index audit_log_at on audit_log (at desc, id desc);
create index audit_log_entity on audit_log (entity, entity_id);
create index audit_log_staff on audit_log (staff_id);

create function audit_log_append_only() returns trigger language plpgsql as $$
begin
  raise exception 'audit_log is append-only: % refused', tg_op using errcode = '42501';
end $$;

create trigger audit_log_no_update before update or delete on audit_log
  for each row execute function audit_log_append_only();
create trigger audit_log_no_truncate before truncate on audit_log
  for each statement execute function audit_log_append_only();

-- No role but the owner may change rows (docs/operations.md: run the API as a role that does not own the tables).
revoke update, delete, truncate on audit_log from public;
