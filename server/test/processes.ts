// Real API processes for tests: `node --import tsx server/src/main.ts` on a free port, killed with SIGKILL as a
// crash would end them, and called over HTTP. Every process started is kept in `children` for the test's clean-up.
import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import { fileURLToPath } from 'node:url';
import { waitFor } from './helper.ts';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const children: ChildProcess[] = [];

export async function freePort() {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  const port = (s.address() as net.AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

export const MOSQUITTO = '/usr/sbin/mosquitto';

/** A Mosquitto of the test's own on `port`, kept in `into` for the test's clean-up; resolves once it listens. */
export async function startMosquitto(port: number, into: ChildProcess[] = children): Promise<ChildProcess> {
  const p = spawn(MOSQUITTO, ['-p', String(port)], { stdio: 'ignore' });
  into.push(p);
  await waitFor(
    () =>
      new Promise<boolean>((resolve) => {
        const c = net.connect(port, '127.0.0.1', () => {
          c.destroy();
          resolve(true);
        });
        c.on('error', () => resolve(false));
      }),
    'mosquitto listening',
  );
  return p;
}

export interface Api {
  name: string;
  port: number;
  proc: ChildProcess;
  out: string[];
  exited: Promise<number | null>;
}

/** `node --import tsx server/src/main.ts` with `env`; resolves once it says it is running. */
export async function serve(name: string, env: Record<string, string>): Promise<Api> {
  const port = await freePort();
  const proc = spawn(process.execPath, ['--import', 'tsx', 'server/src/main.ts'], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      PORT: String(port),
      DEMO_PARTNER_PORT: 'off',
      SIMULATOR: 'off',
      DIST_DIR: '/nonexistent',
      ...env,
    },
  });
  children.push(proc);
  const out: string[] = [];
  proc.stdout!.on('data', (d: Buffer) => out.push(d.toString()));
  proc.stderr!.on('data', (d: Buffer) => out.push(d.toString()));
  const exited = new Promise<number | null>((r) => proc.on('exit', (code) => r(code)));
  const api = { name, port, proc, out, exited };
  await waitFor(
    async () => out.join('').includes('Powerly is running') || proc.exitCode !== null,
    `${name} started`,
    120_000,
  );
  if (proc.exitCode !== null) throw new Error(`${name} exited: ${out.join('')}`);
  return api;
}

export async function kill9(a: Api) {
  a.proc.kill('SIGKILL');
  await a.exited;
}

export const call = async (
  a: Api,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
) => {
  const r = await fetch(`http://127.0.0.1:${a.port}${path}`, {
    method,
    headers: { ...(body ? { 'content-type': 'application/json' } : {}), ...headers },
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: r.status, json: (await r.json()) as Record<string, unknown> & { data?: never; code?: number } };
};
