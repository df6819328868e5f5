// The ops API's rebalancing (modules/rebalancing): the cabinets with too many or too few power banks, the moves
// suggested for field technicians, and the moves they mark done.
import { Type, type Static } from 'typebox';
import { Reason } from './common.ts';

const Id = Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_.:-]+$' });
const Pct = Type.Integer({ minimum: 0, maximum: 100 });

export const RebalancingQuery = Type.Object(
  {
    agentId: Type.Optional(Id),
    lowPct: Type.Optional({
      ...Pct,
      description: 'under this share of its slots (percent) a cabinet has too few; default 25',
    }),
    highPct: Type.Optional({
      ...Pct,
      description: 'over this share of its slots (percent) a cabinet has too many; default 75; above lowPct',
    }),
  },
  { additionalProperties: false },
);
export type RebalancingQuery = Static<typeof RebalancingQuery>;

export const RebalanceCabinet = Type.Object({
  id: Type.String(),
  agentId: Type.String(),
  venueId: Type.String(),
  venueName: Type.String(),
  lat: Type.Number(),
  lng: Type.Number(),
  slots: Type.Integer(),
  powerbanks: Type.Integer({
    description: 'in the cabinet, counting moves marked done that it has not reported since',
  }),
  online: Type.Boolean(),
  balance: Type.Union([Type.Literal('under'), Type.Literal('over'), Type.Literal('ok')]),
  target: Type.Integer({ description: 'half its slots: what a move brings it towards' }),
});
export type RebalanceCabinet = Static<typeof RebalanceCabinet>;

export const SuggestedMove = Type.Object({
  agentId: Type.String(),
  from: Type.String({ description: 'the cabinet with too many' }),
  to: Type.String({ description: 'the cabinet with too few (online), of the same agent' }),
  powerbanks: Type.Integer({ minimum: 1 }),
  distanceM: Type.Integer({ description: 'between the two venues, straight line' }),
});
export type SuggestedMove = Static<typeof SuggestedMove>;

export const MoveDone = Type.Object({
  id: Type.String(),
  agentId: Type.String(),
  from: Type.String(),
  to: Type.String(),
  powerbanks: Type.Integer(),
  doneBy: Type.String(),
  doneAt: Type.String({ format: 'date-time' }),
  reason: Type.String(),
});
export type MoveDone = Static<typeof MoveDone>;

export const RebalancingShape = Type.Object({
  lowPct: Type.Integer(),
  highPct: Type.Integer(),
  cabinets: Type.Array(RebalanceCabinet, { description: 'the cabinets out of balance, by id' }),
  moves: Type.Array(SuggestedMove, { description: 'nearest first, at most 200' }),
  done: Type.Array(MoveDone, { description: 'moves marked done in the last day, newest first (at most 50)' }),
});
export type RebalancingShape = Static<typeof RebalancingShape>;

export const MoveDoneCreate = Type.Object(
  {
    from: Id,
    to: Id,
    powerbanks: Type.Integer({ minimum: 1, maximum: 200 }),
    reason: Reason,
  },
  { additionalProperties: false },
);
export type MoveDoneCreate = Static<typeof MoveDoneCreate>;
