// Logout (spec §4): clears user, token and the Apple id token, then /login. Session revocation on the server
// belongs to sign-in; this only ends the client's session.
import { clearSession } from '../stores/session.ts';
import { navigate } from '../stores/router.ts';

export async function logout(): Promise<void> {
  clearSession();
  try {
    localStorage.removeItem('appleIdToken');
  } catch {
    /* storage unavailable */
  }
  navigate('/login', { replace: true });
}
