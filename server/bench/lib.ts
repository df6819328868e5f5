// What the bench scripts share: their own PostgreSQL schema (dropped at the end), a reader of the live event stream,
// and the steady-state measurement of the cabinets-per-process benches.
import { monitorEventLoopDelay } from 'node:perf_hooks';
import pg from 'pg';
import type { MqttCabinetLink } from '../src/modules/cabinets/link.ts';

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
          const data = buf
            .slice(0, i)
            .split('\n')
            .filter((l) => l.startsWith('data:'))
            .map((l) => l.slice(5).trim())
            .join('\n');
          buf = buf.slice(i + 2);
          if (data) onEvent(JSON.parse(data) as T);
        }
      }
    } catch {
      /* aborted */
    }
  })();
}

/**
 * CPU time (user + system, ms) spent so far by this machine's processes, by group: `pids` by name, and every process
 * whose command is one of `commands` (e.g. postgres, mosquitto: the local servers). Linux only (/proc); elsewhere
 * undefined. /proc counts in clock ticks of 10 ms (Linux's USER_HZ, 100), so each process's figure is ±10 ms.
 */
export async function cpuByGroup(
  pids: Record<string, number>,
  commands: string[],
): Promise<Record<string, number> | undefined> {
  const { readFile, readdir } = await import('node:fs/promises');
  const ticks = async (pid: number | string) => {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
    // Fields after the command (which may hold spaces, in parentheses): utime and stime are the 12th and 13th.
    const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return rest.length > 13 ? Number(rest[11]) + Number(rest[12]) : 0;
  };
  const all = await readdir('/proc').catch(() => undefined);
  if (!all) return undefined;
  const hz = 100;
  const out: Record<string, number> = {};
  for (const [name, pid] of Object.entries(pids)) out[name] = ((await ticks(pid)) * 1000) / hz;
  for (const c of commands) out[c] = 0;
  for (const pid of all.filter((p) => /^\d+$/.test(p))) {
    const comm = (await readFile(`/proc/${pid}/comm`, 'utf8').catch(() => '')).trim();
    if (commands.includes(comm)) out[comm]! += ((await ticks(pid)) * 1000) / hz;
  }
  return out;
}

/** CPU time (user + system, ms) spent so far by each of these processes that still runs (Linux /proc; ±10 ms each). */
export async function cpuOf(pids: number[]): Promise<Map<number, number>> {
  const { readFile } = await import('node:fs/promises');
  const out = new Map<number, number>();
  for (const pid of pids) {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
    const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (rest.length > 13) out.set(pid, ((Number(rest[11]) + Number(rest[12])) * 1000) / 100);
  }
  return out;
}

/**
 * The processes running `command` (e.g. postgres), with their titles: a PostgreSQL backend serving a client names
 * the client's address in its title (`postgres: 15/main: user db 127.0.0.1(5432) idle`), the server's own
 * processes (WAL writer, checkpointer, …) do not. Linux only; elsewhere none.
 */
export async function processesOf(command: string): Promise<{ pid: number; client: boolean }[]> {
  const { readFile, readdir } = await import('node:fs/promises');
  const out: { pid: number; client: boolean }[] = [];
  for (const p of (await readdir('/proc').catch(() => [])).filter((p) => /^\d+$/.test(p))) {
    if ((await readFile(`/proc/${p}/comm`, 'utf8').catch(() => '')).trim() !== command) continue;
    const title = await readFile(`/proc/${p}/cmdline`, 'utf8').catch(() => '');
    out.push({ pid: Number(p), client: /\(\d+\)|\[local\]/.test(title) });
  }
  return out;
}

/**
 * `ms` of steady state, sampled each second: this process's RSS and heap (max), the inbox backlog (`pending()`, max),
 * the link's messages in hand (max), its counts and lags over the window, and the event loop delay.
 */
export async function steadyState(link: MqttCabinetLink, pending: () => Promise<number>, ms: number) {
  link.stats.take();
  const loop = monitorEventLoopDelay({ resolution: 10 });
  loop.enable();
  let rssMax = 0;
  let heapMax = 0;
  let backlogMax = 0;
  let inFlightMax = 0;
  const start = performance.now();
  while (performance.now() - start < ms) {
    await new Promise((r) => setTimeout(r, 1_000));
    const m = process.memoryUsage();
    rssMax = Math.max(rssMax, m.rss);
    heapMax = Math.max(heapMax, m.heapUsed);
    backlogMax = Math.max(backlogMax, await pending());
    inFlightMax = Math.max(inFlightMax, link.stats.inFlight);
  }
  const secs = (performance.now() - start) / 1000;
  const stats = link.stats.take();
  loop.disable();
  return {
    secs,
    stats,
    rssMax,
    heapMax,
    backlogMax,
    inFlightMax: Math.max(inFlightMax, stats.maxInFlight),
    loopP99Ms: loop.percentile(99) / 1e6,
  };
}
