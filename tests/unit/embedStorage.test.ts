// Where the iframe page keeps its persistent stores (embed/storage.ts): only the session and the open rental
// go to the widget origin's (browser-partitioned) localStorage, under the agent and slot of the frame; the
// native web-view keeps everything in memory.
import { describe, expect, it } from 'vitest';
import { frameEngine, storagePrefix } from '../../embed/storage.ts';

describe('iframe page storage', () => {
  it('names the storage by agent and slot; native web-views and bad names get none', () => {
    expect(storagePrefix('?agent=demo-venue&origin=x&slot=rent-lisbon')).toBe('powerly:demo-venue:rent-lisbon:');
    expect(storagePrefix('?agent=demo-venue')).toBe('powerly:demo-venue::');
    expect(storagePrefix('?agent=demo-app&transport=native')).toBeNull();
    expect(storagePrefix('?agent=a:b')).toBeNull();
    expect(storagePrefix('?agent=a&slot=x:y')).toBeNull();
    expect(storagePrefix('')).toBeNull();
  });

  it('writes the session through, keeps the rest in memory, and restores the session on a new page', () => {
    localStorage.clear();
    const e = frameEngine(localStorage, 'powerly:a:s:');
    e.token = 'tok_secret_123456';
    e.qrcode = 'PWL-LIS-001';
    e.rental = '42';
    expect(localStorage.getItem('powerly:a:s:token')).toBe('tok_secret_123456');
    expect(localStorage.getItem('powerly:a:s:rental')).toBe('42');
    expect(JSON.stringify({ ...localStorage })).not.toContain('PWL-LIS');
    const again = frameEngine(localStorage, 'powerly:a:s:');
    expect({ token: again.token, rental: again.rental, qrcode: again.qrcode }).toEqual({
      token: 'tok_secret_123456',
      rental: '42',
      qrcode: undefined,
    });
    // Another slot or agent does not see it.
    expect(frameEngine(localStorage, 'powerly:a:t:').token).toBeUndefined();
    delete again.token;
    expect(localStorage.getItem('powerly:a:s:token')).toBeNull();
  });

  it('memory only without a prefix (native) or without storage', () => {
    localStorage.clear();
    const e = frameEngine(localStorage, null);
    e.token = 'tok_secret_123456';
    expect(localStorage.length).toBe(0);
    const m = frameEngine(null, 'powerly:a:s:');
    m.token = 'tok_secret_123456';
    expect(m.token).toBe('tok_secret_123456');
    expect(localStorage.length).toBe(0);
  });
});

describe('text on the primary colour', () => {
  it('is black or white by contrast', async () => {
    const { textOn } = await import('../../embed/appearance.ts');
    expect(textOn('#0b6e4f')).toBe('#ffffff');
    expect(textOn('#f2a93b')).toBe('#000000');
    expect(textOn('#fff')).toBe('#000000');
    expect(textOn('rgb(20, 20, 20)')).toBe('#ffffff');
    expect(textOn('hsl(10 50% 50%)')).toBeNull();
  });
});
