// The ops API's money views (money.read: finance, admins, owners): balances per currency, agent and account kind
// (of the caller's agents), and the ledger's invariants (platform-wide memberships only: the check spans every
// agent), through the same check as npm run ledger:check (wallet/reconcile.ts, given by the composition).
import { Balances, LedgerCheck, MoneyResponses } from '#contract/ops/money.ts';
import { AppError } from '../../lib/errors.ts';
import type { App } from '../../lib/route.ts';
import type { LedgerRepository } from './repository.ts';

export function moneyOpsRoutes(o: {
  repo: LedgerRepository;
  check: () => Promise<{ invariant: string; detail: string }[]>;
}) {
  return async (ops: App) => {
    ops.get(
      '/money/balances',
      { config: { permission: 'money.read' }, schema: { response: { 200: Balances, ...MoneyResponses } } },
      async (req) => {
        const s = req.opsScope;
        const rows = await o.repo.balances(s.kind === 'all' ? null : s.kind === 'agents' ? s.agents : []);
        return {
          items: rows.map((r) => ({
            currency: r.currency.trim(),
            agentId: r.agent_id,
            ownerType: r.owner_type,
            kind: r.kind,
            accounts: r.accounts,
            posted: Number(r.posted),
            pending: Number(r.pending),
          })),
        };
      },
    );
    ops.get(
      '/money/ledger-check',
      {
        config: { permission: 'money.read' },
        schema: {
          description: 'Platform-wide memberships only (403 otherwise).',
          response: { 200: LedgerCheck, ...MoneyResponses },
        },
      },
      async (req) => {
        if (req.opsScope.kind !== 'all') throw new AppError(403, 'ops.error.forbidden');
        const violations = await o.check();
        return { ok: violations.length === 0, violations };
      },
    );
  };
}
