// Sign-in calls of this slice.
import { api } from './client.ts';
import type { User } from '../stores/session.ts';

/** POST saas/tourist/login?code={deviceCode} → token. */
export function touristLogin(deviceCode: string): Promise<string> {
  return api.post<string>('saas/tourist/login', { query: { code: deviceCode }, noToken: true });
}

/** GET userInfo → the signed-in user. */
export function getUserInfo(): Promise<User> {
  return api.get<User>('userInfo');
}
