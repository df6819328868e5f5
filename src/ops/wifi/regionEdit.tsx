// Editing a Wi-Fi region: its name and its countries (one a line, replacing all of them). Saved with the version
// read (If-Match): a save after someone else's is refused with the server's message and nothing is overwritten.
import { useEffect, useRef } from 'react';
import type { MifiRegionShape } from '../../contract/ops/mifi.ts';
import { useT } from '../../i18n/index.ts';
import { opsCall } from '../api.ts';
import { ReasonField } from '../cabinets/parts.tsx';
import { useOpsForm } from '../paged.tsx';
import { Problem } from '../screens/Problem.tsx';

/** The countries typed one a line, `CODE;Name;Time/Zone`. */
export function parseCountries(text: string) {
  return text
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)
    .map((l) => {
      const [code = '', name = '', timeZone = ''] = l.split(';').map((x) => x.trim());
      return { code: code.toUpperCase(), name, timeZone, flagUrl: '' };
    });
}

export function RegionEdit({ region, onDone }: { region: MifiRegionShape; onDone: () => Promise<void> }) {
  const t = useT();
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []);
  const start = {
    name: region.name,
    countries: region.countries.map((c) => `${c.code};${c.name};${c.timeZone}`).join('\n'),
    reason: '',
  };
  const { form, setForm, set, error, submit } = useOpsForm(
    start,
    async (f) => {
      // Flags of countries kept stay as they were.
      const countries = parseCountries(f.countries).map((c) => ({
        ...c,
        flagUrl: region.countries.find((x) => x.code === c.code)?.flagUrl ?? '',
      }));
      await opsCall(
        'PATCH',
        `/mifi/regions/${encodeURIComponent(region.id)}`,
        { name: f.name, countries, reason: f.reason },
        { 'if-match': `"v${region.version}"` },
      );
      await onDone();
    },
    true,
  );
  return (
    <section aria-labelledby="ops-wifi-region-edit">
      <h3 id="ops-wifi-region-edit" tabIndex={-1} ref={heading}>
        {t('ops.wifi.editRegionOf', { id: region.id })}
      </h3>
      <form className="ops-form ops-import" onSubmit={submit}>
        <label>
          {t('ops.wifi.name')}
          <input required maxLength={80} value={form.name} onChange={set('name')} />
        </label>
        <label className="ops-wide">
          {t('ops.wifi.countriesHint')}
          <textarea rows={4} value={form.countries} onChange={set('countries')} />
        </label>
        <ReasonField value={form.reason} onChange={(reason) => setForm({ ...form, reason })} />
        <button type="submit" className="ops-primary">
          {t('ops.wifi.saveRegion')}
        </button>
        <Problem error={error} />
      </form>
    </section>
  );
}
