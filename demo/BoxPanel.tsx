// The Wi-Fi box panel of the demo page: what a traveller's box does in the world. A box out with a user can use
// data (its traffic counter rises, reported as box-telemetry) and go back into any cabinet; a box in a cabinet can
// read the pickup QR code the app shows (pickup by QR). Its strings are the Wi-Fi screens' (locales/mifi/).
import { useId, useState, type FormEvent } from 'react';
import { useT } from '../src/i18n/index.ts';
import { useMifiStrings } from '../src/mifi/strings.ts';
import { boxReadsCode, pushTraffic, returnPowerbank, type DemoState } from './api.ts';

export function BoxPanel({
  state,
  act,
}: {
  state: DemoState;
  act: (fn: () => Promise<unknown>, done: string) => Promise<void>;
}) {
  const t = useT();
  const ready = useMifiStrings();
  if (!ready) return null;
  const inCabinets = state.cabinets.flatMap((c) =>
    c.slots
      .filter((s) => s.kind === 'mifi' && s.powerbankId)
      .map((s) => ({ sn: s.powerbankId!, cabinetId: c.cabinetId })),
  );
  const free = state.cabinets
    .filter((c) => c.slots.some((s) => !s.powerbankId))
    .map((c) => ({ id: c.cabinetId, name: c.venueName }));
  return (
    <section aria-labelledby="box-title" className="panel">
      <h2 id="box-title" className="section-title">
        {t('mifi.demo.title')}
      </h2>
      {state.boxesOut.length === 0 ? (
        <p className="muted">{t('mifi.demo.noneOut')}</p>
      ) : (
        <ul className="demo-list">
          {state.boxesOut.map((b) => (
            <BoxOut key={b.sn} sn={b.sn} packageId={b.packageId} cabinets={free} act={act} />
          ))}
        </ul>
      )}
      {inCabinets.length ? <ReadCode boxes={inCabinets} act={act} /> : null}
    </section>
  );
}

function BoxOut(props: {
  sn: string;
  packageId: string;
  cabinets: { id: string; name: string }[];
  act: (fn: () => Promise<unknown>, done: string) => Promise<void>;
}) {
  const t = useT();
  const mbId = useId();
  const toId = useId();
  const [mb, setMb] = useState('50');
  const [target, setTarget] = useState(props.cabinets[0]?.id ?? '');
  const chosen = props.cabinets.some((c) => c.id === target) ? target : (props.cabinets[0]?.id ?? '');
  const { sn } = props;
  return (
    <li className="demo-return" aria-label={sn}>
      <span>
        <code>{sn}</code> <span className="small muted">{t('mifi.demo.forPackage', { order: props.packageId })}</span>
      </span>
      <label htmlFor={mbId}>{t('mifi.demo.megabytes', { sn })}</label>
      <input
        id={mbId}
        type="number"
        min={1}
        max={100000}
        inputMode="numeric"
        value={mb}
        onChange={(e) => setMb(e.target.value)}
      />
      <button
        type="button"
        className="button small"
        disabled={!(Number(mb) > 0)}
        onClick={() => void props.act(() => pushTraffic(sn, Number(mb)), t('mifi.demo.pushed', { sn, mb: Number(mb) }))}
      >
        {t('mifi.demo.push', { sn })}
      </button>
      <label htmlFor={toId}>{t('mifi.demo.returnTo', { sn })}</label>
      <select id={toId} value={chosen} onChange={(e) => setTarget(e.target.value)}>
        {props.cabinets.map((c) => (
          <option key={c.id} value={c.id}>
            {c.name} ({c.id})
          </option>
        ))}
      </select>
      <button
        type="button"
        className="button small primary"
        disabled={!chosen}
        onClick={() =>
          void props.act(() => returnPowerbank(chosen, sn), t('mifi.demo.returned', { sn, cabinet: chosen }))
        }
      >
        {t('mifi.demo.return', { sn })}
      </button>
    </li>
  );
}

function ReadCode({
  boxes,
  act,
}: {
  boxes: { sn: string; cabinetId: string }[];
  act: (fn: () => Promise<unknown>, done: string) => Promise<void>;
}) {
  const t = useT();
  const boxId = useId();
  const codeId = useId();
  const [sn, setSn] = useState(boxes[0]!.sn);
  const [code, setCode] = useState('');
  const box = boxes.some((b) => b.sn === sn) ? sn : boxes[0]!.sn;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!code.trim()) return;
    void act(() => boxReadsCode(box, code.trim()), t('mifi.demo.read', { sn: box, code: code.trim() })).then(() =>
      setCode(''),
    );
  };
  return (
    <form onSubmit={submit} className="demo-read">
      <h3 className="section-title">{t('mifi.demo.readTitle')}</h3>
      <label htmlFor={boxId}>{t('mifi.demo.box')}</label>
      <select id={boxId} value={box} onChange={(e) => setSn(e.target.value)}>
        {boxes.map((b) => (
          <option key={b.sn} value={b.sn}>
            {b.sn} ({b.cabinetId})
          </option>
        ))}
      </select>
      <label htmlFor={codeId}>{t('mifi.demo.code')}</label>
      <input id={codeId} value={code} onChange={(e) => setCode(e.target.value)} autoComplete="off" />
      <button type="submit" className="button small primary">
        {t('mifi.demo.readButton')}
      </button>
    </form>
  );
}
