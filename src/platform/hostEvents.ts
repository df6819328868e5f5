// Results the flows report to whoever hosts them (the embed's iframe page forwards them to the host page;
// the standalone app has no sink). Typed names only; no token or personal data in a detail.
export type HostEvent = { type: 'rented'; orderId: string } | { type: 'error'; code: string; message: string };

let sink: ((e: HostEvent) => void) | null = null;

export function setHostEventSink(fn: ((e: HostEvent) => void) | null): void {
  sink = fn;
}

export function emitHostEvent(e: HostEvent): void {
  sink?.(e);
}
