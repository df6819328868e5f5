// `npm run bench` (second part): the map's geographic search over 100 000 venues (50 cities plus a sprinkle over
// the globe, every venue with a cabinet and power banks). Times VenuesService.nearby — the indexed bounding-box
// prefilter + haversine order + stock of the kept rows — against the same search without the prefilter (haversine
// over every venue), in one run and one process, so the ratio is what matters. DATABASE_URL: PostgreSQL.
import { openPglite, openPostgres, type Db } from '../src/db/db.ts';
import { migrate } from '../src/db/migrate.ts';
import { VenuesRepository } from '../src/modules/venues/repository.ts';
import { VenuesService } from '../src/modules/venues/service.ts';
import { Liveness } from '../src/modules/cabinets/liveness.ts';
import { systemClock } from '../src/lib/clock.ts';
import { haversineMetres, viewRadiusMetres } from '../src/modules/venues/geo.ts';
import { dropSchema } from './lib.ts';

const VENUES = Number(process.env.BENCH_VENUES ?? 100_000);
const QUERIES = Number(process.env.BENCH_QUERIES ?? 200);
const url = process.env.DATABASE_URL;
const schema = `bench_geo_${process.pid}`;

function rng(seed: number) {
  return () => {
    seed |= 0;
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const r = rng(42);
const cities = Array.from({ length: 50 }, () => [(r() - 0.5) * 120, (r() - 0.5) * 360] as const);
cities.push([22.631123, 113.820622], [-17.7, 179.9], [89.9, 0]); // the default centre, the dateline, the pole
const wrap = (lng: number) => (lng > 180 ? lng - 360 : lng < -180 ? lng + 360 : lng);
const clampLat = (lat: number) => Math.max(-90, Math.min(90, lat));

async function load(db: Db) {
  const t0 = performance.now();
  const BATCH = 2000;
  for (let start = 0; start < VENUES; start += BATCH) {
    const lats: number[] = [];
    const lngs: number[] = [];
    for (let i = start; i < Math.min(VENUES, start + BATCH); i++) {
      if (i % 10 === 0) {
        lats.push((r() - 0.5) * 170);
        lngs.push((r() - 0.5) * 360);
        continue;
      }
      const [la, lo] = cities[i % cities.length]!;
      lats.push(clampLat(la + (r() - 0.5) * 0.8));
      lngs.push(wrap(lo + (r() - 0.5) * 0.8));
    }
    await db.query(
      `insert into venues (id, name, city, address, hours, logo_url, lat, lng, currency)
       select 'b-' || (i + $1), 'Venue ' || (i + $1), 'City', 'Street 1', '09:00-21:00', '', la, lo, 'EUR'
         from unnest($2::float8[], $3::float8[]) with ordinality as u(la, lo, i)`,
      [start, lats, lngs],
    );
  }
  await db.query(`insert into cabinets (id, venue_id, slot_count, online, last_seen_at)
                  select 'C-' || id, id, 8, true, now() from venues`);
  await db.query(`insert into powerbanks (id, state, cabinet_id, slot)
                  select 'P-' || c.id || '-' || s, 'in_cabinet', c.id, s from cabinets c, generate_series(1, 3) s`);
  await db.query('analyze');
  return performance.now() - t0;
}

const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length * p) / 100))]!;

async function time(
  name: string,
  points: [number, number, number][],
  f: (lat: number, lng: number, z: number) => Promise<unknown[]>,
) {
  for (const [la, lo, z] of points.slice(0, 5)) await f(la, lo, z); // warm up
  const ms: number[] = [];
  let found = 0;
  for (const [la, lo, z] of points) {
    const t = performance.now();
    found += (await f(la, lo, z)).length;
    ms.push(performance.now() - t);
  }
  const p50 = pct(ms, 50);
  const p99 = pct(ms, 99);
  console.info(
    `${name.padEnd(34)} p50 ${p50.toFixed(2).padStart(8)} ms   p99 ${p99.toFixed(2).padStart(8)} ms   ${(found / points.length).toFixed(1)} venues/answer`,
  );
  return { p50, p99 };
}

const db = url ? await openPostgres(url, { schema, max: 4 }) : await openPglite();
try {
  await migrate(db);
  const loadMs = await load(db);
  const venues = new VenuesService(new VenuesRepository(db), new Liveness(systemClock));
  const points: [number, number, number][] = Array.from({ length: QUERIES }, (_, i) => {
    const [la, lo] = cities[i % cities.length]!;
    return [clampLat(la + (r() - 0.5) * 0.5), wrap(lo + (r() - 0.5) * 0.5), 4 + (i % 3)];
  });
  console.info(
    `geo search: ${VENUES} venues (loaded in ${(loadMs / 1000).toFixed(1)} s), ${QUERIES} views, database: ${url ? 'PostgreSQL' : 'PGlite in memory'}`,
  );

  const indexed = await time('nearby (index + haversine)', points, (la, lo, z) => venues.nearby(la, lo, z, 100));
  // Baseline: the same answer without the bounding-box prefilter (what the skeleton did, in SQL).
  const scan = await time(
    'full scan (haversine every row)',
    points.slice(0, Math.max(10, QUERIES / 10)),
    async (la, lo, z) => {
      const { rows } = await db.query<{ id: string }>(
        `select id from (select id, 2 * 6371000 * asin(least(1, sqrt(power(sin(radians(lat - $1) / 2), 2)
         + cos(radians($1)) * cos(radians(lat)) * power(sin(radians(lng - $2) / 2), 2)))) as d from venues) w
        where d <= $3 order by d, id limit 100`,
        [la, lo, viewRadiusMetres(z)],
      );
      return rows;
    },
  );
  // Correctness on the bench data: the indexed answer equals the full scan's for a few views.
  for (const [la, lo, z] of points.slice(0, 5)) {
    const a = (await venues.nearby(la, lo, z, 100)).map((s) => s.shopid);
    const { rows } = await db.query<{ id: string; lat: number; lng: number }>('select id, lat, lng from venues');
    const radius = viewRadiusMetres(z);
    const b = rows
      .map((v) => ({ id: v.id, d: haversineMetres(la, lo, v.lat, v.lng) }))
      .filter((v) => v.d <= radius)
      .sort((x, y) => x.d - y.d || (x.id < y.id ? -1 : 1))
      .slice(0, 100)
      .map((v) => v.id);
    if (a.join() !== b.join()) throw new Error(`indexed answer differs from the full scan at ${la},${lo}`);
  }
  console.info(
    `index / full scan: p50 ${(scan.p50 / indexed.p50).toFixed(1)}× faster, p99 ${(scan.p99 / indexed.p99).toFixed(1)}× faster`,
  );
} finally {
  await db.close();
  await dropSchema(url, schema);
}
