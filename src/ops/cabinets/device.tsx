// Putting a power bank or a power station in a free slot of a cabinet (Wi-Fi boxes: the Wi-Fi line's boxes).
import { useT } from '../../i18n/index.ts';
import { opsCall } from '../api.ts';
import { useOpsForm } from '../paged.tsx';
import { Problem } from '../screens/Problem.tsx';
import { ReasonField } from './parts.tsx';

export function PlaceDevice({
  cabinetId,
  slots,
  onDone,
}: {
  cabinetId: string;
  slots: number;
  onDone: () => Promise<void>;
}) {
  const t = useT();
  const { form, setForm, set, error, submit } = useOpsForm(
    { id: '', kind: 'station', slot: '', reason: '' },
    async (f) => {
      await opsCall('POST', `/cabinets/${encodeURIComponent(cabinetId)}/devices`, {
        id: f.id,
        kind: f.kind,
        slot: Number(f.slot),
        reason: f.reason,
      });
      await onDone();
    },
  );
  return (
    <section aria-labelledby="ops-cab-place">
      <h3 id="ops-cab-place">{t('ops.cabinets.place')}</h3>
      <form className="ops-form" onSubmit={submit}>
        <label>
          {t('ops.cabinets.deviceId')}
          <input required pattern="[A-Za-z0-9._\-]{1,64}" value={form.id} onChange={set('id')} autoComplete="off" />
        </label>
        <label>
          {t('ops.cabinets.deviceKind')}
          <select value={form.kind} onChange={set('kind')}>
            <option value="station">{t('ops.cabinets.kind.station')}</option>
            <option value="cdb">{t('ops.cabinets.kind.cdb')}</option>
          </select>
        </label>
        <label>
          {t('ops.cabinets.slot')}
          <input type="number" required min={1} max={slots} value={form.slot} onChange={set('slot')} />
        </label>
        <ReasonField value={form.reason} onChange={(reason) => setForm({ ...form, reason })} />
        <button type="submit" className="ops-primary">
          {t('ops.cabinets.placeSubmit')}
        </button>
      </form>
      <Problem error={error} />
    </section>
  );
}
