-- Wi-Fi packages edited in the console (modules/mifi, docs/operations.md "The Wi-Fi line"): a name per language
-- (name stays the default), on sale or not (a package taken off sale is neither listed nor sold; packages already
-- bought keep running), and a version for optimistic concurrency.
alter table mifi_skus
  add column names jsonb not null default '{}',
  add column enabled boolean not null default true,
  add column version integer not null default 1;
