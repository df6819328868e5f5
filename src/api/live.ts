// Live updates (docs/api.md "Live updates"): a one-use ticket for the server-sent event stream.
import { api, DEFAULT_API_BASE } from './client.ts';
import type { LiveEvent, LiveTicket } from '../contract/live.ts';

export type { LiveEvent };

/** POST live/ticket — EventSource cannot send the token header, so the stream's URL carries a one-use ticket. */
export const liveTicket = () => api.post<LiveTicket>('live/ticket');

/** The stream's URL for a ticket, on the API's origin (the embed frame may point the API elsewhere). */
export function liveEventsUrl(ticket: string): string {
  const base = api.config.baseURL ?? DEFAULT_API_BASE;
  return `${base.replace(/\/?$/, '/')}live/events?ticket=${encodeURIComponent(ticket)}`;
}
