// The published declarations (embed/types.d.ts) say what the source does: every event the bridge delivers
// is a PowerlyEvent and the other way round, the appearance shapes match, and the element has the methods.
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { PowerlyAppearance, PowerlyEvent, PowerlyEventType, PowerlyMethods } from '../../embed/types.d.ts';
import { WIDGET_EVENT_TYPES, type WidgetEvent } from '../../embed/bridge.ts';
import type { Appearance } from '../../embed/protocol.ts';
import '../../embed/element.ts';

describe('embed/types.d.ts', () => {
  it('events and appearance match the source', () => {
    expectTypeOf<WidgetEvent['type']>().toEqualTypeOf<PowerlyEventType>();
    expectTypeOf<WidgetEvent>().toExtend<PowerlyEvent>();
    expectTypeOf<Appearance>().toEqualTypeOf<PowerlyAppearance>();
    expect([...WIDGET_EVENT_TYPES].sort()).toEqual([
      'eject.confirmed',
      'eject.failed',
      'error',
      'navigate',
      'payment.failed',
      'ready',
      'rental.notice',
      'rental.returned',
      'rental.started',
      'resize',
    ]);
  });
  it('the element has every method', () => {
    const el = document.createElement('powerly-rent') as unknown as Record<keyof PowerlyMethods, unknown>;
    for (const m of ['open', 'close', 'setLocale', 'setTheme', 'logout'] as const)
      expect(typeof el[m], m).toBe('function');
  });
});
