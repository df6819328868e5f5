// Google (or Apple on iOS) and Facebook buttons: get the provider's token through its client adapter, then
// the server verifies it and returns our session token.
import { useState } from 'react';
import { appleLogin, facebookLogin, googleLogin } from '../api/auth.ts';
import { errorText, useT } from '../i18n/index.ts';
import { currentSystem } from '../platform/device.ts';
import { toast } from '../ui/feedback.tsx';
import { providerToken, type OAuthProvider } from './providers.ts';

const CALL: Record<OAuthProvider, (t: string) => Promise<string>> = {
  google: googleLogin,
  apple: appleLogin,
  facebook: facebookLogin,
};

export function ProviderButtons({
  providers,
  finish,
}: {
  providers: OAuthProvider[];
  finish: (token: string) => Promise<void>;
}) {
  const t = useT();
  const [busy, setBusy] = useState<OAuthProvider | null>(null);
  const go = async (p: OAuthProvider) => {
    setBusy(p);
    try {
      const token = await CALL[p](await providerToken(p));
      await finish(token);
    } catch (e) {
      toast(e instanceof Error && e.name === 'ApiError' ? errorText(e, t) : t('login.failed'));
    } finally {
      setBusy(null);
    }
  };
  return (
    <div className="login-providers">
      {providers.map((p) => (
        <button
          key={p}
          type="button"
          className={`button block login-${p}`}
          disabled={busy !== null}
          aria-busy={busy === p}
          onClick={() => void go(p)}
        >
          {t(`login.with.${p}`)}
        </button>
      ))}
    </div>
  );
}

/** Apple on iOS, otherwise Google. */
export function primaryProvider(): OAuthProvider {
  return currentSystem() === 'ios' ? 'apple' : 'google';
}
