// Component test (happy-dom): the area-code wheel picker — the filter waits 500 ms after the last keystroke
// and matches labels case-insensitively; items are 36 px; confirm returns the centred option.
import { act } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { AreaPicker, type AreaOption } from '../../src/auth/AreaPicker.tsx';

declare global {
  var IS_REACT_ACT_ENVIRONMENT: boolean;
}
beforeAll(() => {
  globalThis.IS_REACT_ACT_ENVIRONMENT = true;
});

let root: Root | null = null;
afterEach(() => {
  act(() => root?.unmount());
  root = null;
  document.body.innerHTML = '';
  vi.useRealTimers();
});

const options = () => [...document.querySelectorAll('[role="option"]')] as HTMLElement[];

describe('AreaPicker', () => {
  it('filters case-insensitively 500 ms after typing stops; confirm gives the chosen code', async () => {
    vi.useFakeTimers();
    const chosen: AreaOption[] = [];
    const el = document.createElement('div');
    document.body.appendChild(el);
    root = createRoot(el);
    await act(async () =>
      root!.render(<AreaPicker open value="86" onClose={() => {}} onConfirm={(o) => chosen.push(o)} />),
    );
    const all = options().length;
    expect(all).toBeGreaterThan(50);
    expect(options()[0]!.style.height).toBe('36px');

    const input = document.querySelector('input[type="search"]') as HTMLInputElement;
    const type = async (v: string) => {
      const set = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value')!.set!;
      await act(async () => {
        set.call(input, v);
        input.dispatchEvent(new Event('input', { bubbles: true }));
      });
    };
    await type('LIT');
    await act(async () => vi.advanceTimersByTime(300));
    await type('LITHU');
    await act(async () => vi.advanceTimersByTime(499));
    expect(options().length).toBe(all); // not yet: 500 ms after the last keystroke
    await act(async () => vi.advanceTimersByTime(1));
    expect(options().map((o) => o.textContent)).toEqual(['Lithuania +370']);
    await act(async () => vi.advanceTimersByTime(20));
    const confirm = [...document.querySelectorAll('button')].find((b) => b.textContent === 'Confirm')!;
    await act(async () => confirm.click());
    expect(chosen.map((c) => c.value)).toEqual(['370']);
  });
});
