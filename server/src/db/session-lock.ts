// A lock held by one process for as long as it runs, on its own PostgreSQL connection (a session-level advisory
// lock): released when the process stops or dies (the server drops a dead connection's locks). main.ts takes one
// for the embedded MQTT broker, which serves a single API process: a second process on the same database with its
// own embedded broker would publish commands where the cabinets are not connected.
import { createHash } from 'node:crypto';
import pg from 'pg';

export interface SessionLock {
  release(): Promise<void>;
}

/** Takes the lock `name` on the database at `url`; null when another process holds it. */
export async function takeSessionLock(url: string, name: string): Promise<SessionLock | null> {
  const key = createHash('sha256').update(name).digest().readBigInt64BE(0).toString();
  const client = new pg.Client({ connectionString: url, application_name: `powerly ${name}` });
  await client.connect();
  // A broken connection ends the lock with it; nothing to do here but not crash the process on the error event.
  client.on('error', () => undefined);
  const { rows } = await client.query<{ ok: boolean }>('select pg_try_advisory_lock($1::bigint) as ok', [key]);
  if (!rows[0]?.ok) {
    await client.end();
    return null;
  }
  return { release: () => client.end() };
}
