// Country / area-code wheel picker: a keyword filter (case-insensitive label substring,
// debounced 500 ms), a wheel of 36 px items on CSS scroll-snap, cancel / confirm. Keyboard: arrows, Home, End.
import { useEffect, useId, useMemo, useRef, useState } from 'react';
import { useStore } from '@nanostores/react';
import { $activeLang, useT } from '../i18n/index.ts';
import { AREA_FILTER_DEBOUNCE_MS, COUNTRIES, PICKER_ITEM_HEIGHT, filterByLabel } from '../core/countries.ts';
import { Dialog } from '../ui/Dialog.tsx';

export interface AreaOption {
  label: string;
  value: string;
  code: string;
}

/** Country names in the UI language (Intl.DisplayNames); the ISO code when the runtime has none. */
export function useAreaOptions(): AreaOption[] {
  const lang = useStore($activeLang);
  return useMemo(() => {
    let names: Intl.DisplayNames | null = null;
    try {
      names = new Intl.DisplayNames([lang], { type: 'region' });
    } catch {
      names = null;
    }
    return COUNTRIES.map((c) => ({ ...c, label: `${names?.of(c.code) ?? c.code} +${c.value}` }));
  }, [lang]);
}

const VISIBLE = 5;
/** Wheel radius 100 (px): items turn away from the centre line like a drum. */
const RADIUS = 100;

export function AreaPicker({
  open,
  value,
  onClose,
  onConfirm,
}: {
  open: boolean;
  value: string;
  onClose: () => void;
  onConfirm: (o: AreaOption) => void;
}) {
  const t = useT();
  const all = useAreaOptions();
  const [keyword, setKeyword] = useState('');
  const [filter, setFilter] = useState('');
  const [index, setIndex] = useState(0);
  const [scrollTop, setScrollTop] = useState(0);
  const wheel = useRef<HTMLDivElement>(null);
  const listId = useId();

  // Debounced filter (500 ms).
  useEffect(() => {
    const h = setTimeout(() => setFilter(keyword), AREA_FILTER_DEBOUNCE_MS);
    return () => clearTimeout(h);
  }, [keyword]);

  const list = useMemo(() => filterByLabel(all, filter), [all, filter]);

  // On open (and when the list changes) centre the current value, or the first match.
  useEffect(() => {
    if (!open) return;
    const i = Math.max(
      0,
      list.findIndex((o) => o.value === value && (filter || o.code !== 'CA')),
    );
    setIndex(i);
    requestAnimationFrame(() => wheel.current?.scrollTo({ top: i * PICKER_ITEM_HEIGHT }));
  }, [open, list, value, filter]);

  const select = (i: number, smooth = true) => {
    const j = Math.max(0, Math.min(list.length - 1, i));
    setIndex(j);
    wheel.current?.scrollTo({ top: j * PICKER_ITEM_HEIGHT, behavior: smooth ? 'smooth' : 'auto' });
  };

  const onScroll = () => {
    const el = wheel.current;
    if (!el) return;
    setScrollTop(el.scrollTop);
    const i = Math.round(el.scrollTop / PICKER_ITEM_HEIGHT);
    if (i !== index && i >= 0 && i < list.length) setIndex(i);
  };

  const current = list[index];
  return (
    <Dialog
      open={open}
      title={t('login.area.title')}
      onClose={onClose}
      actions={
        <>
          <button type="button" className="button" onClick={onClose}>
            {t('common.cancel')}
          </button>
          <button
            type="button"
            className="button primary"
            disabled={!current}
            onClick={() => current && onConfirm(current)}
          >
            {t('login.area.confirm')}
          </button>
        </>
      }
    >
      <div className="field">
        <label htmlFor={`${listId}-q`}>{t('login.area.search')}</label>
        <input
          id={`${listId}-q`}
          type="search"
          value={keyword}
          onChange={(e) => setKeyword(e.target.value)}
          autoComplete="off"
        />
      </div>
      <div className="wheel-frame" style={{ height: PICKER_ITEM_HEIGHT * VISIBLE }}>
        <div
          ref={wheel}
          className="wheel"
          role="listbox"
          id={listId}
          aria-label={t('login.area.title')}
          aria-activedescendant={current ? `${listId}-${current.code}` : undefined}
          tabIndex={0}
          onScroll={onScroll}
          onKeyDown={(e) => {
            const step = { ArrowDown: 1, ArrowUp: -1, PageDown: VISIBLE, PageUp: -VISIBLE } as Record<string, number>;
            if (e.key in step) select(index + step[e.key]!);
            else if (e.key === 'Home') select(0);
            else if (e.key === 'End') select(list.length - 1);
            else if (e.key === 'Enter' && current) onConfirm(current);
            else return;
            e.preventDefault();
          }}
          style={{ paddingBlock: PICKER_ITEM_HEIGHT * Math.floor(VISIBLE / 2) }}
        >
          {list.map((o, i) => (
            <div
              key={o.code}
              id={`${listId}-${o.code}`}
              role="option"
              aria-selected={i === index}
              className="wheel-item"
              style={{ height: PICKER_ITEM_HEIGHT, ...drum(i * PICKER_ITEM_HEIGHT - scrollTop) }}
              onClick={() => select(i)}
            >
              {o.label}
            </div>
          ))}
        </div>
        <div
          className="wheel-band"
          aria-hidden="true"
          style={{ top: PICKER_ITEM_HEIGHT * Math.floor(VISIBLE / 2), height: PICKER_ITEM_HEIGHT }}
        />
      </div>
      {list.length === 0 ? (
        <p className="empty" role="status">
          {t('login.area.none')}
        </p>
      ) : null}
    </Dialog>
  );
}

/** The drum look: an item `offset` px from the centre line turns by offset / RADIUS radians and fades. */
function drum(offset: number): { transform?: string; opacity?: number } {
  const angle = Math.max(-1.4, Math.min(1.4, offset / RADIUS));
  if (Math.abs(offset) < 1) return {};
  return {
    transform: `perspective(${RADIUS * 4}px) rotateX(${(-angle).toFixed(3)}rad)`,
    opacity: Number(Math.max(0.25, Math.cos(angle)).toFixed(2)),
  };
}
