// Route '/scanQr' [orderId]: the camera scan of a cabinet's QR code. With a package (orderId) it picks that
// package's box up at the cabinet read (/pickUp with the cabinet's code, which asks the cabinet to release it);
// without one the code goes to the code-link entry (#/?qrcode=…), which scans the cabinet as the home map's scan
// does. Camera errors (denied, no camera, needs HTTPS, busy, unsuitable, unsupported) are said on the screen,
// which keeps the typed-code entry and a way back.
import { useRef, useState, type FormEvent } from 'react';
import { useStore } from '@nanostores/react';
import { useT } from '../i18n/index.ts';
import { $route, back, href, navigate } from '../stores/router.ts';
import { cabinetCodeFrom } from '../core/codeLink.ts';
import { useQrCamera } from '../scan/camera.ts';
import { MifiScreen } from './common.tsx';

export default function ScanQr() {
  return (
    <MifiScreen title="map.scanTitle" className="scan-qr">
      {() => <Scan />}
    </MifiScreen>
  );
}

/** Where a read or typed code leads: the package's pickup at that cabinet, or the scan of the cabinet. */
export function scanQrTarget(text: string, orderId: string): string | null {
  const code = cabinetCodeFrom(text);
  if (!code) return null;
  return orderId ? href('/pickUp', { orderId, qrcode: code }) : `/?qrcode=${encodeURIComponent(code)}`;
}

function Scan() {
  const t = useT();
  const { query } = useStore($route);
  const orderId = query.get('orderId') ?? '';
  const video = useRef<HTMLVideoElement>(null);
  const [code, setCode] = useState('');
  const done = useRef(false);
  const go = (text: string) => {
    const to = scanQrTarget(text, orderId);
    if (!to || done.current) return;
    done.current = true;
    navigate(to, { replace: true });
  };
  const cameraError = useQrCamera(video, true, go);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    go(code);
  };
  return (
    <>
      <p>{orderId ? t('mifi.scanQr.pickup', { order: orderId }) : t('mifi.scanQr.hint')}</p>
      {cameraError ? (
        <p className="scan-error" role="alert">
          {t(`map.camera.${cameraError}`)}
        </p>
      ) : (
        <video ref={video} className="scan-video" muted playsInline aria-label={t('map.scanTitle')} />
      )}
      <form className="scan-manual field" onSubmit={submit}>
        <label htmlFor="scan-qr-code">{t('map.scanManual')}</label>
        <input id="scan-qr-code" value={code} autoComplete="off" onChange={(e) => setCode(e.target.value)} />
        <button type="submit" className="button primary block" disabled={!code.trim()}>
          {t('map.scanGo')}
        </button>
      </form>
      <button type="button" className="button block" onClick={() => back()}>
        {t('common.back')}
      </button>
    </>
  );
}
