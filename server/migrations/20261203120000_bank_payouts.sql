-- Bank withdrawals (SEPA, ACH, manual bank transfer): paid by a real payout adapter (a rail), or awaiting payout
-- until an operator records the reference of the bank transfer. Their money leaves the wallet into the platform
-- account of payouts in transit at request, and leaves that account when paid (or goes back to the wallet when
-- rejected).
alter table withdrawals drop constraint withdrawals_status_check;
alter table withdrawals add constraint withdrawals_status_check
  check (status in ('pending', 'awaiting_payout', 'paid', 'rejected', 'manual_review'));
alter table withdrawals add column bank boolean not null default false;
-- The reference of the payout at the bank (or at the rail), who settled it (a rail id or an operator) and why.
alter table withdrawals add column bank_reference text;
alter table withdrawals add column settled_by text;
alter table withdrawals add column settle_reason text;
alter table withdrawals add column settle_transfer_id text references ledger_transfers(id);
create index withdrawals_awaiting_payout on withdrawals (created_at) where status = 'awaiting_payout';
