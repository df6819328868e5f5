// The fleet's operations (agents, venues, price plans, cabinets, the Wi-Fi catalogue and boxes): the shapes the
// ops API takes and answers, and what the services validate every call against (server/src/lib/validate.ts).
// JSON; money in integer minor units with its currency; times ISO 8601. One file per area under ops-fleet/.
export { DEVICE_KINDS, FLEET_LANGS } from './ops-fleet/fields.ts';
export * from './ops-fleet/agents.ts';
export * from './ops-fleet/venues.ts';
export * from './ops-fleet/plans.ts';
export * from './ops-fleet/cabinets.ts';
export * from './ops-fleet/mifi.ts';
