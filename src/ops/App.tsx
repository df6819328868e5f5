// The console: the session decides between sign-in (or an invitation) and the shell with its screens.
import { useEffect } from 'react';
import { useStore } from '@nanostores/react';
import { useT } from '../i18n/index.ts';
import { $session, loadSession } from './api.ts';
import { $route } from './route.ts';
import { useOpsStrings } from './strings.ts';
import { Shell } from './Shell.tsx';
import { FeedbackHost } from '../ui/feedback.tsx';
import { SignIn } from './screens/SignIn.tsx';
import { Invitation } from './screens/Invitation.tsx';

export function App() {
  const ready = useOpsStrings();
  const session = useStore($session);
  const route = useStore($route);
  const t = useT();
  useEffect(() => {
    void loadSession().catch(() => undefined);
  }, []);
  useEffect(() => {
    if (ready) document.title = t('ops.app.title');
  }, [ready, t]);
  if (!ready || !session)
    return (
      <p className="ops-loading" role="status">
        …
      </p>
    );
  if (route.path === '/invitation' && !session.me) return <Invitation token={route.query.get('token') ?? ''} />;
  if (!session.me) return <SignIn sso={session.sso} />;
  return (
    <>
      <Shell me={session.me} />
      <FeedbackHost />
    </>
  );
}
