// Cabinets in the back office: what the ops API (ops-routes.ts) does, inside the caller's scope (a cabinet of
// another agent, or of a venue a venue partner does not hold, is not found), each write recorded in the audit log
// in its own unit of work with the reason typed. Registration, the CSV import and the broker credentials are the
// fleet service's (fleet.ts); this adds the agent, the scope, concurrency, the live view and remote commands.
import {
  SLOT_COMMANDS,
  type CabinetAssignBody,
  type CabinetCommandType,
  type CabinetCommandBody,
  type CabinetCommandSent,
  type CabinetImportBody,
  type CabinetListQuery,
  type CabinetRegisterBody,
  type OpsCabinet,
} from '#contract/ops/cabinets.ts';
import type { CabinetImportReport, FieldIssue } from '#contract/ops-fleet.ts';
import type { DevicePlaceBody } from '#contract/ops/mifi.ts';
import { inScope, type Scope } from '#core/opsAccess.ts';
import type { Db } from '../../db/db.ts';
import type { Clock } from '../../lib/clock.ts';
import { conflict, notFound, refused } from '../../lib/errors.ts';
import { t, type Locale } from '../../lib/i18n.ts';
import { uuid } from '../../lib/ids.ts';
import { decodeCursor, pageOf, scopeParams } from '../../lib/ops-query.ts';
import { staleVersion } from '../../lib/ops-concurrency.ts';
import { FieldErrors } from '../../lib/validate.ts';
import type { Actor, AuditService } from '../audit/service.ts';
import { csvFields, type CabinetFleetService } from './fleet.ts';
import type { CabinetLink } from './link.ts';
import type { Liveness } from './liveness.ts';
import type { CabinetOpsRepository, OpsCabinetRow } from './ops-repository.ts';
import type { ServerMessage, SlotState } from './protocol.ts';
import { PROTOCOL_VERSION } from './protocol.ts';

/** How long a remote command stays valid for its cabinet. */
export const OPS_COMMAND_TTL_MS = 30_000;
/**
 * The remote commands each family's cabinets take (docs/cabinet-protocol.md "Vendor families"): ours all but the
 * volume (our cabinets have no speaker); the 0xA8 and TCP families a restart, an inventory report and the volume
 * but no slot lock; any other family ejects only.
 */
const VENDOR_COMMANDS: Record<string, readonly CabinetCommandType[]> = {
  powerly: ['eject', 'lock', 'unlock', 'inventory', 'restart'],
  a8: ['eject', 'inventory', 'restart', 'volume'],
  tcp60: ['eject', 'inventory', 'restart', 'volume'],
};
const takes = (vendor: string, type: CabinetCommandType) => (VENDOR_COMMANDS[vendor] ?? ['eject']).includes(type);

const json = <T>(v: T | string | null): T | null => (typeof v === 'string' ? (JSON.parse(v) as T) : v);

export interface CabinetOpsDeps {
  db: Db;
  clock: Clock;
  repo: CabinetOpsRepository;
  fleet: CabinetFleetService;
  link: CabinetLink;
  liveness: Liveness;
  audit: AuditService;
  /** Whether an agent of that id exists (the embed module's). */
  agentExists: (agentId: string) => Promise<boolean>;
}

export class CabinetOpsService {
  constructor(private readonly d: CabinetOpsDeps) {}

  async list(scope: Scope, q: CabinetListQuery) {
    const limit = q.limit ?? 50;
    const rows = await this.d.repo.page({
      scope: scopeParams(scope),
      q: q.q,
      venueId: q.venueId,
      agentId: q.agentId,
      vendor: q.vendor,
      online: q.online === undefined ? undefined : q.online === 'true',
      since: this.d.liveness.since(),
      sort: q.sort,
      after: decodeCursor(q.cursor, /^[A-Za-z0-9._-]{1,64}$/),
      limit: limit + 1,
    });
    return pageOf(
      rows,
      limit,
      (r) => [r.sort_key, r.id],
      (r) => this.shape(r),
    );
  }

