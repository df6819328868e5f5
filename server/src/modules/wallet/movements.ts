// The rider's transactions (GET cdb/user/wallet/list): the ledger's movements of their wallets, newest first. A
// withdrawal's movements (its request, and a hold's post) show the withdrawal's status: pending, awaiting payout
// (a bank transfer an operator has still to make), paid, rejected; a rejected bank withdrawal's money coming back is
// a movement of its own (withdrawal_reversal). A deposit held from the wallet is "held" while its rental or box is
// out, "done" once settled; what came back of it is a movement of its own (deposit_release).
import { toMajor } from '#core/money.ts';
import type { UserRow } from '../auth/service.ts';
import type { LedgerService } from '../ledger/service.ts';
import { parseCurrency } from './payouts.ts';
import type { WalletRepository } from './repository.ts';

export interface MovementsQuery {
  currency?: string;
  agentId?: string;
  page: number;
  pageSize: number;
}

export async function movements(
  d: { ledger: LedgerService; repo: WalletRepository },
  user: UserRow,
  inp: MovementsQuery,
) {
  const currency = inp.currency ? parseCurrency(inp.currency) : null;
  const agent = inp.agentId || null;
  const { total, rows } = await d.ledger.walletMovements(user.id, {
    currency,
    agent,
    limit: inp.pageSize,
    offset: (inp.page - 1) * inp.pageSize,
  });
  const withdrawals = await d.repo.statusByHold(rows.map((r) => r.pending_id ?? r.id));
  return {
    total,
    records: rows.map((r) => ({
      id: r.id,
      type: r.code,
      orderId: r.order_id ?? '',
      amount: (r.credit ? 1 : -1) * toMajor(Number(r.amount), r.currency),
      currency: r.currency,
      pDailiId: r.agent_id,
      status: withdrawals.get(r.pending_id ?? r.id) ?? holdStatus(r),
      createdAt: new Date(r.created_at).toISOString(),
    })),
  };
}

function holdStatus(r: { flag: string; code: string; resolved: boolean }) {
  if (r.flag !== 'pending' || r.resolved) return 'done';
  return r.code === 'deposit_hold' || r.code === 'mifi_deposit' ? 'held' : 'pending';
}
