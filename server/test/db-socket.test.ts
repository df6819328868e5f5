// The pool's coalescing socket (server/src/db/db.ts): the messages written in one tick, as a pipelined
// connection's statements sent together, leave in one system call, also after `connect` (which puts the prototype's
// `write` back on a socket).
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { coalescingSocket } from '../src/db/db.ts';

let server: net.Server;
let received: Buffer[] = [];
const open = new Set<net.Socket>();
beforeAll(async () => {
  server = net.createServer((s) => {
    open.add(s);
    s.on('data', (d) => received.push(d));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
});
afterAll(async () => {
  for (const s of open) s.destroy();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe('the pool socket', () => {
  it('sends what one tick wrote in one write, and what the next tick wrote in another', async () => {
    const socket = coalescingSocket();
    const flushes: number[] = [];
    type Writes = { _writev: (...a: unknown[]) => unknown; _write: (...a: unknown[]) => unknown };
    const counted = socket as unknown as Writes;
    const [writev, write] = [counted._writev, counted._write];
    counted._writev = function (this: unknown, ...args: unknown[]) {
      flushes.push((args[0] as unknown[]).length);
      return writev.apply(this, args);
    };
    counted._write = function (this: unknown, ...args: unknown[]) {
      flushes.push(1);
      return write.apply(this, args);
    };
    socket.connect((server.address() as net.AddressInfo).port, '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    received = [];
    for (const part of ['parse', 'bind', 'execute', 'sync']) socket.write(Buffer.from(part));
    await new Promise((resolve) => setImmediate(resolve));
    socket.write(Buffer.from('next'));
    await new Promise((resolve) => setImmediate(resolve));
    expect(flushes).toEqual([4, 1]);
    await expect.poll(() => Buffer.concat(received).toString()).toBe('parsebindexecutesyncnext');
    socket.destroy();
  });
});