  /** One cabinet inside the scope (else 404). */
  async get(scope: Scope, id: string): Promise<OpsCabinet> {
    const [row] = await this.d.repo.page({ scope: scopeParams(scope), id, since: this.d.liveness.since(), limit: 1 });
    if (!row) throw notFound('ops.error.notFound');
    return this.shape(row);
  }

  async register(scope: Scope, actor: Actor, body: CabinetRegisterBody): Promise<OpsCabinet> {
    const { reason: _reason, agentId: given, ...cabinet } = body;
    return this.d.db.tx(async () => {
      const agentId = await this.agentFor(scope, cabinet.venueId ?? null, given);
      await this.d.fleet.register(cabinet);
      await this.d.repo.setAgent(cabinet.id, agentId);
      const after = await this.get(scope, cabinet.id);
      await this.d.audit.record(actor, {
        action: 'cabinet.register',
        entity: 'cabinet',
        entityId: cabinet.id,
        agentId,
        after: brief(after),
      });
      return after;
    });
  }

  /** Puts the cabinet at a venue of its agent (or of any agent, for a cabinet without one), or takes it off. */
  async assign(scope: Scope, actor: Actor, id: string, version: number, body: CabinetAssignBody): Promise<OpsCabinet> {
    return this.d.db.tx(async () => {
      const before = await this.get(scope, id);
      let agentId = before.agentId;
      if (body.venueId) {
        const venueAgent = await this.d.repo.venueAgent(body.venueId);
        if (venueAgent === undefined || !inScope(scope, venueAgent, body.venueId))
          throw new FieldErrors([{ field: 'venueId', code: 'notFound' }]);
        if (agentId && venueAgent && venueAgent !== agentId) throw refused('ops.error.cabinetAgent');
        agentId = venueAgent ?? agentId;
      }
      if (!(await this.d.repo.assign(id, version, body.venueId, agentId))) throw staleVersion();
      const after = await this.get(scope, id);
      await this.d.audit.record(actor, {
        action: 'cabinet.assign',
        entity: 'cabinet',
        entityId: id,
        agentId,
        before: brief(before),
        after: brief(after),
      });
      return after;
    });
  }

  /** A new broker password (the previous one is refused from now on); shown once, only its hash is kept. */
  async rotateCredentials(scope: Scope, actor: Actor, id: string) {
    return this.d.db.tx(async () => {
      const c = await this.get(scope, id);
      const issued = await this.d.fleet.issueCredentials(id);
      await this.d.audit.record(actor, {
        action: c.hasCredentials ? 'cabinet.credentials-rotate' : 'cabinet.credentials-issue',
        entity: 'cabinet',
        entityId: id,
        agentId: c.agentId,
        before: { hasCredentials: c.hasCredentials },
        after: { hasCredentials: true },
      });
      return issued;
    });
  }

  /** A power bank or a power station put in a free slot of the cabinet: lendable from there. */
  async placeDevice(scope: Scope, actor: Actor, id: string, body: DevicePlaceBody): Promise<OpsCabinet> {
    return this.d.db.tx(async () => {
      const c = await this.get(scope, id);
      await this.d.fleet.registerDevice({ id: body.id, kind: body.kind, cabinetId: id, slot: body.slot });
      await this.d.audit.record(actor, {
        action: 'cabinet.device-place',
        entity: 'cabinet',
        entityId: id,
        agentId: c.agentId,
        after: { device: body.id, kind: body.kind, slot: body.slot },
      });
      return this.get(scope, id);
    });
  }

