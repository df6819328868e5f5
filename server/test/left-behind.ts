// Setup of every server and browser test file: nothing a file started may outlive it. The server project runs its
// files one after another in a shared worker (isolate: false), so a server, a socket, a child process or a timer a
// file left running would keep working, and keep the CPU, through the files after it, and show there as another
// file's flake. After each file's own after-all hooks, whatever keeps the event loop alive (Node's
// process.getActiveResourcesInfo(): only what is ref'd, so an idle keep-alive socket does not count) is compared
// with what was there before the file: what closes by itself gets SETTLE_MS, what is still open then fails the file.
import { afterAll, beforeAll } from 'vitest';

/** How long closing work may take at the end of a file (returns as soon as it has). */
const SETTLE_MS = 10_000;

/** The resources a test can start and forget: servers, sockets, child processes, timers. */
const WATCHED = new Set(['TCPServerWrap', 'TCPSocketWrap', 'PipeWrap', 'ProcessWrap', 'UDPWrap', 'Timeout']);

function tally(): Map<string, number> {
  const out = new Map<string, number>();
  for (const r of process.getActiveResourcesInfo()) if (WATCHED.has(r)) out.set(r, (out.get(r) ?? 0) + 1);
  return out;
}

/** What is open now beyond `before`, as "2 × TCPServerWrap". */
function beyond(before: Map<string, number>): string[] {
  return [...tally()].flatMap(([type, n]) =>
    n > (before.get(type) ?? 0) ? [`${n - (before.get(type) ?? 0)} × ${type}`] : [],
  );
}

let before = new Map<string, number>();
beforeAll(() => {
  before = tally();
});

afterAll(async () => {
  const start = Date.now();
  let left = beyond(before);
  while (left.length && Date.now() - start < SETTLE_MS) {
    await new Promise((r) => setTimeout(r, 50));
    left = beyond(before);
  }
  if (left.length) throw new Error(`This file left running after its tests: ${left.join(', ')}`);
}, SETTLE_MS + 5_000);
