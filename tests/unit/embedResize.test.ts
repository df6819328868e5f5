// When the host applies a height the widget asks for on its own (embed/mount.ts): only when nothing of the host
// page that is in view moves — the box reaches below the viewport's bottom before and after.
import { describe, expect, it } from 'vitest';
import { resizeIsInvisible } from '../../embed/mount.ts';

const box = (top: number, height: number) => ({ top, bottom: top + height, width: 388, height });

describe('resizeIsInvisible', () => {
  it('grows or shrinks a box that reaches below the viewport, as long as it still does', () => {
    expect(resizeIsInvisible(box(150, 920), 1200, 900)).toBe(true);
    expect(resizeIsInvisible(box(150, 920), 760, 900)).toBe(true);
    expect(resizeIsInvisible(box(-400, 1400), 1300, 900)).toBe(true); // scrolled: its new bottom is at the viewport's
  });

  it('waits when what follows the box is in view before or after', () => {
    expect(resizeIsInvisible(box(150, 920), 700, 900)).toBe(false); // shrinks: the content below comes up
    expect(resizeIsInvisible(box(150, 600), 920, 900)).toBe(false); // grows: the content below is pushed down
    expect(resizeIsInvisible(box(-1000, 600), 900, 900)).toBe(false); // scrolled past: what follows is in view
  });

  it('a box that is not laid out (display: none) moves nothing', () => {
    expect(resizeIsInvisible({ top: 0, bottom: 0, width: 0, height: 0 }, 600, 900)).toBe(true);
  });
});
