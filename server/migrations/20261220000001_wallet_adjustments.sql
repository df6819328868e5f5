-- A wallet credit or debit made by the back office, under four eyes (owned by wallet, modules/wallet/adjustments.ts):
-- one member of staff requests it (amount, currency, the rider's wallet with one agent, the reason); a different
-- member of staff approves it, and only then does it move in the ledger (transfer_id, once), or rejects it. The
-- requester's retry of the same request (their idempotency key) answers the stored row.
create table wallet_adjustments (
  id bigserial primary key,
  user_id bigint not null references users(id),
  agent_id text not null,
  currency char(3) not null,
  direction text not null check (direction in ('credit', 'debit')),
  amount bigint not null check (amount > 0),
  reason text not null,
  state text not null check (state in ('pending', 'approved', 'rejected')),
  requested_by bigint not null references staff(id),
  requested_email text not null,
  idempotency_key text not null,
  request_hash text not null,
  decided_by bigint references staff(id),
  decided_email text,
  decision_note text,
  transfer_id text references ledger_transfers(id),
  created_at timestamptz not null,
  decided_at timestamptz,
  unique (requested_by, idempotency_key),
  check ((state = 'pending') = (decided_by is null)),
  check ((state = 'approved') = (transfer_id is not null)),
  check (decided_by is null or decided_by <> requested_by)
);
create index wallet_adjustments_state on wallet_adjustments (state, created_at, id);
create index wallet_adjustments_user on wallet_adjustments (user_id, created_at desc);
