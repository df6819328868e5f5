// Putting a power bank or a power station in a free slot of a cabinet (Wi-Fi boxes: the Wi-Fi line's boxes).
import { useState } from 'react';
import { useT } from '../../i18n/index.ts';
import { opsCall } from '../api.ts';
import { Problem } from '../screens/Problem.tsx';
import { ReasonField } from './parts.tsx';

export function PlaceDevice({ cabinetId, slots, onDone }: { cabinetId: string; slots: number; onDone: () => Promise<void> }) {
  const t = useT();
  const empty = { id: '', kind: 'station', slot: '', reason: '' };
  const [form, setForm] = useState(empty);
  const [error, setError] = useState<unknown>();
  const set = (k: keyof typeof form) => (e: { currentTarget: { value: string } }) => setForm({ ...form, [k]: e.currentTarget.value });
  const submit = async (e: React.FormEvent) => {
    e.preventDefault();
    setError(undefined);
    try {
      await opsCall('POST', `/cabinets/${encodeURIComponent(cabinetId)}/devices`, { id: form.id, kind: form.kind, slot: Number(form.slot), reason: form.reason });
      setForm(empty);
      await onDone();
    } catch (err) {
      setError(err);
    }
  };
  return (
    <section aria-labelledby="ops-cab-place">
      <h3 id="ops-cab-place">{t('ops.cabinets.place')}</h3>
      <form className="ops-form" onSubmit={(e) => void submit(e)}>
        <label>{t('ops.cabinets.deviceId')}<input required pattern="[A-Za-z0-9._\-]{1,64}" value={form.id} onChange={set('id')} autoComplete="off" /></label>
        <label>{t('ops.cabinets.deviceKind')}
          <select value={form.kind} onChange={set('kind')}>
            <option value="station">{t('ops.cabinets.kind.station')}</option>
            <option value="cdb">{t('ops.cabinets.kind.cdb')}</option>
          </select>
        </label>
        <label>{t('ops.cabinets.slot')}<input type="number" required min={1} max={slots} value={form.slot} onChange={set('slot')} /></label>
        <ReasonField value={form.reason} onChange={(reason) => setForm({ ...form, reason })} />
        <button type="submit" className="ops-primary">{t('ops.cabinets.placeSubmit')}</button>
      </form>
      <Problem error={error} />
    </section>
  );
}
