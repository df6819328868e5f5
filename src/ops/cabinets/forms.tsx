// Registering cabinets: one by serial and vendor family (checked in the browser as the server checks it), or many
// from CSV with a dry run first that lists every bad row (line, field, message in the operator's language).
import { useId, useState } from 'react';
import type { CabinetImportReport } from '../../contract/ops-fleet.ts';
import { CABINET_VENDORS } from '../../contract/ops/cabinets.ts';
import type { Me } from '../../contract/ops/staff.ts';
import { useT } from '../../i18n/index.ts';
import { opsCall } from '../api.ts';
import { useOpsForm } from '../paged.tsx';
import { go } from '../route.ts';
import { Problem } from '../screens/Problem.tsx';
import { ReasonField, vendorName } from './parts.tsx';

const SERIAL = '[A-Za-z0-9._\\-]{1,64}';

/** The agents the person may register for: none to choose for a platform member or one agent; else theirs. */
function agentChoices(me: Me): string[] {
  if (me.memberships.some((m) => m.agentId === '*')) return [];
  const agents = [...new Set(me.memberships.filter((m) => m.role !== 'venue_partner').map((m) => m.agentId))];
  return agents.length > 1 ? agents : [];
}

function AgentField({ me, value, onChange }: { me: Me; value: string; onChange: (v: string) => void }) {
  const t = useT();
  const choices = agentChoices(me);
  const platform = me.memberships.some((m) => m.agentId === '*');
  if (!platform && !choices.length) return null;
  return platform ? (
    <label>
      {t('ops.cabinets.agent')}
      <input maxLength={64} pattern={SERIAL} value={value} onChange={(e) => onChange(e.currentTarget.value)} />
    </label>
  ) : (
    <label>
      {t('ops.cabinets.agent')}
      <select required value={value} onChange={(e) => onChange(e.currentTarget.value)}>
        <option value="" />
        {choices.map((a) => (
          <option key={a} value={a}>
            {a}
          </option>
        ))}
      </select>
    </label>
  );
}

export function CabinetRegister({ me, onDone }: { me: Me; onDone: () => void }) {
  const t = useT();
  const { form, setForm, error, submit } = useOpsForm(
    { id: '', vendor: 'powerly', slots: '8', venueId: '', agentId: '', reason: '' },
    async (f) => {
      const id = f.id.trim();
      await opsCall('POST', '/cabinets', {
        id,
        vendor: f.vendor,
        slots: Number(f.slots),
        reason: f.reason,
        ...(f.venueId.trim() ? { venueId: f.venueId.trim() } : {}),
        ...(f.agentId ? { agentId: f.agentId } : {}),
      });
      onDone();
      go(`/cabinets?id=${encodeURIComponent(id)}`);
    },
  );
  const set = (k: keyof typeof form) => (v: string) => setForm({ ...form, [k]: v });
  return (
    <section aria-labelledby="ops-cab-register">
      <h2 id="ops-cab-register">{t('ops.cabinets.register')}</h2>
      <form className="ops-form" onSubmit={submit}>
        <label>
          {t('ops.cabinets.serial')}
          <input
            required
            pattern={SERIAL}
            title={t('ops.cabinets.serialHint')}
            value={form.id}
            onChange={(e) => set('id')(e.currentTarget.value)}
            autoComplete="off"
          />
        </label>
        <label>
          {t('ops.cabinets.vendor')}
          <select value={form.vendor} onChange={(e) => set('vendor')(e.currentTarget.value)}>
            {CABINET_VENDORS.map((v) => (
              <option key={v} value={v}>
                {vendorName(t, v)}
              </option>
            ))}
          </select>
        </label>
        <label>
          {t('ops.cabinets.slots')}
          <input
            type="number"
            required
            min={1}
            max={200}
            step={1}
            value={form.slots}
            onChange={(e) => set('slots')(e.currentTarget.value)}
          />
        </label>
        <label>
          {t('ops.cabinets.venueOptional')}
          <input
            maxLength={64}
            pattern={SERIAL}
            value={form.venueId}
            onChange={(e) => set('venueId')(e.currentTarget.value)}
          />
        </label>
        <AgentField me={me} value={form.agentId} onChange={set('agentId')} />
        <ReasonField value={form.reason} onChange={set('reason')} />
        <button type="submit" className="ops-primary">
          {t('ops.cabinets.registerSubmit')}
        </button>
      </form>
      <Problem error={error} />
    </section>
  );
}

