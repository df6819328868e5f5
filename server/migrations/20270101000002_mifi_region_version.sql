-- A Wi-Fi region's version: an operator's change names the version it read (a save after another one is refused).
alter table mifi_regions add column version integer not null default 1;
