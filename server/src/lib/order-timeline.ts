// One order's timeline, written once for the support desk's rentals and Wi-Fi packages: every cabinet command and
// the events answering it or of the order's power bank (the cabinet's own timestamps), every payment change and
// provider notification, every ledger entry, every message sent to the rider and every staff action, in order.
// Each source is the owning module's history read model, composed in desk.ts.
import type { TimelineEntry } from '#contract/ops/rentals.ts';

export const iso = (d: Date | string | null | undefined) => (d ? new Date(d).toISOString() : undefined);

export interface TimelineSources {
  cabinets: {
    commandsOfOrder(orderId: string): Promise<
      Array<{
        id: string;
        cabinet_id: string;
        type: string;
        created_at: Date;
        expires_at: Date;
        acked_at: Date | null;
        result: string | null;
      }>
    >;
    eventsOf(
      commandIds: string[],
      powerbankId: string | null,
      from: Date,
      to: Date,
    ): Promise<
      Array<{
        id: string;
        cabinet_id: string;
        type: string;
        cabinet_ts: Date | null;
        received_at: Date;
        state: string;
        powerbank_id: string | null;
        payload: unknown;
      }>
    >;
  };
  payments: {
    timeline(orderId: string): Promise<
      Array<{
        payment_id: string;
        purpose: string;
        from_status: string | null;
        to_status: string;
        amount: number | null;
        at: Date;
        currency: string;
      }>
    >;
  };
  paymentsHistory: {
    eventsOfOrder(orderId: string): Promise<Array<{ id: string; provider: string; type: string; received_at: Date }>>;
  };
  ledger: {
    ofOrder(orderId: string): Promise<
      Array<{
        id: string;
        amount: number;
        currency: string;
        flag: string;
        code: string;
        created_at: Date;
        debit_owner: string;
        debit_kind: string;
        credit_owner: string;
        credit_kind: string;
      }>
    >;
  };
  notify: { ofOrder(orderId: string): Promise<Array<{ email: string; message_id: string; sent_at: Date }>> };
  audit: {
    list(
      f: { entity: string; entityId: string; agents: null },
      cursor: undefined,
      limit: number,
    ): Promise<{
      items: Array<{
        at: string;
        action: string;
        staffEmail?: string;
        reason?: string;
        before?: unknown;
        after?: unknown;
      }>;
    }>;
  };
}

export interface TimelineOf {
  /** The ids the sources know the order by (a Wi-Fi package: the package's and its order's). */
  orderIds: string[];
  /** The power bank (or Wi-Fi box) whose cabinet events in [since, until] belong to the order. */
  powerbankId: string | null;
  since: Date;
  until: Date;
  /** Whose staff actions (the audit log's entity and id). */
  entity: string;
  entityId: string;
}

/** The order's entries from every source, each source in its own order (`inOrder` sorts them). */
export async function orderEntries(d: TimelineSources, o: TimelineOf) {
  const entries: TimelineEntry[] = [];
  const each = async <T>(read: (id: string) => Promise<T[]>) => (await Promise.all(o.orderIds.map(read))).flat();
  const commands = await each((id) => d.cabinets.commandsOfOrder(id));
  for (const c of commands) {
    entries.push({
      at: iso(c.created_at)!,
      source: 'cabinet',
      what: `cabinet.command.${c.type}`,
      detail: {
        commandId: c.id,
        cabinetId: c.cabinet_id,
        expiresAt: iso(c.expires_at),
        ackedAt: iso(c.acked_at),
        result: c.result ?? undefined,
      },
    });
  }
  for (const e of await d.cabinets.eventsOf(
    commands.map((c) => c.id),
    o.powerbankId,
    o.since,
    o.until,
  )) {
    const p = (e.payload ?? {}) as Record<string, unknown>;
    entries.push({
      at: iso(e.cabinet_ts ?? e.received_at)!,
      receivedAt: iso(e.received_at),
      source: 'cabinet',
      what: `cabinet.${e.type}`,
      detail: {
        eventId: e.id,
        cabinetId: e.cabinet_id,
        powerbankId: e.powerbank_id ?? undefined,
        slot: p.slot,
        reason: p.reason ?? p.fault,
        state: e.state,
      },
    });
  }
  for (const t of await each((id) => d.payments.timeline(id))) {
    entries.push({
      at: iso(t.at)!,
      source: 'payment',
      what: `payment.${t.to_status.replace(/:.*$/, '')}`,
      ...(t.amount != null ? { amount: { amount: Number(t.amount), currency: String(t.currency).trim() } } : {}),
      detail: { paymentId: t.payment_id, purpose: t.purpose, from: t.from_status ?? undefined, to: t.to_status },
    });
  }
  for (const e of await each((id) => d.paymentsHistory.eventsOfOrder(id))) {
    entries.push({
      at: iso(e.received_at)!,
      source: 'provider',
      what: `provider.${e.type}`,
      detail: { eventId: e.id, provider: e.provider },
    });
  }
  const transfers = await each((id) => d.ledger.ofOrder(id));
  for (const t of transfers) {
    entries.push({
      at: iso(t.created_at)!,
      source: 'ledger',
      what: `ledger.${t.code}`,
      amount: { amount: t.amount, currency: t.currency },
      detail: {
        transferId: t.id,
        flag: t.flag,
        debit: `${t.debit_owner} ${t.debit_kind}`,
        credit: `${t.credit_owner} ${t.credit_kind}`,
      },
    });
  }
  for (const m of await each((id) => d.notify.ofOrder(id))) {
    entries.push({
      at: iso(m.sent_at)!,
      source: 'message',
      what: 'message.receipt',
      detail: { email: m.email, messageId: m.message_id },
    });
  }
  for (const a of (await d.audit.list({ entity: o.entity, entityId: o.entityId, agents: null }, undefined, 200))
    .items) {
    entries.push({
      at: a.at,
      source: 'staff',
      what: `staff.${a.action}`,
      detail: { staffEmail: a.staffEmail, reason: a.reason, before: a.before, after: a.after },
    });
  }
  return { entries, transfers };
}

/** In time order; entries of one instant keep the order they were given in (the order's own step first). */
export function inOrder(entries: TimelineEntry[]): TimelineEntry[] {
  return entries
    .map((e, i) => ({ e, i }))
    .sort((a, b) => a.e.at.localeCompare(b.e.at) || a.i - b.i)
    .map((x) => x.e);
}
