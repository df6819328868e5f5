// The embed snippet of an agent (docs/embed.md): the custom element or the one-tag loader, a cabinet code, the
// language and the appearance, checked by the embed's own grammar (parseAppearance: a value it refuses is named
// and left out), with a preview painted by the embed's own skeleton painter in that appearance.
import { useEffect, useId, useRef, useState } from 'react';
import { paintSkeleton, SKELETON_CSS } from '../../../../embed/mount.ts';
import { parseAppearance, type Appearance } from '../../../../embed/protocol.ts';
import { LOCALES, LOCALE_NAMES } from '../../../core/lang.ts';
import { useT } from '../../../i18n/index.ts';
import { Field, Select } from '../../form.tsx';

const VARS = [
  ['colorPrimary', 'color-primary'],
  ['colorBackground', 'color-background'],
  ['colorText', 'color-text'],
  ['borderRadius', 'border-radius'],
  ['fontFamily', 'font-family'],
] as const;
type Var = (typeof VARS)[number][0];
const attr = (s: string) => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

/** The snippet's text for a host page. */
export function snippetOf(o: {
  kind: 'element' | 'loader';
  base: string;
  agent: string;
  qrcode: string;
  lang: string;
  appearance: Appearance;
}): string {
  const vars = o.appearance.variables ?? {};
  if (o.kind === 'element') {
    const attrs = [
      `agent="${attr(o.agent)}"`,
      o.qrcode && `qrcode="${attr(o.qrcode)}"`,
      `lang="${o.lang}"`,
      o.appearance.theme && `theme="${o.appearance.theme}"`,
      ...VARS.filter(([k]) => vars[k]).map(([k, a]) => `${a}="${attr(vars[k]!)}"`),
    ].filter(Boolean);
    return `<style>powerly-rent:not(:defined) { display: block; height: 920px; }</style>
<script type="module" src="${o.base}/embed/powerly-rent.js"></script>
<powerly-rent id="rent" ${attrs.join(' ')}></powerly-rent>`;
  }
  const options = { agent: o.agent, ...(o.qrcode && { qrcode: o.qrcode }), lang: o.lang, appearance: o.appearance };
  return `<script>window.Powerly=window.Powerly||function(){(Powerly.q=Powerly.q||[]).push(arguments)}</script>
<script type="module" src="${o.base}/embed/loader.js"></script>
<style>#rent:empty { height: 920px; }</style>
<div id="rent"></div>
<script>
  Powerly('mount', '#rent', ${JSON.stringify(options).replace(/</g, '\\u003c')});
</script>`;
}

export function Snippet({ agent }: { agent: string }) {
  const t = useT();
  const [kind, setKind] = useState<'element' | 'loader'>('element');
  const [qrcode, setQrcode] = useState('');
  const [lang, setLang] = useState<string>(LOCALES[0]);
  const [theme, setTheme] = useState<'light' | 'dark' | 'auto'>('light');
  const [vars, setVars] = useState<Record<Var, string>>({
    colorPrimary: '#0b6e4f',
    colorBackground: '',
    colorText: '',
    borderRadius: '14px',
    fontFamily: '',
  });
  const box = useRef<HTMLDivElement>(null);
  const codeId = useId();
  const set = Object.fromEntries(Object.entries(vars).filter(([, v]) => v.trim())) as Partial<Record<Var, string>>;
  const refused = VARS.map(([k]) => k).filter((k) => set[k] && !parseAppearance({ variables: { [k]: set[k] } }));
  const appearance =
    parseAppearance({
      theme,
      variables: Object.fromEntries(Object.entries(set).filter(([k]) => !refused.includes(k as Var))),
    }) ?? {};
  useEffect(() => {
    if (box.current) paintSkeleton(box.current, appearance);
  });
  const text = snippetOf({ kind, base: location.origin, agent, qrcode: qrcode.trim(), lang, appearance });
  return (
    <section aria-labelledby="ops-snippet">
      <h2 id="ops-snippet">{t('ops.agents.snippet')}</h2>
      <div className="ops-form">
        <Select
          label={t('ops.agents.snippetKind')}
          value={kind}
          options={[
            ['element', t('ops.agents.element')],
            ['loader', t('ops.agents.loader')],
          ]}
          onValue={setKind}
        />
        <Field label={t('ops.agents.qrcode')} maxLength={200} value={qrcode} onValue={setQrcode} />
        <Select
          label={t('ops.app.language')}
          value={lang}
          options={LOCALES.map((l) => [l, LOCALE_NAMES[l]])}
          onValue={setLang}
        />
        <Select
          label={t('ops.agents.theme')}
          value={theme}
          options={(['light', 'dark', 'auto'] as const).map((x) => [x, t(`ops.agents.theme_${x}`)])}
          onValue={setTheme}
        />
        {VARS.map(([k]) => (
          <Field
            key={k}
            label={t(`ops.agents.${k}`)}
            maxLength={100}
            value={vars[k]}
            onValue={(v) => setVars({ ...vars, [k]: v })}
            aria-invalid={refused.includes(k) || undefined}
          />
        ))}
      </div>
      {refused.length > 0 && (
        <p className="ops-error" role="alert">
          {t('ops.agents.badAppearance', { fields: refused.map((k) => t(`ops.agents.${k}`)).join(', ') })}
        </p>
      )}
      <div className="ops-snippet">
        <label htmlFor={codeId}>{t('ops.agents.code')}</label>
        <textarea id={codeId} readOnly rows={8} value={text} />
        <button type="button" onClick={() => void navigator.clipboard?.writeText(text)}>
          {t('ops.agents.copy')}
        </button>
      </div>
      <h3>{t('ops.agents.preview')}</h3>
      <style>{SKELETON_CSS}</style>
      <div ref={box} className="pw-box ops-widget-preview" data-testid="widget-preview">
        <div className="pw-skel" role="img" aria-label={t('ops.agents.previewLabel')}>
          <i />
          <i />
          <i />
          <i />
          <i />
        </div>
      </div>
    </section>
  );
}
