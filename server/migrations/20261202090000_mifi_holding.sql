-- A box's holding: when a package's box was handed over and when it came back. A box's data (telemetry, traffic,
-- its Wi-Fi network) is shown only to its current holder, for their own holding.
alter table mifi_packages add column bound_at timestamptz;
alter table mifi_packages add column returned_at timestamptz;
-- The Wi-Fi password rotates at each handover: the new one is kept pending (and not shown) until the box confirms it.
alter table mifi_boxes add column pending_password text;
alter table mifi_boxes add column password_command_id text;
alter table mifi_boxes add column password_changed_at timestamptz;
-- Packages handed a box before: their holding from their purchase, to their end once the box came back.
update mifi_packages set bound_at = created_at where device_sn is not null and device_order_status in (1, 3) and renewal_of is null;
update mifi_packages set returned_at = coalesce(ended_at, end_at) where device_order_status = 3;
