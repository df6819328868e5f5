-- The country a venue is in (ISO 3166-1 alpha-2; the scan answers it, so the Wi-Fi mall opens on the cabinet's
-- country), taken from its agent where the agent names one; and the agent setting that every deposit at the
-- agent's cabinets is paid, never taken from a wallet that covers the deposit but not the overtime fee.
alter table venues add column country char(2);
update venues v set country = a.country from agents a where a.id = v.agent_id and a.country is not null;
alter table agents add column deposit_by_payment boolean not null default false;

-- The scan answers the agent's country and deposit setting: a change to an agent drops the cached scans, as a
-- venue's change does (scan-cache.ts).
create trigger agents_scan after insert or update or delete on agents
  for each statement execute function powerly_scan_changed();
