-- A venue's banner image beside its logo (uploaded through the back office, kept by the media store and served at
-- /media/<key>); empty: none.
alter table venues add column banner_url text not null default '';
