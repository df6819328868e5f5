// The Wi-Fi boxes: serial, SSID, the cabinet slot each is in, the password's state (a rotation waits for the box to
// confirm it; the password itself is never shown here), a new box, and an operator's rotation with its reason.
import { useState } from 'react';
import type { MifiBoxShape } from '../../contract/ops/mifi.ts';
import { useT } from '../../i18n/index.ts';
import { opsCall } from '../api.ts';
import { ListFooter, useOpsForm, usePaged } from '../paged.tsx';
import { ReasonDialog, ReasonField } from '../cabinets/parts.tsx';
import { Problem } from '../screens/Problem.tsx';

const ID = '[A-Za-z0-9._\\-]{1,64}';

export function Boxes({ canWrite }: { canWrite: boolean }) {
  const t = useT();
  const [q, setQ] = useState('');
  const [applied, setApplied] = useState('');
  const [rotating, setRotating] = useState<string>();
  const { rows, next, error, load } = usePaged<MifiBoxShape>('/mifi/boxes', { q: applied });
  return (
    <section aria-labelledby="ops-wifi-boxes">
      <h2 id="ops-wifi-boxes">{t('ops.wifi.boxes')}</h2>
      <form
        className="ops-filters"
        role="search"
        aria-label={t('ops.wifi.boxes')}
        onSubmit={(e) => {
          e.preventDefault();
          setApplied(q);
        }}
      >
        <label>
          {t('ops.wifi.boxSearch')}
          <input type="search" maxLength={64} value={q} onChange={(e) => setQ(e.currentTarget.value)} />
        </label>
        <button type="submit">{t('ops.list.apply')}</button>
      </form>
      <table className="ops-table">
        <thead>
          <tr>
            <th scope="col">{t('ops.wifi.sn')}</th>
            <th scope="col">{t('ops.wifi.ssid')}</th>
            <th scope="col">{t('ops.wifi.where')}</th>
            <th scope="col">{t('ops.wifi.password')}</th>
            {canWrite && <th scope="col">{t('ops.cabinets.actions')}</th>}
          </tr>
        </thead>
        <tbody>
          {rows.map((b) => (
            <tr key={b.sn}>
              <th scope="row">{b.sn}</th>
              <td>{b.ssid}</td>
              <td>
                {b.cabinetId ? (
                  <a href={`#/cabinets?id=${encodeURIComponent(b.cabinetId)}`}>
                    {t('ops.wifi.inCabinet', { id: b.cabinetId, n: b.slot ?? 0 })}
                  </a>
                ) : b.state ? (
                  t(`ops.wifi.state.${b.state}`)
                ) : (
                  t('ops.wifi.nowhere')
                )}
              </td>
              <td>{b.password === 'rotating' ? t('ops.wifi.rotating') : t('ops.wifi.passwordSet')}</td>
              {canWrite && (
                <td>
                  <button
                    type="button"
                    aria-disabled={!b.cabinetId}
                    onClick={() => b.cabinetId && setRotating(b.sn)}
                    aria-label={`${t('ops.wifi.rotate')} · ${b.sn}`}
                  >
                    {t('ops.wifi.rotate')}
                  </button>
                </td>
              )}
            </tr>
          ))}
        </tbody>
      </table>
      <ListFooter count={rows.length} next={next} error={error} load={load} />
      {canWrite && <BoxForm onDone={() => load()} />}
      <ReasonDialog
        open={!!rotating}
        title={t('ops.wifi.rotateOf', { sn: rotating ?? '' })}
        lead={t('ops.wifi.rotateLead')}
        confirm={t('ops.cabinets.send')}
        act={async (reason) => {
          await opsCall('POST', `/mifi/boxes/${encodeURIComponent(rotating!)}/password`, { reason });
          await load();
        }}
        onClose={() => setRotating(undefined)}
      />
    </section>
  );
}

function BoxForm({ onDone }: { onDone: () => Promise<void> }) {
  const t = useT();
  const { form, setForm, set, error, submit } = useOpsForm(
    { sn: '', ssid: '', password: '', cabinetId: '', slot: '', reason: '' },
    async (f) => {
      await opsCall('POST', '/mifi/boxes', {
        sn: f.sn,
        ssid: f.ssid,
        password: f.password,
        reason: f.reason,
        ...(f.cabinetId ? { cabinetId: f.cabinetId, slot: Number(f.slot) } : {}),
      });
      await onDone();
    },
  );
  return (
    <form className="ops-form" aria-label={t('ops.wifi.newBox')} onSubmit={submit}>
      <label>
        {t('ops.wifi.sn')}
        <input required pattern={ID} value={form.sn} onChange={set('sn')} autoComplete="off" />
      </label>
      <label>
        {t('ops.wifi.ssid')}
        <input required maxLength={32} value={form.ssid} onChange={set('ssid')} />
      </label>
      <label>
        {t('ops.wifi.firstPassword')}
        <input
          required
          type="password"
          minLength={8}
          maxLength={63}
          value={form.password}
          onChange={set('password')}
          autoComplete="new-password"
        />
      </label>
      <label>
        {t('ops.wifi.cabinet')}
        <input pattern={ID} value={form.cabinetId} onChange={set('cabinetId')} />
      </label>
      <label>
        {t('ops.cabinets.slot')}
        <input type="number" min={1} max={200} required={!!form.cabinetId} value={form.slot} onChange={set('slot')} />
      </label>
      <ReasonField value={form.reason} onChange={(reason) => setForm({ ...form, reason })} />
      <button type="submit" className="ops-primary">
        {t('ops.wifi.addBox')}
      </button>
      <Problem error={error} />
    </form>
  );
}
