// The camera scan of the home map: qr-scanner is loaded only when the dialog opens. A decoded code (or one typed
// in) goes to the code-link entry (#/?qrcode=…), which scans the cabinet. A camera error (denied, no
// camera, needs HTTPS, busy, unsuitable, unsupported) is announced in the dialog, which keeps the typed-code entry;
// Cancel goes back to the map.
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { Dialog } from '../ui/Dialog.tsx';
import { useT } from '../i18n/index.ts';

export type CameraError = 'denied' | 'none' | 'https' | 'busy' | 'unsuitable' | 'unsupported';

/** getUserMedia / qr-scanner errors → the six cases the scan dialog tells apart. */
export function cameraErrorOf(e: unknown): CameraError {
  const name = e instanceof Error ? e.name : '';
  const text = String(e instanceof Error ? e.message : e);
  if (typeof window !== 'undefined' && window.isSecureContext === false) return 'https';
  if (name === 'NotAllowedError' || name === 'SecurityError' || /denied|permission/i.test(text)) return 'denied';
  if (name === 'NotFoundError' || name === 'OverconstrainedError' || /no camera|not found/i.test(text)) return 'none';
  if (name === 'NotReadableError' || name === 'TrackStartError' || /in use|busy|could not start/i.test(text)) return 'busy';
  if (name === 'TypeError' || /not supported|mediaDevices/i.test(text)) return 'unsupported';
  return 'unsuitable';
}

export function ScanDialog({ open, onClose, onCode }: {
  open: boolean;
  onClose: () => void;
  onCode: (code: string) => void;
}) {
  const t = useT();
  const video = useRef<HTMLVideoElement>(null);
  const [code, setCode] = useState('');
  const [cameraError, setCameraError] = useState<CameraError | null>(null);
  const cb = useRef({ onCode, onCameraError: setCameraError });
  cb.current = { onCode, onCameraError: setCameraError };

  useEffect(() => {
    if (!open) return;
    setCameraError(null);
    let stopped = false;
    let scanner: { stop(): void; destroy(): void } | null = null;
    void (async () => {
      try {
        if (!navigator.mediaDevices?.getUserMedia) throw new TypeError('mediaDevices not supported');
        const { default: QrScanner } = await import('qr-scanner');
        if (stopped || !video.current) return;
        const s = new QrScanner(video.current, (r) => cb.current.onCode(r.data), { returnDetailedScanResult: true, preferredCamera: 'environment' });
        scanner = s;
        await s.start();
      } catch (e) {
        if (!stopped) cb.current.onCameraError(cameraErrorOf(e));
      }
    })();
    return () => {
      stopped = true;
      scanner?.stop();
      scanner?.destroy();
    };
  }, [open]);

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
      {open && !cameraError ? <video ref={video} className="scan-video" muted playsInline aria-label={t('map.scanTitle')} /> : null}
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
