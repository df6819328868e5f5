// The support desk's timeline of one rental or Wi-Fi package, written once: every entry in order, the cabinet's own
// time first (and when the server received it), its source, its stable name, its amount and its details.
import { useStore } from '@nanostores/react';
import type { TimelineEntry } from '../contract/ops/rentals.ts';
import { toMajor } from '../core/money.ts';
import { $activeLang, useT } from '../i18n/index.ts';
import { dateTime, money } from '../ui/format.ts';

export function Timeline({ entries }: { entries: TimelineEntry[] }) {
  const t = useT();
  const lang = useStore($activeLang);
  return (
    <section aria-labelledby="ops-timeline">
      <h3 id="ops-timeline">{t('ops.timeline.title')}</h3>
      <div className="ops-scroll">
        <table className="ops-table">
          <thead>
            <tr>
              <th scope="col">{t('ops.audit.at')}</th>
              <th scope="col">{t('ops.timeline.source')}</th>
              <th scope="col">{t('ops.timeline.what')}</th>
              <th scope="col">{t('ops.timeline.amount')}</th>
              <th scope="col">{t('ops.timeline.detail')}</th>
            </tr>
          </thead>
          <tbody>
            {entries.map((e, i) => (
              <tr key={i}>
                <td>
                  {dateTime(e.at, lang)}
                  {e.receivedAt && (
                    <>
                      <br />
                      <small>{t('ops.timeline.received', { at: dateTime(e.receivedAt, lang) })}</small>
                    </>
                  )}
                </td>
                <td>{t(`ops.timeline.sources.${e.source}`)}</td>
                <td>
                  <code>{e.what}</code>
                </td>
                <td>{e.amount ? money(e.amount.currency, toMajor(e.amount.amount, e.amount.currency)) : ''}</td>
                <td>
                  {e.detail ? (
                    <small>
                      {Object.entries(e.detail)
                        .filter(([, v]) => v != null && typeof v !== 'object')
                        .map(([k, v]) => `${k}: ${String(v as string)}`)
                        .join(' · ')}
                    </small>
                  ) : (
                    ''
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}