  /**
   * A remote command: stored (cabinet_commands, without an order) and audited in one unit of work, then sent. The
   * cabinet's answer arrives as for any command (ack, then popped / pop-failed for an eject) and the live view
   * shows it. Refused when the cabinet is offline, its family does not take the command, or the slot is busy.
   */
  async command(scope: Scope, actor: Actor, id: string, body: CabinetCommandBody): Promise<CabinetCommandSent> {
    const slotted = SLOT_COMMANDS.includes(body.type);
    if (slotted && body.slot === undefined) throw new FieldErrors([{ field: 'slot', code: 'required' }]);
    if (body.type === 'volume' && body.level === undefined)
      throw new FieldErrors([{ field: 'level', code: 'required' }]);
    const slot = slotted ? body.slot! : null;
    const level = body.type === 'volume' ? body.level! : null;
    const commandId = uuid();
    const now = this.d.clock.now();
    const msg = await this.d.db.tx(async () => {
      const c = await this.get(scope, id);
      if (slot !== null && slot > c.slotCount) throw new FieldErrors([{ field: 'slot', code: 'range' }]);
      if (!c.online) throw conflict('ops.error.cabinetOffline', { id });
      if (!takes(c.vendor, body.type)) throw refused('ops.error.commandUnsupported', { vendor: c.vendor });
      if (body.type === 'eject' && (await this.d.repo.slotBusy(id, slot!, now)))
        throw conflict('ops.error.slotBusy', { slot: slot! });
      const m = message(body.type, commandId, slot, level, now);
      await this.d.repo.insertCommand({
        id: commandId,
        cabinetId: id,
        type: `ops.${body.type}`,
        payload: m,
        at: now,
        expiresAt: new Date(now.getTime() + OPS_COMMAND_TTL_MS),
      });
      const device = slot === null ? undefined : (c.slots[slot - 1]?.deviceId ?? null);
      await this.d.audit.record(actor, {
        action: `cabinet.${body.type}`,
        entity: 'cabinet',
        entityId: id,
        agentId: c.agentId,
        after: { commandId, ...(slot === null ? {} : { slot, device }), ...(level === null ? {} : { level }) },
      });
      return m;
    });
    try {
      await this.d.link.send(id, msg);
    } catch {
      await this.d.repo.commandResult(commandId, 'not-sent');
      throw conflict('ops.error.linkDown');
    }
    return { commandId, type: body.type, slot };
  }

  /**
   * The CSV import (fleet.ts) for the caller's agent: a row naming a venue outside the scope is a bad row too (and
   * nothing is imported); the report in the operator's language; audited when it imports.
   */
  async importCsv(scope: Scope, actor: Actor, body: CabinetImportBody, locale: Locale): Promise<CabinetImportReport> {
    return this.d.db.tx(async () => {
      const agentId = await this.agentFor(scope, null, body.agentId);
      const lines = body.csv
        .split(/\r?\n/)
        .map((text, i) => ({ n: i + 1, text }))
        .filter((l) => l.text.trim() !== '')
        .slice(1);
      const outside: FieldIssue[] = [];
      const rows: { id: string; agentId: string | null }[] = [];
      for (const { n, text } of lines) {
        const [id = '', , , venue = ''] = csvFields(text);
        const venueAgent = venue ? await this.d.repo.venueAgent(venue) : null;
        if (venue && venueAgent !== undefined && !inScope(scope, venueAgent, venue))
          outside.push({ row: n, field: 'venueId', code: 'notFound', message: '' });
        rows.push({ id, agentId: venueAgent ?? agentId });
      }
      const report = await this.d.fleet.importCsv({ csv: body.csv, dryRun: body.dryRun || outside.length > 0 });
      const issues = [...report.issues, ...outside]
        .sort((a, b) => (a.row ?? 0) - (b.row ?? 0))
        .map((i) => ({ ...i, message: t(locale, `error.field.${i.code}`, { field: i.field }) }));
      if (report.imported) {
        for (const r of rows) await this.d.repo.setAgent(r.id, r.agentId);
        const ids = rows.map((r) => r.id);
        await this.d.audit.record(actor, {
          action: 'cabinet.import',
          entity: 'cabinet',
          entityId: ids.join(',').slice(0, 200),
          agentId,
          after: { rows: report.rows, ids },
        });
      }
      return { ...report, issues };
    });
  }

