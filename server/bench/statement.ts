// `npm run bench:statement`: what one SQL statement costs on this host, in CPU time, on the client (this Node
// process) and in PostgreSQL (all its processes, /proc): the unit in which the rental path's cost is counted
// (README, "Where the time went"). Ten connections, 2 000 statements each way:
//  - a prepared `select`, one at a time per connection;
//  - a prepared single-row `insert`, autocommitted (a commit, with its WAL flush, each);
//  - the same `select`, ten at a time pipelined on one connection (node-postgres `pipeline`, as db/db.ts's pool).
// PostgreSQL from DATABASE_URL (default the local server's `test` database); its table is dropped at the end.
// Linux only (/proc).
import pg from 'pg';
import { cpuByGroup } from './lib.ts';

const url = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const N = 2000;
const table = `bench_statement_${process.pid}`;
const pool = new pg.Pool({ connectionString: url, max: 10 });
const piped = new pg.Client({ connectionString: url, pipeline: true });
await piped.connect();
await pool.query(`create table ${table} (id serial primary key, v text)`);
// Every connection open (and each statement prepared on it) before anything is counted.
await Promise.all(
  Array.from({ length: 10 }, () => pool.query({ name: 'warm', text: 'select $1::int as n', values: [0] })),
);

const ways: [string, () => Promise<unknown>][] = [
  [
    'select, one at a time per connection',
    () => perConnection(() => pool.query({ name: 'select', text: 'select $1::int as n', values: [1] })),
  ],
  [
    'insert, autocommitted',
    () =>
      perConnection(() => pool.query({ name: 'insert', text: `insert into ${table} (v) values ($1)`, values: ['x'] })),
  ],
  [
    'select, ten pipelined on one connection',
    async () => {
      for (let i = 0; i < N / 10; i++)
        await Promise.all(
          Array.from({ length: 10 }, () => piped.query({ name: 'select', text: 'select $1::int as n', values: [1] })),
        );
    },
  ],
];
async function perConnection(one: () => Promise<unknown>) {
  await Promise.all(
    Array.from({ length: 10 }, async () => {
      for (let i = 0; i < N / 10; i++) await one();
    }),
  );
}

console.info(
  `one statement's CPU time on this host (Node ${process.version}, ${N} statements each way; /proc counts in 10 ms ticks)`,
);
for (const [name, run] of ways) {
  const before = (await cpuByGroup({ node: process.pid }, ['postgres']))!;
  const t = performance.now();
  await run();
  const wall = performance.now() - t;
  const after = (await cpuByGroup({ node: process.pid }, ['postgres']))!;
  const us = (k: string) => (((after[k]! - before[k]!) / N) * 1000).toFixed(0).padStart(4);
  console.info(
    `${name.padEnd(42)} wall ${((wall / N) * 1000).toFixed(0).padStart(4)} µs per statement   CPU: Node ${us('node')} µs, PostgreSQL ${us('postgres')} µs`,
  );
}
await pool.query(`drop table ${table}`);
await piped.end();
await pool.end();
