// Withdrawals for the queue's tests: a rider with money in an agent's wallet (through the ledger, as a top-up is),
// and a bank withdrawal awaiting payout made the way the wallet makes one (the money moved to payouts in transit and
// the row, in one unit of work) for test-mode apps, whose sandbox rail would otherwise pay every bank channel at once.
import type { PowerlyApp } from '../../src/app.ts';
import type { Db } from '../../src/db/db.ts';
import { WalletRepository } from '../../src/modules/wallet/repository.ts';
import { providerOwner, userOwner } from '../../src/modules/ledger/service.ts';
import type { TestClock } from '../helper.ts';
import { touristToken } from '../helper.ts';

let seq = 0;

export async function fundedRider(app: PowerlyApp, clock: TestClock, agent: string, minor: number, currency = 'EUR') {
  const token = await touristToken(app, `queue${++seq}-${process.pid}`);
  const user = await app.powerly.auth.authenticate(token);
  const l = app.powerly.ledger;
  await l.transfer({
    debit: await l.account(providerOwner('test-topups'), 'clearing', currency, agent),
    credit: await l.account(userOwner(user.id), 'wallet', currency, agent),
    amount: minor,
    code: 'wallet_topup',
    orderId: null,
    at: clock.now(),
  });
  clock.advance(1000);
  return { token, user };
}

export async function awaitingWithdrawal(
  { app, db, clock }: { app: PowerlyApp; db: Db; clock: TestClock },
  userId: number,
  agent: string,
  amount: number,
  currency = 'EUR',
): Promise<string> {
  const { ledger, wallet } = app.powerly;
  const id = `TXQ${Date.now().toString(36)}${++seq}`;
  const at = clock.now();
  await db.tx(async () => {
    const account = await ledger.account(userOwner(userId), 'wallet', currency, agent);
    const hold = await wallet.withdrawals.bank.moveToTransit(account, { id, currency, agent, amount, at });
    await new WalletRepository(db).insertWithdrawal({
      id,
      user_id: userId,
      agent_id: agent,
      currency,
      amount,
      refund_type: 1,
      channel_id: 'payout-sepa',
      account_data: { accountHolder: 'Ana Silva', iban: 'LT121000011101001000', country: 'LT' },
      remark: null,
      hold_transfer_id: hold,
      provider: null,
      request_key: null,
      at,
      bank: true,
      status: 'awaiting_payout',
    });
  });
  clock.advance(1000);
  return id;
}
