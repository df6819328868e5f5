-- Ejects a vendor gateway sent to a cabinet of its family, recorded before the frame leaves and removed once the
-- outcome (popped / pop-failed) is in the inbox. A gateway process killed between the two leaves the row: when the
-- cabinet logs in again (or the eject is re-published), the gateway settles it from the cabinet's inventory (the
-- power bank gone: popped; still there: pop-failed), so no rental waits for an answer that died with the process.
create table vendor_ejects (
  command_id text primary key,
  cabinet_id text not null references cabinets (id) on delete cascade,
  slot integer,
  powerbank_id text,
  sent_at timestamptz not null
);
create index vendor_ejects_cabinet on vendor_ejects (cabinet_id);
