-- Invitations an admin can list and revoke, and invitations that sign in by single sign-on instead of a passkey.
-- id: the invitation's public id (the token's hash stays private). sign_in: 'passkey' (the link creates a passkey)
-- or 'sso' (the identity provider's verified e-mail accepts it at the first single sign-on). revoked_*: revoked by
-- whom and when; a revoked invitation can no longer be accepted.
alter table staff_invitations add column id bigserial;
alter table staff_invitations add constraint staff_invitations_id_key unique (id);
alter table staff_invitations add column sign_in text not null default 'passkey' check (sign_in in ('passkey', 'sso'));
alter table staff_invitations add column revoked_at timestamptz;
alter table staff_invitations add column revoked_by bigint references staff(id);
create index staff_invitations_pending on staff_invitations (lower(email)) where accepted_at is null and revoked_at is null;
