-- Device kinds: a slot holds a power bank ('cdb'), a power station ('station', spec energyStorageFlag)
-- or a portable Wi-Fi box ('mifi'). Every existing row is a power bank. Each kind has its own price plan per venue.
alter table powerbanks add column kind text not null default 'cdb' check (kind in ('cdb', 'station', 'mifi'));
create index powerbanks_cabinet_kind on powerbanks (cabinet_id, kind, state);

alter table price_plans add column device_kind text not null default 'cdb' check (device_kind in ('cdb', 'station', 'mifi'));
alter table price_plans drop constraint price_plans_pkey;
alter table price_plans add primary key (venue_id, device_kind);

alter table orders add column device_kind text not null default 'cdb' check (device_kind in ('cdb', 'station', 'mifi'));
