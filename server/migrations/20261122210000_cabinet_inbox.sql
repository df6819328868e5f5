-- The cabinet side: end-to-end delivery (protocol v2), inventory reconciliation, hot-path indexes.

-- cabinet_events becomes the inbox: an event is stored (pending) before the server acknowledges it to the
-- cabinet, then processed from here with retries; after too many failures it is 'dead' (an operator sees it with
-- `npm run cabinet:inbox`). Rows stored before this migration were processed in the same transaction: done.
alter table cabinet_events
  add column state text not null default 'done' check (state in ('pending', 'done', 'dead')),
  add column powerbank_id text,
  add column attempts integer not null default 0,
  add column next_attempt_at timestamptz,
  add column last_error text,
  add column processed_at timestamptz;
update cabinet_events set powerbank_id = payload->>'powerbankId', processed_at = received_at;
create index cabinet_events_due on cabinet_events (next_attempt_at) where state = 'pending';
create index cabinet_events_dead on cabinet_events (received_at) where state = 'dead';
-- "power bank in events": the returned-before-popped lookup (returnAfter) and an operator's history of a bank.
create index cabinet_events_powerbank on cabinet_events (powerbank_id, cabinet_ts) where powerbank_id is not null;
-- Retention sweeps done events by age.
create index cabinet_events_processed on cabinet_events (processed_at) where state = 'done';

-- Messages the server refused without storing (unknown protocol version, malformed, unknown cabinet): counted per
-- cabinet and reason, with the last payload, for an operator. Not acknowledged, so a cabinet keeps them.
create table cabinet_rejects (
  cabinet_id text not null,
  reason text not null,
  count bigint not null default 0,
  first_at timestamptz not null,
  last_at timestamptz not null,
  last_payload text,
  primary key (cabinet_id, reason)
);

-- Power banks: what cabinets report is the truth. 'missing': not in the slot its cabinet last reported and on no
-- rental; 'quarantined': reported by a cabinet but unknown to us (never lent until an operator releases it).
-- seen_at: the cabinet time of the report that set the current place (a late 'popped' never overrides a later
-- return).
alter table powerbanks drop constraint powerbanks_state_check;
alter table powerbanks add constraint powerbanks_state_check check (state in ('in_cabinet', 'rented', 'missing', 'quarantined'));
alter table powerbanks add column seen_at timestamptz;
create index powerbanks_cabinet on powerbanks (cabinet_id, state);

-- The hot paths of the cabinet link and the rental.
-- Pending orders per cabinet (each unanswered eject reserves a power bank).
create index orders_cabinet_pending on orders (cabinet_id) where zujie = 0;
-- Ledger transfers by account (balances, movements) and by order (receipts, refunds).
create index ledger_transfers_debit on ledger_transfers (debit_account_id, created_at);
create index ledger_transfers_credit on ledger_transfers (credit_account_id, created_at);
create index ledger_transfers_order on ledger_transfers (order_id) where order_id is not null;
-- Provider references (webhooks and replays find a payment / withdrawal by the provider's id).
create index payments_provider_ref on payments (provider, provider_ref) where provider_ref is not null;
create index withdrawals_provider_ref on withdrawals (provider, provider_ref) where provider_ref is not null;
create index payments_order on payments (order_id) where order_id is not null;
-- Jobs cancelled or looked up by the order in their payload.
create index jobs_payload_order on jobs (kind, (payload->>'orderId')) where done_at is null;
-- Commands retention and re-publishing after a reconnect.
create index cabinet_commands_created on cabinet_commands (created_at);
