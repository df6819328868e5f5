-- Cabinets in the back office (server/src/modules/cabinets/ops.ts).
--
-- The agent a cabinet belongs to: set when it is registered (a cabinet may wait for its venue in a warehouse) and
-- kept equal to its venue's agent when it is assigned; the ops API's scope reads it. A version for optimistic
-- concurrency (every change names the version it read).
alter table cabinets
  add column agent_id text references agents(id),
  add column version integer not null default 1;
update cabinets c set agent_id = v.agent_id from venues v where v.id = c.venue_id and v.agent_id is not null;
create index cabinets_agent on cabinets (agent_id) where agent_id is not null;

-- The live view of the console: every change an operator watches (online, heartbeat, inventory with charge,
-- temperature and faults, venue, the devices in the slots) is announced on powerly_fleet_<schema> with the
-- cabinet's id; each API process hands it to the event streams it holds, which read the cabinet again. A NOTIFY
-- is delivered when its transaction commits (one per cabinet and transaction: PostgreSQL folds repeats).
create function powerly_fleet_notify(cabinet_id text) returns void language plpgsql as $$
begin
  perform pg_notify(left('powerly_fleet_' || regexp_replace(lower(current_schema()), '[^a-z0-9_]', '_', 'g'), 63), cabinet_id);
end $$;

create function powerly_fleet_changed() returns trigger language plpgsql as $$
begin
  if tg_table_name = 'cabinets' then
    if tg_op <> 'INSERT' then perform powerly_fleet_notify(old.id); end if;
    if tg_op <> 'DELETE' then perform powerly_fleet_notify(new.id); end if;
  else
    if tg_op <> 'INSERT' and old.cabinet_id is not null then perform powerly_fleet_notify(old.cabinet_id); end if;
    if tg_op <> 'DELETE' and new.cabinet_id is not null then perform powerly_fleet_notify(new.cabinet_id); end if;
  end if;
  return null;
end $$;

create trigger cabinets_fleet_live after insert or update or delete on cabinets
  for each row execute function powerly_fleet_changed();
create trigger powerbanks_fleet_live after insert or delete on powerbanks
  for each row execute function powerly_fleet_changed();
create trigger powerbanks_fleet_live_update after update on powerbanks
  for each row when (old.cabinet_id is distinct from new.cabinet_id or old.slot is distinct from new.slot or old.state is distinct from new.state)
  execute function powerly_fleet_changed();
-- A command's answer (acked, popped, refused) changes what the live view shows of it.
create trigger cabinet_commands_fleet_live after insert or update on cabinet_commands
  for each row execute function powerly_fleet_changed();
