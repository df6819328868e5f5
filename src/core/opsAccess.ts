// The back office's access rules (server and console share them): each staff role and what it may do. A route of
// the ops API declares the one permission it needs; the console shows only what the signed-in person's roles allow.

export const STAFF_ROLES = [
  'owner',
  'admin',
  'support',
  'finance',
  'field_technician',
  'read_only',
  'venue_partner',
] as const;
export type StaffRole = (typeof STAFF_ROLES)[number];

/** The agent id of a platform-wide membership: every agent. */
export const ALL_AGENTS = '*';

export const PERMISSIONS = [
  'staff.read', // list staff and their roles
  'staff.invite', // invite a person, change or end a membership
  'audit.read', // read the audit log
  'audit.export', // export the audit log as CSV
  'fleet.read', // venues, cabinets, price plans
  'fleet.write',
  'orders.read', // rentals and payments
  'money.correct', // refunds, waivers, credits
  'cabinets.command', // remote commands to a cabinet: eject, lock and unlock a slot, refresh inventory, restart, volume
  'coupons.read', // coupons and their uses
  'coupons.write', // create, pause and resume coupons
  'pricing.write', // price plans of venues and agents
  'agents.write', // agents: currencies, the embed's allowed origins
  'payouts.read', // the withdrawals queue
  'payouts.approve', // approve, record or reject a bank payout
  'riders.block', // block and unblock a rider
  'jobs.manage', // dead jobs: retry, abandon (platform-wide)
  'money.read', // balances per currency and account kind, the ledger check
  'rentals.refund', // refund part of a rental's fee: support up to the desk's limit, finance (money.correct) any amount
  'partners.read', // revenue share rules, statements, earnings
  'partners.write', // share rules, tax and provider fee rates, issuing statements
  'alerts.read', // alerts, alert rules, delivery logs
  'alerts.manage', // alert rules, acknowledging and resolving alerts
  'dashboard.read', // the dashboard's figures: rentals, revenue, utilisation, returns, failed ejects (no rider data)
  'rentals.end', // end a stuck rental at the time the cabinets' records support (the fee by its plan)
  'rentals.waive', // waive what a failed deduction left a rental owing
  'rentals.release', // release a closed rental's deposit hold left open
  'rentals.reverse', // reverse a buy-out whose power bank is back
  'disputes.decide', // accept or reject a rider's "I returned it" dispute
  'wallet.adjust', // request a credit or debit of a rider's wallet (nothing moves until someone else approves)
  'wallet.approve', // approve or reject someone else's wallet credit or debit (four eyes)
  'rebalancing.read', // cabinets with too many or too few power banks and the suggested moves
  'rebalancing.move', // mark a move of power banks between cabinets done
  'payments.read', // an agent's payment methods: which are on, which keys are set (never their values)
  'payments.configure', // switch an agent's payment methods on and off, write their keys
] as const;
export type Permission = (typeof PERMISSIONS)[number];

const ROLE_PERMISSIONS: Record<StaffRole, readonly Permission[]> = {
  owner: PERMISSIONS,
  admin: PERMISSIONS,
  support: [
    'staff.read',
    'fleet.read',
    'orders.read',
    'audit.read',
    'coupons.read',
    'payouts.read',
    'riders.block',
    'rentals.refund',
    'partners.read',
    'alerts.read',
    'alerts.manage',
    'dashboard.read',
    'rentals.end',
    'rentals.release',
    'disputes.decide',
    'rebalancing.read',
  ],
  finance: [
    'staff.read',
    'orders.read',
    'money.correct',
    'audit.read',
    'audit.export',
    'coupons.read',
    'coupons.write',
    'payouts.read',
    'payouts.approve',
    'money.read',
    'rentals.refund',
    'partners.read',
    'partners.write',
    'alerts.read',
    'dashboard.read',
    'wallet.adjust',
    'wallet.approve',
    'rentals.end',
    'rentals.waive',
    'rentals.release',
    'rentals.reverse',
    'disputes.decide',
    'payments.read',
  ],
  field_technician: [
    'fleet.read',
    'fleet.write',
    'cabinets.command',
    'alerts.read',
    'alerts.manage',
    'dashboard.read',
    'rebalancing.read',
    'rebalancing.move',
  ],
  read_only: [
    'staff.read',
    'fleet.read',
    'orders.read',
    'audit.read',
    'coupons.read',
    'payouts.read',
    'partners.read',
    'alerts.read',
    'dashboard.read',
    'rebalancing.read',
  ],
  // A venue partner sees its venues, their cabinets and its earnings, never riders' personal data (orders.read).
  venue_partner: ['fleet.read', 'partners.read', 'dashboard.read'],
};

export function roleAllows(role: StaffRole, permission: Permission): boolean {
  return ROLE_PERMISSIONS[role].includes(permission);
}

/**
 * Roles a person may grant: owners any; admins any but owner. A platform-wide membership ('*') is granted only
 * by a platform owner.
 */
export function mayGrant(granter: StaffRole, role: StaffRole): boolean {
  if (granter === 'owner') return true;
  return granter === 'admin' && role !== 'owner';
}

export interface Membership {
  agentId: string;
  role: StaffRole;
  /** A venue partner's venues (empty for other roles). */
  venueIds: string[];
}

/**
 * Where a permission reaches: every agent, or the listed agents; a venue partner's membership restricts its agent
 * to its venues (`venues[agent]`). `none` when no membership grants it.
 */
export type Scope =
  { kind: 'all' } | { kind: 'agents'; agents: string[]; venues: Record<string, string[]> } | { kind: 'none' };

export function scopeOf(memberships: readonly Membership[], permission: Permission): Scope {
  const granting = memberships.filter((m) => roleAllows(m.role, permission));
  if (granting.some((m) => m.agentId === ALL_AGENTS)) return { kind: 'all' };
  if (!granting.length) return { kind: 'none' };
  const agents: string[] = [];
  const venues: Record<string, string[]> = {};
  for (const m of granting) {
    agents.push(m.agentId);
    if (m.role === 'venue_partner') venues[m.agentId] = m.venueIds;
  }
  return { kind: 'agents', agents, venues };
}

/** Whether an object of `agentId` (and `venueId`, for objects of a venue) is inside the scope. */
export function inScope(scope: Scope, agentId: string | null, venueId?: string | null): boolean {
  if (scope.kind === 'all') return true;
  if (scope.kind === 'none' || agentId == null || !scope.agents.includes(agentId)) return false;
  const venues = scope.venues[agentId];
  return venues === undefined || (venueId != null && venues.includes(venueId));
}

/** The permissions a person has anywhere (the console's navigation). */
export function permissionsOf(memberships: readonly Membership[]): Permission[] {
  return PERMISSIONS.filter((p) => memberships.some((m) => roleAllows(m.role, p)));
}
