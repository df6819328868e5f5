-- The scan's cache (server/src/modules/cabinets/scan-cache.ts): every change that can alter a scan's answer is
-- announced on the channel powerly_scan_<schema>, whatever made it (a route, a job, a cabinet event, an operator's
-- SQL). A NOTIFY inside a transaction is delivered when it commits, never for a rollback. Payloads:
--   s:<token_hash>  a session was revoked, changed or deleted
--   u:<user id>     a user's wallet account or open rentals changed
--   c:<cabinet id>  a cabinet's state (online, slots, venue) or the devices in it changed
--   *               a venue or a price plan changed (rare: every cached scan is dropped)
-- A heartbeat that only moves last_seen_at announces nothing: the cache applies the liveness rule to the
-- last_seen_at it holds and reads again once that is too old (liveness.ts).

create function powerly_scan_notify(payload text) returns void language plpgsql as $$
begin
  perform pg_notify(left('powerly_scan_' || regexp_replace(lower(current_schema()), '[^a-z0-9_]', '_', 'g'), 63), payload);
end $$;

create function powerly_scan_changed() returns trigger language plpgsql as $$
begin
  if tg_table_name = 'sessions' then
    perform powerly_scan_notify('s:' || old.token_hash);
  elsif tg_table_name = 'ledger_accounts' then
    if tg_op <> 'INSERT' and old.owner_type = 'user' then perform powerly_scan_notify('u:' || old.owner_id); end if;
    if tg_op <> 'DELETE' and new.owner_type = 'user' then perform powerly_scan_notify('u:' || new.owner_id); end if;
  elsif tg_table_name = 'orders' then
    if tg_op <> 'INSERT' then perform powerly_scan_notify('u:' || old.user_id); end if;
    if tg_op <> 'DELETE' then perform powerly_scan_notify('u:' || new.user_id); end if;
  elsif tg_table_name = 'cabinets' then
    if tg_op <> 'INSERT' then perform powerly_scan_notify('c:' || old.id); end if;
    if tg_op <> 'DELETE' then perform powerly_scan_notify('c:' || new.id); end if;
  elsif tg_table_name = 'powerbanks' then
    if tg_op <> 'INSERT' and old.cabinet_id is not null then perform powerly_scan_notify('c:' || old.cabinet_id); end if;
    if tg_op <> 'DELETE' and new.cabinet_id is not null then perform powerly_scan_notify('c:' || new.cabinet_id); end if;
  else
    perform powerly_scan_notify('*');
  end if;
  return null;
end $$;

create trigger sessions_scan after update or delete on sessions
  for each row execute function powerly_scan_changed();

create trigger ledger_accounts_scan after insert or update or delete on ledger_accounts
  for each row execute function powerly_scan_changed();

create trigger orders_scan_new after insert or delete on orders
  for each row execute function powerly_scan_changed();
create trigger orders_scan after update on orders
  for each row when (old.user_id is distinct from new.user_id or old.zujie is distinct from new.zujie or old.settled is distinct from new.settled)
  execute function powerly_scan_changed();

create trigger cabinets_scan_new after insert or delete on cabinets
  for each row execute function powerly_scan_changed();
create trigger cabinets_scan after update on cabinets
  for each row when (old.id is distinct from new.id or old.online is distinct from new.online or old.slot_count is distinct from new.slot_count or old.venue_id is distinct from new.venue_id)
  execute function powerly_scan_changed();

create trigger powerbanks_scan_new after insert or delete on powerbanks
  for each row execute function powerly_scan_changed();
create trigger powerbanks_scan after update on powerbanks
  for each row when (old.cabinet_id is distinct from new.cabinet_id or old.state is distinct from new.state or old.kind is distinct from new.kind)
  execute function powerly_scan_changed();

create trigger venues_scan after insert or update or delete on venues
  for each statement execute function powerly_scan_changed();
create trigger price_plans_scan after insert or update or delete on price_plans
  for each statement execute function powerly_scan_changed();
