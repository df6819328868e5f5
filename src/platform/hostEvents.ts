// Results the flows report to whoever hosts them (the embed's iframe page forwards them to the host page;
// the standalone app has no sink). Typed names only; no token or personal data in a detail.
// Codes are stable identifiers (letters only) a host can switch on; messages are for people.
export type HostEvent =
  | { type: 'rental.started'; tradeNo: string }
  | { type: 'eject.confirmed'; orderId: string }
  | { type: 'eject.failed'; tradeNo: string; code: string; message: string }
  | { type: 'payment.failed'; code: string; message: string }
  | { type: 'error'; code: string; message: string };

let sink: ((e: HostEvent) => void) | null = null;

export function setHostEventSink(fn: ((e: HostEvent) => void) | null): void {
  sink = fn;
}

export function emitHostEvent(e: HostEvent): void {
  sink?.(e);
}
