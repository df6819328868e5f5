-- Geographic search of venues (cdb/shop/listnear): a btree on (lat, lng) serves the bounding-box prefilter
-- (one or two longitude ranges when the view crosses the antimeridian); haversine orders the survivors.
-- The same SQL runs on PGlite and PostgreSQL (no PostGIS / earthdistance needed).
create index venues_lat_lng on venues (lat, lng);
-- Stock per venue on the map: cabinets of a venue, power banks of a cabinet.
create index cabinets_venue on cabinets (venue_id);
