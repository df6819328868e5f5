-- A rider blocked by support or an admin (back office): cannot rent nor buy a Wi-Fi package until unblocked; the
-- reason is told to the rider. Who and why are also in the audit log.
alter table users add column blocked_at timestamptz;
alter table users add column blocked_reason text;
alter table users add column blocked_by text;
