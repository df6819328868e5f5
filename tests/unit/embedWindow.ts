// The embed's messages and windows in unit tests: happy-dom does not model cross-origin postMessage, so a test
// posts and delivers them itself (embedBridge.test.ts, embedProtocol.test.ts).
import { PROTOCOL_VERSION } from '../../embed/protocol.ts';

export const HOST = 'https://venue.example';
export const WIDGET = 'https://powerly.example';
export const TOKEN = 'tok_0123456789abcdef';

/** A window stand-in: records what is posted to it, and lets the test deliver MessageEvents to its listeners. */
export class FakeWindow {
  posted: { data: unknown; origin: string }[] = [];
  private listeners: ((e: MessageEvent) => void)[] = [];
  postMessage(data: unknown, origin: string) {
    this.posted.push({ data, origin });
  }
  addEventListener(_t: 'message', fn: (e: MessageEvent) => void) {
    this.listeners.push(fn);
  }
  removeEventListener(_t: 'message', fn: (e: MessageEvent) => void) {
    this.listeners = this.listeners.filter((f) => f !== fn);
  }
  deliver(data: unknown, origin: string, source: unknown) {
    for (const fn of this.listeners) fn({ data, origin, source } as unknown as MessageEvent);
  }
}

/** A protocol message as either end posts it. */
export const msg = (type: string, payload: unknown) => ({ powerly: PROTOCOL_VERSION, type, payload });
