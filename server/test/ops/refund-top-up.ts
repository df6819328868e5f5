// A wallet top-up given back to its card in part, as the desk's refund to the card does for a rental
// (rentals/ops-refund.ts): the provider refunds the payment (the real adapter, through PaymentsService.refund) and
// the ledger moves the amount from the wallet back out through the provider's clearing, on the top-up's order.
import type { Built } from '../helper.ts';

export async function refundTopUp(b: Built, providerRef: string, amount: number, key: string) {
  const {
    rows: [p],
  } = await b.db.query<{ id: string; order_id: string }>('select id, order_id from payments where provider_ref = $1', [
    providerRef,
  ]);
  if (!p) throw new Error(`no payment ${providerRef}`);
  await b.app.powerly.payments.refund(p.id, amount, key);
  const {
    rows: [t],
  } = await b.db.query<
    Record<'d_type' | 'd_id' | 'd_kind' | 'c_type' | 'c_id' | 'c_kind' | 'currency' | 'agent', string>
  >(
    `select d.owner_type as d_type, d.owner_id as d_id, d.kind as d_kind, c.owner_type as c_type, c.owner_id as c_id, c.kind as c_kind, d.currency, d.agent_id as agent
       from ledger_transfers t join ledger_accounts d on d.id = t.debit_account_id join ledger_accounts c on c.id = t.credit_account_id
      where t.order_id = $1 and d.owner_type = 'provider' and d.kind = 'clearing' order by t.created_at limit 1`,
    [p.order_id],
  );
  if (!t) throw new Error(`no capture of ${providerRef} in the ledger`);
  const ledger = b.app.powerly.ledger;
  const clearing = await ledger.account({ type: t.d_type, id: t.d_id }, t.d_kind, t.currency.trim(), t.agent);
  const wallet = await ledger.account({ type: t.c_type, id: t.c_id }, t.c_kind, t.currency.trim(), t.agent);
  await ledger.transfer({
    debit: wallet,
    credit: clearing,
    amount,
    code: 'desk_refund',
    orderId: p.order_id,
    at: b.clock.now(),
    mustNotOverdraw: true,
  });
}
