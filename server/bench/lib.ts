// What the bench scripts share: their own PostgreSQL schema (dropped at the end) and a reader of the live event stream.
import pg from 'pg';

/** Drops a bench run's schema (with DATABASE_URL; PGlite needs nothing). */
export async function dropSchema(url: string | undefined, schema: string) {
  if (!url) return;
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  await c.query(`drop schema if exists ${schema} cascade`);
  await c.end();
}

/** Reads a server-sent event stream to its end (or abort), calling `onEvent` with each event's parsed data. */
export function readEventStream<T>(res: Response, onEvent: (data: T) => void): void {
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buf = '';
  void (async () => {
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        buf += value;
        let i;
        while ((i = buf.indexOf('\n\n')) >= 0) {
          const data = buf.slice(0, i).split('\n').filter((l) => l.startsWith('data:')).map((l) => l.slice(5).trim()).join('\n');
          buf = buf.slice(i + 2);
          if (data) onEvent(JSON.parse(data) as T);
        }
      }
    } catch { /* aborted */ }
  })();
}
