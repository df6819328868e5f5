// Route '/cdbUsage': how to use a power bank, a 4-step carousel. Swipe, arrow keys or the buttons.
import { useRef, useState, type KeyboardEvent, type TouchEvent } from 'react';
import { useT } from '../i18n/index.ts';
import { PageHeader } from '../ui/PageHeader.tsx';
import './rent.css';

const STEPS = 4;

export default function CdbUsage() {
  const t = useT();
  const [i, setI] = useState(0);
  const startX = useRef<number | null>(null);
  const go = (n: number) => setI(Math.max(0, Math.min(STEPS - 1, n)));
  const onKey = (e: KeyboardEvent) => {
    if (e.key === 'ArrowRight') go(i + 1);
    if (e.key === 'ArrowLeft') go(i - 1);
  };
  const onTouchEnd = (e: TouchEvent) => {
    const x0 = startX.current;
    const x1 = e.changedTouches[0]?.clientX;
    startX.current = null;
    if (x0 == null || x1 == null || Math.abs(x1 - x0) < 40) return;
    go(x1 < x0 ? i + 1 : i - 1);
  };
  return (
    <>
      <PageHeader title={t('cdbUsage.title')} />
      <main className="page usage-carousel">
        <section
          className="usage-step"
          role="group"
          aria-roledescription={t('cdbUsage.slide')}
          aria-label={t('cdbUsage.stepOf', { n: i + 1, total: STEPS })}
          tabIndex={0}
          onKeyDown={onKey}
          onTouchStart={(e) => (startX.current = e.touches[0]?.clientX ?? null)}
          onTouchEnd={onTouchEnd}
          aria-live="polite"
        >
          <div className="usage-step-num" aria-hidden="true">
            {i + 1}
          </div>
          <h2>{t(`cdbUsage.step${i + 1}Title`)}</h2>
          <p>{t(`cdbUsage.step${i + 1}Text`)}</p>
        </section>
        <div className="usage-nav">
          <button type="button" className="button" disabled={i === 0} onClick={() => go(i - 1)}>
            {t('cdbUsage.prev')}
          </button>
          <div className="usage-dots" aria-hidden="true">
            {Array.from({ length: STEPS }, (_, k) => (
              <span key={k} className={`usage-dot${k === i ? ' on' : ''}`} />
            ))}
          </div>
          <button type="button" className="button" disabled={i === STEPS - 1} onClick={() => go(i + 1)}>
            {t('cdbUsage.next')}
          </button>
        </div>
      </main>
    </>
  );
}
