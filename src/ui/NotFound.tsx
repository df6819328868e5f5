// Unknown routes: say so, offer a way home.
import { useStore } from '@nanostores/react';
import { useT } from '../i18n/index.ts';
import { navigate } from '../stores/router.ts';
import { $cabinet } from '../stores/cabinet.ts';
import { PageHeader } from './PageHeader.tsx';

export default function NotFound() {
  const t = useT();
  const cabinet = useStore($cabinet);
  return (
    <>
      <PageHeader title={t('notFound.title')} />
      <main className="page center">
        <p>{t('notFound.text')}</p>
        <button type="button" className="button primary" onClick={() => navigate(cabinet ? '/home' : '/')}>
          {t('notFound.home')}
        </button>
      </main>
    </>
  );
}
