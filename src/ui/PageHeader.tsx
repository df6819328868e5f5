// Page header: back button (history, else the spec's fallback route), title, an optional end slot.
import type { ReactNode } from 'react';
import { useStore } from '@nanostores/react';
import { useT } from '../i18n/index.ts';
import { canGoBack, goBack, navigate } from '../stores/router.ts';
import { $homePathName, $isTourist, $user } from '../stores/session.ts';
import { backFallback } from '../core/routes.ts';

export function PageHeader({ title, back = true, end }: { title: string; back?: boolean; end?: ReactNode }) {
  const t = useT();
  const tourist = useStore($isTourist);
  const user = useStore($user);
  const home = useStore($homePathName);

  const onBack = () => {
    if (canGoBack()) return goBack();
    navigate(backFallback(tourist, Boolean(user?.pmobile || user?.email) || !tourist, home), { replace: true });
  };

  return (
    <header className="page-header">
      {back ? (
        <button type="button" className="icon-button" onClick={onBack} aria-label={t('common.back')}>
          <svg viewBox="0 0 24 24" width="24" height="24" aria-hidden="true" focusable="false">
            <path d="M15 5l-7 7 7 7" fill="none" stroke="currentColor" strokeWidth="2.2" strokeLinecap="round" strokeLinejoin="round" />
          </svg>
        </button>
      ) : null}
      <h1 className={back ? 'page-title' : 'page-title start'}>{title}</h1>
      <div className="page-header-end">{end}</div>
    </header>
  );
}