export function CabinetImport({ me, onDone }: { me: Me; onDone: () => void }) {
  const t = useT();
  const csvId = useId();
  const [csv, setCsv] = useState('');
  const [agentId, setAgentId] = useState('');
  const [reason, setReason] = useState('');
  const [report, setReport] = useState<CabinetImportReport & { dryRun: boolean }>();
  const [error, setError] = useState<unknown>();
  const run = async (dryRun: boolean) => {
    setError(undefined);
    try {
      const r = await opsCall<CabinetImportReport>('POST', '/cabinets/import', {
        csv,
        dryRun,
        reason,
        ...(agentId ? { agentId } : {}),
      });
      setReport({ ...r, dryRun });
      if (r.imported) onDone();
    } catch (err) {
      setError(err);
    }
  };
  const readFile = async (f: File | undefined) => {
    if (f) setCsv(await f.text());
  };
  return (
    <section aria-labelledby="ops-cab-import">
      <h2 id="ops-cab-import">{t('ops.cabinets.import')}</h2>
      <p id={`${csvId}-hint`}>{t('ops.cabinets.importHint')}</p>
      <form
        className="ops-form ops-import"
        onSubmit={(e) => {
          e.preventDefault();
          void run(
            e.nativeEvent instanceof SubmitEvent &&
              (e.nativeEvent.submitter as HTMLButtonElement | null)?.value === 'import'
              ? false
              : true,
          );
        }}
      >
        <label>
          {t('ops.cabinets.csvFile')}
          <input type="file" accept=".csv,text/csv" onChange={(e) => void readFile(e.currentTarget.files?.[0])} />
        </label>
        <label htmlFor={csvId}>{t('ops.cabinets.csv')}</label>
        <textarea
          id={csvId}
          aria-describedby={`${csvId}-hint`}
          required
          rows={6}
          maxLength={2_000_000}
          value={csv}
          onChange={(e) => setCsv(e.currentTarget.value)}
          spellCheck={false}
        />
        <AgentField me={me} value={agentId} onChange={setAgentId} />
        <ReasonField value={reason} onChange={setReason} />
        <button type="submit" value="dry">
          {t('ops.cabinets.dryRun')}
        </button>
        <button type="submit" value="import" className="ops-primary">
          {t('ops.cabinets.importSubmit')}
        </button>
      </form>
      <Problem error={error} />
      {report && (
        <div role="status">
          <p>
            {report.issues.length
              ? t('ops.cabinets.importBad', { rows: report.rows, bad: new Set(report.issues.map((i) => i.row)).size })
              : report.dryRun
                ? t('ops.cabinets.importReady', { rows: report.rows })
                : t('ops.cabinets.imported', { rows: report.imported })}
          </p>
          {report.issues.length > 0 && (
            <table className="ops-table">
              <caption className="ops-sr">{t('ops.cabinets.issues')}</caption>
              <thead>
                <tr>
                  <th scope="col">{t('ops.cabinets.line')}</th>
                  <th scope="col">{t('ops.cabinets.field')}</th>
                  <th scope="col">{t('ops.cabinets.message')}</th>
                </tr>
              </thead>
              <tbody>
                {report.issues.map((i, n) => (
                  <tr key={n}>
                    <td>{i.row}</td>
                    <td>{i.field}</td>
                    <td>{i.message}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </div>
      )}
    </section>
  );
}
