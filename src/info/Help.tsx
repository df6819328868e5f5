// Route '/help': numbered collapsible items loaded for the current language; a failure message with retry.
import { useEffect, useState } from 'react';
import { useStore } from '@nanostores/react';
import { useT } from '../i18n/index.ts';
import { $activeLang } from '../i18n/index.ts';
import { helpList, type HelpItem } from '../api/content.ts';
import { PageHeader } from '../ui/PageHeader.tsx';
import { Loading } from '../ui/Loading.tsx';
import './info.css';

export default function Help() {
  const t = useT();
  const lang = useStore($activeLang);
  const [items, setItems] = useState<HelpItem[] | null>(null);
  const [failed, setFailed] = useState(false);
  const [run, setRun] = useState(0);

  useEffect(() => {
    let live = true;
    setItems(null);
    setFailed(false);
    helpList(lang)
      .then((list) => live && setItems(list))
      .catch(() => live && setFailed(true));
    return () => {
      live = false;
    };
  }, [lang, run]);

  return (
    <>
      <PageHeader title={t('help.title')} />
      <main className="page">
        {failed ? (
          <div className="notice" role="alert">
            <p>{t('help.failed')}</p>
            <button type="button" className="button primary" onClick={() => setRun(run + 1)}>
              {t('common.retry')}
            </button>
          </div>
        ) : !items ? (
          <Loading label={t('common.loading')} />
        ) : items.length === 0 ? (
          <p className="muted">{t('help.empty')}</p>
        ) : (
          <ol className="help-list">
            {items.map((h, i) => (
              <li key={h.pId}>
                <details>
                  <summary>
                    <span className="num">{i + 1}.</span>
                    <span>{h.pTitle}</span>
                  </summary>
                  <p>{h.pContent}</p>
                </details>
              </li>
            ))}
          </ol>
        )}
      </main>
    </>
  );
}