  /**
   * The agent a new cabinet belongs to: its venue's; else the one named (inside the scope); else the caller's
   * only agent. A platform-wide caller may leave it without one.
   */
  private async agentFor(scope: Scope, venueId: string | null, given: string | undefined): Promise<string | null> {
    if (venueId) {
      const a = await this.d.repo.venueAgent(venueId);
      if (a === undefined || !inScope(scope, a, venueId))
        throw new FieldErrors([{ field: 'venueId', code: 'notFound' }]);
      if (given && a && given !== a) throw refused('ops.error.cabinetAgent');
      return a;
    }
    if (given) {
      if (!inScope(scope, given) || !(await this.d.agentExists(given)))
        throw new FieldErrors([{ field: 'agentId', code: 'notFound' }]);
      return given;
    }
    if (scope.kind === 'all') return null;
    const agents = scope.kind === 'agents' ? scope.agents.filter((a) => scope.venues[a] === undefined) : [];
    if (agents.length !== 1) throw new FieldErrors([{ field: 'agentId', code: 'required' }]);
    return agents[0]!;
  }

  private shape(r: OpsCabinetRow): OpsCabinet {
    const reported = json<SlotState[]>(r.inventory as SlotState[] | string | null) ?? [];
    const devices = json(r.devices) ?? [];
    const slots = Array.from({ length: r.slot_count }, (_, i) => {
      const n = i + 1;
      const dev = devices.find((x) => x.slot === n);
      const rep = reported.find((x) => x?.slot === n);
      const same = !!rep?.powerbankId && rep.powerbankId === dev?.id;
      return {
        slot: n,
        deviceId: dev?.id ?? null,
        kind: dev?.kind ?? null,
        state: dev?.state ?? null,
        charge: same && typeof rep.battery === 'number' ? rep.battery : null,
        temperature: typeof rep?.temperature === 'number' ? rep.temperature : null,
        faults: Array.isArray(rep?.faults)
          ? rep.faults.filter((f): f is string => typeof f === 'string').slice(0, 20)
          : [],
        locked: rep?.locked === true,
      };
    });
    const commands = (json(r.commands) ?? []).map((k) => ({
      id: k.id,
      type: k.type.replace(/^ops\./, ''),
      slot: k.slot,
      at: new Date(k.at).toISOString(),
      state: k.result ?? (k.acked ? 'accepted' : 'sent'),
    }));
    return {
      id: r.id,
      vendor: r.vendor,
      agentId: r.agent_id,
      venueId: r.venue_id,
      venueName: r.venue_name,
      slotCount: r.slot_count,
      online: this.d.liveness.isLive(r),
      lastHeartbeatAt: r.last_seen_at ? new Date(r.last_seen_at).toISOString() : null,
      offlineAfterMs: this.d.liveness.offlineAfterMs,
      hasCredentials: r.has_credentials,
      volume: r.volume ?? null,
      version: r.version,
      slots,
      commands,
    };
  }
}

/** What the audit log keeps of a cabinet (not its live slots). */
const brief = (c: OpsCabinet) => ({
  id: c.id,
  vendor: c.vendor,
  agentId: c.agentId,
  venueId: c.venueId,
  slotCount: c.slotCount,
});

function message(
  type: CabinetCommandBody['type'],
  id: string,
  slot: number | null,
  level: number | null,
  now: Date,
): ServerMessage {
  const base = { id, ts: now.toISOString(), ttlMs: OPS_COMMAND_TTL_MS };
  if (type === 'volume') return { v: 2, type: 'set-volume', ...base, level: level! };
  if (type === 'eject') return { v: PROTOCOL_VERSION, type: 'eject', ...base, slot };
  if (type === 'lock' || type === 'unlock')
    return { v: 2, type: 'slot-lock', ...base, slot: slot!, locked: type === 'lock' };
  return { v: 2, type: type === 'inventory' ? 'report-inventory' : 'restart', ...base };
}
