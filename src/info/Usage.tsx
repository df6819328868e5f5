// Route '/usage': how to use the Wi-Fi box, a 4-step carousel (CSS scroll-snap; buttons and dots follow it).
import { useEffect, useRef, useState } from 'react';
import { useT } from '../i18n/index.ts';
import { PageHeader } from '../ui/PageHeader.tsx';
import './info.css';

const STEPS = [1, 2, 3, 4] as const;

export default function Usage() {
  const t = useT();
  const list = useRef<HTMLOListElement>(null);
  const [step, setStep] = useState(0);

  useEffect(() => {
    const el = list.current;
    if (!el) return;
    const onScroll = () => setStep(Math.round(el.scrollLeft / Math.max(1, el.clientWidth)));
    el.addEventListener('scroll', onScroll, { passive: true });
    return () => el.removeEventListener('scroll', onScroll);
  }, []);

  const go = (i: number) => {
    const el = list.current;
    const n = Math.max(0, Math.min(STEPS.length - 1, i));
    setStep(n);
    const item = el?.children[n] as HTMLElement | undefined;
    if (el && item) el.scrollTo({ left: item.offsetLeft - el.offsetLeft, behavior: 'smooth' });
  };

  return (
    <>
      <PageHeader title={t('usage.title')} />
      <main className="page">
        <section aria-roledescription="carousel" aria-label={t('usage.title')}>
          {/* A scroll container: focusable, so the steps can be scrolled with the keyboard too (WCAG 2.1.1). */}
          <ol className="carousel" ref={list} tabIndex={0} style={{ padding: 0, margin: 0 }}>
            {STEPS.map((n, i) => (
              <li
                key={n}
                aria-roledescription="slide"
                aria-label={t('usage.stepOf', { n, total: STEPS.length })}
                aria-hidden={i !== step}
              >
                <span className="title" aria-hidden="true">
                  {n}
                </span>
                <h2>{t(`usage.step${n}Title`)}</h2>
                <p className="muted">{t(`usage.step${n}Text`)}</p>
              </li>
            ))}
          </ol>
          <div className="carousel-nav">
            <button type="button" className="button" disabled={step === 0} onClick={() => go(step - 1)}>
              {t('usage.prev')}
            </button>
            <div className="dots" aria-live="polite">
              <span className="visually-hidden">{t('usage.stepOf', { n: step + 1, total: STEPS.length })}</span>
              {STEPS.map((n, i) => (
                <span key={n} className={i === step ? 'on' : ''} aria-hidden="true" />
              ))}
            </div>
            <button
              type="button"
              className="button primary"
              disabled={step === STEPS.length - 1}
              onClick={() => go(step + 1)}
            >
              {t('usage.next')}
            </button>
          </div>
        </section>
      </main>
    </>
  );
}
