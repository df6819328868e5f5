// The support desk's search of payments (ops-search.ts): newest first in keyset pages. A payment of a rental is
// inside the scope of its venue's agent (a venue partner's: of that venue); any other payment (a wallet top-up, a
// Wi-Fi order) inside the scope of the agents the rider is a customer of (customerOfSql).
import type { Queryable } from '../../db/db.ts';
import { customerOfSql } from '../auth/riders-repository.ts';
import type { PaymentRow } from './repository.ts';

export interface PaymentSearch {
  /** Agents whose every object the caller sees (null: every agent), and the `agent/venue` pairs of a partner's venues. */
  agents: string[] | null;
  pairs: string[];
  q?: string;
  userIds: number[] | null;
  cardLast4?: string;
  provider?: string;
  purpose?: string;
  status?: string;
  powerbankId?: string;
  cabinetId?: string;
  venueId?: string;
  from?: Date;
  to?: Date;
}

/** A payment's row (repository.ts PaymentRow) with what the desk's list shows beside it. */
export interface PaymentSearchRow extends Omit<
  PaymentRow,
  'failure_code' | 'refunded_amount' | 'card_brand' | 'card_last4' | 'created_at'
> {
  refunded_amount: number;
  card_brand: string | null;
  card_last4: string | null;
  created_at: Date;
  updated_at: Date;
  agent_id: string | null;
  cabinet_id: string | null;
}

export class PaymentsOpsRepository {
  constructor(private readonly db: Queryable) {}

  /** Newest first, after the cursor `[created_at, id]`; `limit` rows. */
  async search(f: PaymentSearch, after: [string, string] | undefined, limit: number): Promise<PaymentSearchRow[]> {
    const { rows } = await this.db.query<PaymentSearchRow>(
      `select p.id, p.provider, p.provider_ref, p.user_id, p.order_id, p.purpose, p.amount, p.currency, p.status, p.captured_amount,
              p.refunded_amount, p.card_brand, p.card_last4, p.created_at, p.updated_at, v.agent_id, coalesce(o.cabinet_id, m.cabinet_id) as cabinet_id
         from payments p
         left join orders o on o.id = p.order_id
         left join venues v on v.id = o.venue_id
         left join mifi_orders m on m.id = p.order_id
        where ($1::text[] is null
               or (o.id is not null and (v.agent_id = any($1::text[]) or (v.agent_id || '/' || v.id) = any($2::text[])))
               or (o.id is null and ${customerOfSql('p.user_id', '$1')}))
          and ($3::text is null or p.id = $3 or p.provider_ref = $3 or p.order_id = $3)
          and ($4::bigint[] is null or p.user_id = any($4::bigint[]))
          and ($5::text is null or p.provider = $5)
          and ($6::text is null or p.purpose = $6)
          and ($7::text is null or p.status = $7 or p.status like $7 || ':%')
          and ($8::text is null or o.powerbank_id = $8)
          and ($9::text is null or o.cabinet_id = $9 or o.return_cabinet_id = $9 or m.cabinet_id = $9)
          and ($10::text is null or o.venue_id = $10)
          and ($11::timestamptz is null or p.created_at >= $11)
          and ($12::timestamptz is null or p.created_at < $12)
          and ($13::timestamptz is null or (p.created_at, p.id) < ($13::timestamptz, $14::text))
          and ($16::text is null or p.card_last4 = $16)
        order by p.created_at desc, p.id desc limit $15`,
      [
        f.agents,
        f.pairs,
        f.q ?? null,
        f.userIds,
        f.provider ?? null,
        f.purpose ?? null,
        f.status ?? null,
        f.powerbankId ?? null,
        f.cabinetId ?? null,
        f.venueId ?? null,
        f.from ?? null,
        f.to ?? null,
        after?.[0] ?? null,
        after?.[1] ?? null,
        limit,
        f.cardLast4 ?? null,
      ],
    );
    return rows.map((r) => ({
      ...r,
      user_id: Number(r.user_id),
      amount: Number(r.amount),
      captured_amount: Number(r.captured_amount),
      refunded_amount: Number(r.refunded_amount),
      currency: String(r.currency).trim(),
    }));
  }
}
