// The iframe page keeps the session token in memory only: with embed/memory-storage.ts imported first,
// setting the session writes nothing to localStorage or sessionStorage.
import { describe, expect, it } from 'vitest';
import '../../embed/memory-storage.ts';

describe('token in memory only (iframe page)', () => {
  it('setSession stores nothing in web storage', async () => {
    localStorage.clear();
    sessionStorage.clear();
    const { $token, setSession } = await import('../../src/stores/session.ts');
    setSession('tok_secret_123456', '');
    expect($token.get()).toBe('tok_secret_123456');
    expect(JSON.stringify({ ...localStorage })).not.toContain('tok_secret');
    expect(localStorage.length).toBe(0);
    expect(sessionStorage.length).toBe(0);
    expect(document.cookie).not.toContain('tok_secret');
  });
});
