-- The token secrets of cabinets of the binary TCP family, one per cabinet, issued and rotated by an operator
-- (`npm run cabinet:credentials`, or the console's live view). The family signs every frame with
-- MD5(payload ‖ secret), so the server needs the secret itself, not a hash: it is kept sealed with AES-256-GCM under
-- a key derived from CABINET_SECRETS_KEY (the cabinet id as associated data), never in clear.
create table cabinet_token_secrets (
  cabinet_id text primary key references cabinets (id) on delete cascade,
  sealed text not null,
  created_at timestamptz not null
);
