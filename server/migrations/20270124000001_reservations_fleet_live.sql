-- A held return reservation changes what a venue can take back (modules/venues/repository.ts RETURN_SLOTS): its
-- changes (held, used, cancelled, expired) are announced on the fleet channel with the cabinet's id, as every other
-- change of a cabinet is (migration 20261211120000_cabinet_ops.sql), so a rider's venue page following the venue
-- (GET live/shop, modules/live/shop-stream.ts) hears that a slot was kept or given back, its expiry included.
create trigger return_reservations_fleet_live after insert or update or delete on return_reservations
  for each row execute function powerly_fleet_changed();
