// The camera's QR reading, shared by the home map's scan dialog and the /scanQr screen: qr-scanner is loaded only
// when a scan starts. Camera errors (denied, no camera, needs HTTPS, busy, unsuitable, unsupported) are told apart
// so the screen can say which; every screen that reads codes keeps a typed-code entry for them.
import { useEffect, useRef, useState, type RefObject } from 'react';

export type CameraError = 'denied' | 'none' | 'https' | 'busy' | 'unsuitable' | 'unsupported';

/** getUserMedia / qr-scanner errors → the six cases a scan screen tells apart. */
export function cameraErrorOf(e: unknown): CameraError {
  const name = e instanceof Error ? e.name : '';
  const text = String(e instanceof Error ? e.message : e);
  if (typeof window !== 'undefined' && window.isSecureContext === false) return 'https';
  if (name === 'NotAllowedError' || name === 'SecurityError' || /denied|permission/i.test(text)) return 'denied';
  if (name === 'NotFoundError' || name === 'OverconstrainedError' || /no camera|not found/i.test(text)) return 'none';
  if (name === 'NotReadableError' || name === 'TrackStartError' || /in use|busy|could not start/i.test(text))
    return 'busy';
  if (name === 'TypeError' || /not supported|mediaDevices/i.test(text)) return 'unsupported';
  return 'unsuitable';
}

/**
 * Reads QR codes through the back camera into `video` while `active`; each decoded text goes to onCode. Returns the
 * camera error, if the camera could not start (null while it runs or starts).
 */
export function useQrCamera(
  video: RefObject<HTMLVideoElement | null>,
  active: boolean,
  onCode: (code: string) => void,
): CameraError | null {
  const [cameraError, setCameraError] = useState<CameraError | null>(null);
  const cb = useRef(onCode);
  cb.current = onCode;
  useEffect(() => {
    if (!active) return;
    setCameraError(null);
    let stopped = false;
    let scanner: { stop(): void; destroy(): void } | null = null;
    void (async () => {
      try {
        if (!navigator.mediaDevices?.getUserMedia) throw new TypeError('mediaDevices not supported');
        const { default: QrScanner } = await import('qr-scanner');
        if (stopped || !video.current) return;
        const s = new QrScanner(video.current, (r) => cb.current(r.data), {
          returnDetailedScanResult: true,
          preferredCamera: 'environment',
        });
        scanner = s;
        await s.start();
      } catch (e) {
        if (!stopped) setCameraError(cameraErrorOf(e));
      }
    })();
    return () => {
      stopped = true;
      scanner?.stop();
      scanner?.destroy();
    };
  }, [active, video]);
  return cameraError;
}
