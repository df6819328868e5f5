// Rebalancing's suggestions (docs/operations.md "Rebalancing"): which cabinets hold too many or too few power banks,
// and the moves (from, to, how many) that bring them back towards half full, nearest cabinets first and never
// across agents (an agent's technicians move only its own power banks). A pure function of the stock.

export interface StockOf {
  id: string;
  agentId: string;
  venueId: string;
  venueName: string;
  lat: number;
  lng: number;
  slots: number;
  powerbanks: number;
  online: boolean;
}

export interface Bands {
  /** Under this share of its slots (percent) a cabinet has too few. */
  lowPct: number;
  /** Over this share of its slots (percent) a cabinet has too many (riders may find no slot to return). */
  highPct: number;
}

export type Balance = 'under' | 'over' | 'ok';

export interface Move {
  agentId: string;
  from: string;
  to: string;
  powerbanks: number;
  /** Between the two venues, in metres (straight line). */
  distanceM: number;
}

/** The stock a cabinet is brought towards: half its slots. */
export const target = (c: { slots: number }) => Math.round(c.slots / 2);

export function balanceOf(c: { slots: number; powerbanks: number }, b: Bands): Balance {
  if (c.powerbanks * 100 < c.slots * b.lowPct) return 'under';
  if (c.powerbanks * 100 > c.slots * b.highPct) return 'over';
  return 'ok';
}

const R = 6_371_000;
const rad = (d: number) => (d * Math.PI) / 180;
export function metres(a: { lat: number; lng: number }, b: { lat: number; lng: number }): number {
  const h =
    Math.sin(rad(b.lat - a.lat) / 2) ** 2 +
    Math.cos(rad(a.lat)) * Math.cos(rad(b.lat)) * Math.sin(rad(b.lng - a.lng) / 2) ** 2;
  return Math.round(2 * R * Math.asin(Math.min(1, Math.sqrt(h))));
}

/**
 * The moves, agent by agent: every pair of a cabinet with too many and one with too few, nearest first (ties by
 * ids), each moving what the one can spare and the other lacks, down and up to half full. An offline cabinet is
 * never a destination (riders cannot rent from it). At most `limit` moves, nearest first.
 */
export function suggestMoves(stock: readonly StockOf[], b: Bands, limit = 200): Move[] {
  const byAgent = new Map<string, StockOf[]>();
  for (const c of stock) byAgent.set(c.agentId, [...(byAgent.get(c.agentId) ?? []), c]);
  const moves: Move[] = [];
  for (const [agentId, cabinets] of [...byAgent].sort(([a], [z]) => a.localeCompare(z))) {
    const spare = new Map<string, number>();
    const lack = new Map<string, number>();
    for (const c of cabinets) {
      const k = balanceOf(c, b);
      if (k === 'over') spare.set(c.id, c.powerbanks - target(c));
      else if (k === 'under' && c.online) lack.set(c.id, target(c) - c.powerbanks);
    }
    const at = new Map(cabinets.map((c) => [c.id, c]));
    const pairs: { from: string; to: string; d: number }[] = [];
    for (const from of spare.keys())
      for (const to of lack.keys()) pairs.push({ from, to, d: metres(at.get(from)!, at.get(to)!) });
    pairs.sort((x, y) => x.d - y.d || x.from.localeCompare(y.from) || x.to.localeCompare(y.to));
    for (const p of pairs) {
      const n = Math.min(spare.get(p.from)!, lack.get(p.to)!);
      if (n <= 0) continue;
      spare.set(p.from, spare.get(p.from)! - n);
      lack.set(p.to, lack.get(p.to)! - n);
      moves.push({ agentId, from: p.from, to: p.to, powerbanks: n, distanceM: p.d });
    }
  }
  return moves
    .sort((x, y) => x.distanceM - y.distanceM || x.from.localeCompare(y.from) || x.to.localeCompare(y.to))
    .slice(0, limit);
}
