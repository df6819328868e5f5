-- Bank payouts approved by a person in the back office: who approved the payout through its rail, and when (the
-- withdrawals queue answers a second approval by someone else with a conflict, a repeat of one's own as it is).
alter table withdrawals add column approved_by text;
alter table withdrawals add column approved_at timestamptz;
-- The withdrawals queue lists bank withdrawals by state, oldest first.
create index withdrawals_bank_state on withdrawals (status, created_at, id) where bank;
