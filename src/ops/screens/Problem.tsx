// An error shown where it happened: the server's message (already in the operator's language) or a generic one.
import { WebAuthnError } from '@simplewebauthn/browser';
import { useT } from '../../i18n/index.ts';
import { OpsApiError } from '../api.ts';

export function Problem({ error }: { error: unknown }) {
  const t = useT();
  if (error === undefined) return null;
  const text =
    error instanceof OpsApiError
      ? error.message
      : error instanceof WebAuthnError || (error instanceof Error && error.name === 'NotAllowedError')
        ? t('ops.error.passkeyCancelled')
        : t('ops.error.network');
  return (
    <p className="ops-error" role="alert">
      {text}
    </p>
  );
}
