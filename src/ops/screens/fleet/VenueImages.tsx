// A venue's logo and banner: the current image, and a file to upload in its place. The server decides whether the
// file is an image (by its bytes) and small enough, and says why not in the operator's language.
import { useId, useState } from 'react';
import type { Venue } from '../../../contract/ops/fleet.ts';
import { useT } from '../../../i18n/index.ts';
import { opsCallTagged } from '../../api.ts';
import { Problem } from '../Problem.tsx';

const MAX_KB = { logo: 1024, banner: 3072 } as const;

export function VenueImages({
  venue,
  etag,
  reason,
  onSaved,
}: {
  venue: Venue;
  etag: string;
  reason: string;
  onSaved: (v: Venue, etag: string) => void;
}) {
  const t = useT();
  return (
    <fieldset className="ops-fieldset">
      <legend>{t('ops.venues.images')}</legend>
      <p className="ops-note">{t('ops.venues.imagesHint')}</p>
      <div className="ops-form">
        {(['logo', 'banner'] as const).map((kind) => (
          <ImageField key={kind} kind={kind} venue={venue} etag={etag} reason={reason} onSaved={onSaved} />
        ))}
      </div>
    </fieldset>
  );
}

function ImageField({
  kind,
  venue,
  etag,
  reason,
  onSaved,
}: {
  kind: 'logo' | 'banner';
  venue: Venue;
  etag: string;
  reason: string;
  onSaved: (v: Venue, etag: string) => void;
}) {
  const t = useT();
  const id = useId();
  const [file, setFile] = useState<File>();
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const url = kind === 'logo' ? venue.logoUrl : (venue.bannerUrl ?? '');
  const upload = async () => {
    if (!file) return;
    setBusy(true);
    setError(undefined);
    try {
      const res = await opsCallTagged<Venue>('PUT', `/venues/${encodeURIComponent(venue.id)}/images/${kind}`, file, {
        'if-match': etag,
        'x-reason': encodeURIComponent(reason),
      });
      onSaved(res.data, res.etag);
      setFile(undefined);
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  return (
    <div className="ops-image">
      <label htmlFor={id}>
        {t(`ops.venues.${kind}`)} ({t('ops.venues.maxSize', { kb: MAX_KB[kind] })})
      </label>
      {url ? (
        <img src={url} alt={t(`ops.venues.${kind}Current`)} className={`ops-${kind}`} />
      ) : (
        <p className="ops-note">{t('ops.venues.noImage')}</p>
      )}
      <input
        id={id}
        type="file"
        accept="image/png,image/jpeg,image/webp,image/gif"
        onChange={(e) => setFile(e.currentTarget.files?.[0])}
      />
      <button type="button" disabled={!file || busy || reason.trim().length < 3} onClick={() => void upload()}>
        {t('ops.venues.upload', { what: t(`ops.venues.${kind}`) })}
      </button>
      <Problem error={error} />
    </div>
  );
}
