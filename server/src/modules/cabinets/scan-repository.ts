// The scan's read (checkisok) in one round trip: the session, cabinet, venue, price plans, stock, the user's wallet
// and open rentals (READ_MODELS in test/architecture.test.ts). The base of CabinetsRepository, on the inbox.
import type { DeviceKind } from '#core/devices.ts';
import type { Account } from '../ledger/service.ts';
import { LIVE_SESSION } from '../auth/live-session-repository.ts';
import {
  EFFECTIVE_PLAN,
  PLAN_KINDS,
  RETURN_SLOTS,
  type PlanRow,
  type VenueRow,
} from '../venues/read-model-repository.ts';
import { CabinetInbox } from './inbox-repository.ts';

export interface CabinetRow {
  id: string;
  venue_id: string;
  slot_count: number;
  online: boolean;
  last_seen_at: Date | null;
}

/** Everything the scan (checkisok) answers from, read in one round trip. */
export interface ScanView {
  /** As stored: `online` is the cabinet's own flag; the liveness rule (`isLive`) is applied by the reader. */
  cabinet: CabinetRow;
  venue: VenueRow;
  plan: PlanRow | undefined;
  /** The user's wallet account in the venue's currency of `walletAgent`, if it has one. */
  wallet: Account | undefined;
  /** The agent whose wallet the scan read (the platform's: wallets follow it today). */
  walletAgent: string;
  /** Lendable devices of the scanned kind in the cabinet's slots. */
  available: number;
  /** Lendable devices of each kind in the cabinet's slots (what /selectPakage offers). */
  counts: Record<DeviceKind, number>;
  /** The venue's plan of each kind it has one for (a power station or Wi-Fi box plan makes that line offered). */
  planKinds: DeviceKind[];
  /** The venue's Wi-Fi box plan (its deposit is shown with the power bank's), if it has one. */
  mifiPlan: PlanRow | undefined;
  /** The user's open rentals. */
  openCount: number;
  /**
   * Slots a power bank can be returned into now (venues' RETURN_SLOTS): empty, not locked, and kept by no held
   * return reservation of another rider (the reader's own reservation keeps its slot for them).
   */
  returnSlots: number;
  /** What the scan reads of the venue's agent: its country, and whether every deposit there is paid (deposit_by_payment). */
  agent: { country: string | null; depositByPayment: boolean };
}

const json = <T>(v: T | string | null): T | undefined =>
  v === null ? undefined : typeof v === 'string' ? (JSON.parse(v) as T) : v;

/** The scan's read; the inbox and reject counters are its base (inbox-repository.ts). */
export class CabinetScanRead extends CabinetInbox {
  /**
   * The scan's session, cabinet, venue, price plans, stock, the user's wallet in the venue currency and open rental
   * count: one joined query (a named prepared statement on PostgreSQL), the session included so that the scan is
   * one round trip (the same session rule as every other route: auth's LIVE_SESSION). Undefined when the session
   * is not valid; `view` undefined when the cabinet does not exist. The cabinet as stored (see ScanView).
   * `tokenHash` null: the read without a session (the public scan): no wallet, no open rentals, userId 0.
   */
  async scanView(
    cabinetId: string,
    session: { tokenHash: string | null; at: Date },
    openStates: readonly number[],
    agent: string,
    kind: DeviceKind = 'cdb',
  ): Promise<{ userId: number; sessionExpiresAt: Date | null; view: ScanView | undefined } | undefined> {
    const { rows } = await this.db.query<{
      user_id: number | string | null;
      expires_at: Date | string | null;
      venue: VenueRow | string | null;
      plan: PlanRow | string | null;
      mifi_plan: PlanRow | string | null;
      wallet: Account | string | null;
      counts: Record<string, number> | string | null;
      plan_kinds: string[] | null;
      open_count: number | null;
      id: string | null;
      venue_id: string;
      slot_count: number;
      online: boolean;
      last_seen_at: Date | null;
      return_slots: number | null;
      agent_country: string | null;
      deposit_by_payment: boolean | null;
    }>(
      `with me as (select u.id as user_id, s.expires_at from sessions s join users u on u.id = s.user_id where ${LIVE_SESSION('s', '$2', '$3')})
       select me.user_id, me.expires_at, x.* from (select 1) one left join me on true left join lateral (
         select c.id, c.venue_id, c.slot_count, c.online, c.last_seen_at, to_jsonb(v) as venue, ${EFFECTIVE_PLAN('v', '$6', '$3')} as plan,
              ${EFFECTIVE_PLAN('v', `'mifi'`, '$3')} as mifi_plan,
              (select to_jsonb(a) from ledger_accounts a
                where a.owner_type = 'user' and a.owner_id = me.user_id::text and a.currency = v.currency and a.agent_id = $4 and a.kind = 'wallet'
                limit 1) as wallet,
              (select coalesce(jsonb_object_agg(k.kind, k.n), '{}'::jsonb) from
                 (select b.kind, count(*)::int as n from powerbanks b where b.cabinet_id = c.id and b.state = 'in_cabinet' group by b.kind) k) as counts,
              ${PLAN_KINDS('v', '$3')} as plan_kinds,
              ${RETURN_SLOTS('c', '$3', 'me.user_id')}::int as return_slots,
              (select count(*)::int from orders o where o.user_id = me.user_id and o.zujie = any($5::smallint[]) and not o.settled) as open_count,
              ag.country as agent_country, ag.deposit_by_payment
           from cabinets c join venues v on v.id = c.venue_id left join agents ag on ag.id = v.agent_id
          where c.id = $1) x on true`,
      [cabinetId, session.tokenHash, session.at, agent, openStates, kind],
      { name: 'cabinets.scanView' },
    );
    const r = rows[0];
    if (!r || (r.user_id === null && session.tokenHash !== null)) return undefined;
    const userId = Number(r.user_id ?? 0);
    const sessionExpiresAt = r.expires_at === null ? null : new Date(r.expires_at);
    if (r.id === null) return { userId, sessionExpiresAt, view: undefined };
    const cabinet: CabinetRow = {
      id: r.id,
      venue_id: r.venue_id,
      slot_count: r.slot_count,
      online: r.online,
      last_seen_at: r.last_seen_at,
    };
    const c = json(r.counts) ?? {};
    const counts: Record<DeviceKind, number> = {
      cdb: Number(c.cdb ?? 0),
      station: Number(c.station ?? 0),
      mifi: Number(c.mifi ?? 0),
    };
    return {
      userId,
      sessionExpiresAt,
      view: {
        cabinet,
        venue: json(r.venue)!,
        plan: json(r.plan),
        mifiPlan: json(r.mifi_plan),
        wallet: json(r.wallet),
        walletAgent: agent,
        available: counts[kind],
        counts,
        planKinds: (r.plan_kinds ?? []) as DeviceKind[],
        openCount: Number(r.open_count),
        returnSlots: Number(r.return_slots ?? 0),
        agent: { country: r.agent_country?.trim() || null, depositByPayment: r.deposit_by_payment === true },
      },
    };
  }
}
