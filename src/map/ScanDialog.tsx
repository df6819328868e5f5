// The camera scan of the home map: qr-scanner is loaded only when the dialog opens. A decoded code (or one typed
// in) goes to the code-link entry (#/?qrcode=…), which scans the cabinet. A camera error (denied, no
// camera, needs HTTPS, busy, unsuitable, unsupported) is announced in the dialog, which keeps the typed-code entry;
// Cancel goes back to the map.
import { useRef, useState, type FormEvent } from 'react';
import { Dialog } from '../ui/Dialog.tsx';
import { useT } from '../i18n/index.ts';
import { useQrCamera } from '../scan/camera.ts';

export function ScanDialog({
  open,
  onClose,
  onCode,
}: {
  open: boolean;
  onClose: () => void;
  onCode: (code: string) => void;
}) {
  const t = useT();
  const video = useRef<HTMLVideoElement>(null);
  const [code, setCode] = useState('');
  const cameraError = useQrCamera(video, open, onCode);

  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (code.trim()) onCode(code.trim());
  };

  return (
    <Dialog
      open={open}
      title={t('map.scanTitle')}
      onClose={onClose}
      actions={
        <button type="button" className="button" onClick={onClose}>
          {t('common.cancel')}
        </button>
      }
    >
      {open && !cameraError ? (
        <video ref={video} className="scan-video" muted playsInline aria-label={t('map.scanTitle')} />
      ) : null}
      {cameraError ? (
        <p className="scan-error" role="alert">
          {t(`map.camera.${cameraError}`)}
        </p>
      ) : null}
      <form className="scan-manual field" onSubmit={submit}>
        <label htmlFor="scan-code">{t('map.scanManual')}</label>
        <input id="scan-code" value={code} autoComplete="off" onChange={(e) => setCode(e.target.value)} />
        <button type="submit" className="button primary" disabled={!code.trim()}>
          {t('map.scanGo')}
        </button>
      </form>
    </Dialog>
  );
}
