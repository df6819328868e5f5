// Page header: back button (history, else the fallback route), title, an optional end slot.
import type { ReactNode } from 'react';
import { useT } from '../i18n/index.ts';
import { back as goBack } from '../stores/router.ts';

export function PageHeader({ title, back = true, end }: { title: string; back?: boolean; end?: ReactNode }) {
  const t = useT();
  const onBack = () => goBack();

  return (
    <header className="page-header">
      {back ? (
        <button type="button" className="icon-button" onClick={onBack} aria-label={t('common.back')}>
          <svg viewBox="0 0 24 24" width="24" height="24" aria-hidden="true" focusable="false">
            <path
              d="M15 5l-7 7 7 7"
              fill="none"
              stroke="currentColor"
              strokeWidth="2.2"
              strokeLinecap="round"
              strokeLinejoin="round"
            />
          </svg>
        </button>
      ) : null}
      <h1 className={back ? 'page-title' : 'page-title start'}>{title}</h1>
      <div className="page-header-end">{end}</div>
    </header>
  );
}
