// The withdrawals queue of the back office (ops API /withdrawals, docs/operations.md "Withdrawals queue"): bank
// withdrawals with the payee's fields, scoped to the person's agents (outside: 404), and three actions, each one
// unit of work under the withdrawal's lock with its audit entry: approve (the payout adapter that pays the channel
// pays it; bank-payouts.ts), record a manual bank transfer's reference, reject with a reason (the money goes back
// to the wallet through the ledger). A repeat of one's own action answers it as it is; a second person acting on
// a withdrawal someone already handled gets a 409 naming who (operatorTurn). The `npm run payouts` script calls the
// same bank payouts service.
import { inScope, type Scope } from '#core/opsAccess.ts';
import {
  WITHDRAWAL_CSV_COLUMNS,
  type WithdrawalExportQuery,
  type WithdrawalItem,
  type WithdrawalListQuery,
  type WithdrawalPage,
} from '#contract/ops/withdrawals.ts';
import type { Db } from '../../db/db.ts';
import { badRequest, notFound } from '../../lib/errors.ts';
import { decodeCursor, pageOf } from '../../lib/ops-query.ts';
import { csvPages } from '../../lib/csv.ts';
import type { Actor, AuditService } from '../audit/service.ts';
import { operatorTurn, type BankPayouts, type OperatorAction } from './bank-payouts.ts';
import type { BankSearch, WalletRepository, WithdrawalRow } from './repository.ts';

const TX_ID = /^[A-Za-z0-9_-]{1,64}$/;

export interface PayoutQueueDeps {
  db: Db;
  repo: WalletRepository;
  bank: BankPayouts;
  audit: AuditService;
  /** The riders a search text names (id, phone digits, e-mail): the auth module's, composed in ops-routes.ts. */
  ridersMatching: (q: string) => Promise<number[]>;
}

export class PayoutQueue {
  constructor(private readonly d: PayoutQueueDeps) {}

  private async searchOf(scope: Scope, q: WithdrawalExportQuery): Promise<BankSearch> {
    const text = q.q?.trim();
    return {
      state: q.state === 'all' ? null : (q.state ?? 'awaiting_payout'),
      agents: scope.kind === 'all' ? null : scope.kind === 'agents' ? scope.agents : [],
      ...(text ? { q: text, qUsers: await this.d.ridersMatching(text) } : {}),
      ...(q.from ? { from: new Date(q.from) } : {}),
      ...(q.to ? { to: new Date(q.to) } : {}),
    };
  }

  async list(scope: Scope, q: WithdrawalListQuery): Promise<WithdrawalPage> {
    const after = decodeCursor(q.cursor, TX_ID);
    if (after && Number.isNaN(Date.parse(after[0]))) throw badRequest('ops.error.cursor');
    const limit = q.limit ?? 50;
    const rows = await this.d.repo.bankPage({ ...(await this.searchOf(scope, q)), after, limit: limit + 1 });
    return pageOf(
      rows,
      limit,
      (r) => [new Date(r.created_at).toISOString(), r.id],
      (r) => this.item(r),
    );
  }

  /** The search as CSV, page by page (never the whole result in memory). */
  async csv(scope: Scope, q: WithdrawalExportQuery): Promise<AsyncGenerator<string>> {
    const search = await this.searchOf(scope, q);
    return csvPages({
      columns: WITHDRAWAL_CSV_COLUMNS,
      page: (after, limit) => this.d.repo.bankPage({ ...search, after, limit }),
      cursorOf: (r) => [new Date(r.created_at).toISOString(), r.id],
      records: (rows) =>
        rows.map((r) => {
          const w = this.item(r);
          return [
            w.id,
            w.createdAt,
            w.state,
            w.userId,
            w.agentId,
            w.amount,
            w.currency,
            w.channel,
            w.payee,
            w.provider,
            w.providerRef,
            w.bankReference,
            w.approvedBy,
            w.settledBy,
            w.waitReason,
          ];
        }),
    });
  }

  async get(scope: Scope, id: string): Promise<WithdrawalItem> {
    const wd = await this.d.bank.find(id);
    if (!wd?.bank || !inScope(scope, wd.agent_id)) throw notFound('error.notFound');
    return this.item(wd);
  }

  approve(scope: Scope, actor: Actor, id: string) {
    return this.act(scope, actor, id, { action: 'approve', who: whoOf(actor) }, async (wd, who) => {
      await this.d.bank.approveLocked(wd, who);
    });
  }

  recordManual(scope: Scope, actor: Actor, id: string, bankReference: string) {
    const reference = bankReference.trim();
    return this.act(scope, actor, id, { action: 'record', who: whoOf(actor), reference }, async (wd, who) => {
      await this.d.bank.recordManualPayout(wd.id, reference, who, actor.reason ?? undefined);
    });
  }

  reject(scope: Scope, actor: Actor, id: string) {
    return this.act(scope, actor, id, { action: 'reject', who: whoOf(actor) }, async (wd, who) => {
      await this.d.bank.rejectPayout(wd.id, actor.reason ?? '', who);
    });
  }

  private async act(
    scope: Scope,
    actor: Actor,
    id: string,
    a: OperatorAction,
    run: (wd: WithdrawalRow, who: string) => Promise<void>,
  ): Promise<WithdrawalItem> {
    const changed = await this.d.db.tx(async () => {
      const before = await this.d.bank.lock(id);
      if (!before?.bank || !inScope(scope, before.agent_id)) throw notFound('error.notFound');
      if (operatorTurn(before, a) === 'done') return false;
      await run(before, a.who);
      const after = (await this.d.bank.find(id))!;
      await this.d.audit.record(actor, {
        action: `withdrawal.${a.action}`,
        entity: 'withdrawal',
        entityId: id,
        agentId: before.agent_id,
        before: snapshot(before),
        after: snapshot(after),
      });
      return true;
    });
    // An approval is submitted to its payout adapter after the commit (its job is the safety net).
    if (changed && a.action === 'approve') await this.d.bank.submitNow(id);
    return this.item((await this.d.bank.find(id))!);
  }

  private item(r: WithdrawalRow): WithdrawalItem {
    const opt = (v: string | null | undefined) => (v == null || v === '' ? undefined : v);
    const rail = r.status === 'awaiting_payout' ? this.d.bank.approvalRail(r)?.id : undefined;
    return {
      id: r.id,
      userId: String(r.user_id),
      agentId: r.agent_id,
      amount: Number(r.amount),
      currency: r.currency,
      state: r.status === 'manual_review' ? 'awaiting_payout' : r.status,
      channel: r.channel_id ?? 'manual',
      payee: r.account_data ?? {},
      createdAt: new Date(r.created_at).toISOString(),
      rail,
      provider: opt(r.provider),
      providerRef: opt(r.provider_ref),
      waitReason: opt(r.settle_reason ?? r.failure_code),
      bankReference: opt(r.bank_reference),
      approvedBy: opt(r.approved_by),
      settledBy: opt(r.settled_by),
    };
  }
}

/** Who acted, as stored on the withdrawal: the person's e-mail (their staff id without one). */
const whoOf = (a: Actor) => a.email ?? `staff:${a.staffId ?? '?'}`;

/** What the audit log keeps of a withdrawal before and after an action (the payee's fields stay on the row). */
const snapshot = (r: WithdrawalRow) => ({
  status: r.status,
  amount: Number(r.amount),
  currency: r.currency,
  provider: r.provider,
  bankReference: r.bank_reference,
  approvedBy: r.approved_by ?? null,
  settledBy: r.settled_by,
  reason: r.settle_reason,
});
