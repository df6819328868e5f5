-- Always a place to return (modules/rentals/grace.ts, modules/cabinets/reservations.ts).
--
-- Grace periods: when no cabinet within the agent's radius of the rider is open with a free slot, the rider may ask
-- for a grace period that pauses the rental (its fee, its buy-out and the reminders before them) until the next
-- opening nearby. Each granted period is recorded on the order: [{ "from", "until", "reason", "radiusM",
-- "nearest": { "shopId", "name", "distanceM", "opensAt" } | null, "at" }], oldest first. The pricing rule
-- (src/core/pricing.ts) does not count the time inside them.
alter table orders add column grace jsonb not null default '[]';

-- Per agent: the radius searched for a place to return (metres), how long a grace period lasts when nothing nearby
-- opens at a known time (minutes), the longest one, and the time zone of its venues' opening hours.
alter table agent_return_settings
  add column grace_radius_m integer not null default 2000 check (grace_radius_m between 100 and 100000),
  add column grace_minutes integer not null default 60 check (grace_minutes between 5 and 1440),
  add column grace_max_minutes integer not null default 720 check (grace_max_minutes between 5 and 2880),
  add column time_zone text not null default 'UTC';

-- A held return reservation keeps its slot from every other rider's scan: the scan's cache
-- (modules/cabinets/scan-cache.ts) hears of each change of one, as of the cabinet's own ('c:<cabinet id>').
create function powerly_scan_reservation_changed() returns trigger language plpgsql as $$
begin
  if tg_op <> 'INSERT' then perform powerly_scan_notify('c:' || old.cabinet_id); end if;
  if tg_op <> 'DELETE' then perform powerly_scan_notify('c:' || new.cabinet_id); end if;
  return null;
end $$;

create trigger return_reservations_scan after insert or update or delete on return_reservations
  for each row execute function powerly_scan_reservation_changed();
