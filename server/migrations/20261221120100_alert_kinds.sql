-- The alerts' remaining conditions (modules/alerts, docs/operations.md "Alerts"): low charge across a cabinet, slot
-- faults, a payment provider's error rate, failed payouts.
alter table alert_rules drop constraint alert_rules_kind_check;
alter table alert_rules add constraint alert_rules_kind_check
  check (kind in ('cabinet_offline', 'low_stock', 'full', 'dead_jobs', 'low_charge', 'slot_faults', 'provider_errors', 'failed_payouts'));
