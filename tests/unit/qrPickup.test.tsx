// Component test (happy-dom): the pickup by a QR code shown to the box does not wait forever. Against a real local
// HTTP server playing the API: while the box has not read the code the dialog polls; past its time it closes and
// says the box did not read the code; a box that read it opens the box.
import { beforeAll, describe, expect, it } from 'vitest';
import { QrPickupDialog } from '../../src/mifi/QrPickup.tsx';
import { $dialogs } from '../../src/ui/feedback.tsx';
import { addMessages } from '../../src/i18n/index.ts';
import type { MifiPackage } from '../../src/api/mifi.ts';
import mifiEn from '../../locales/mifi/en-US.json';
import { localApi, renderer } from './localApi.ts';
import { until } from './until.ts';

/** What checkPickUp answers, and how often it was asked. */
let answer = { status: 0 } as Record<string, unknown>;
let polls = 0;

localApi((path) => {
  if (path !== 'chargenow/mifi/checkPickUp') return undefined;
  polls++;
  return { json: { code: 0, msg: 'success', data: answer } };
});
const render = renderer();
beforeAll(() => addMessages('en-US', mifiEn));

const pkg = { orderId: 'P-QR-1', productSendSn: '' } as MifiPackage;

function mount(timeoutMs: number) {
  const seen = { closed: 0, picked: '' };
  render(
    <QrPickupDialog
      pkg={pkg}
      timeoutMs={timeoutMs}
      onClose={() => seen.closed++}
      onPicked={(p) => (seen.picked = p.productSendSn)}
      onRefresh={() => {}}
    />,
  );
  return seen;
}

describe('pickup by a QR code shown to the box', () => {
  it('stops waiting past its time: the dialog closes and says the box did not read the code', async () => {
    answer = { status: 0 };
    polls = 0;
    const seen = mount(1);
    expect(document.body.textContent).toContain('Waiting for the box…');
    await until(() => seen.closed > 0);
    expect(polls).toBeGreaterThan(0);
    expect($dialogs.get().map((d) => d.title)).toEqual(['The box did not read the code']);
  });

  it('a box that read the code in time opens it, without the timeout message', async () => {
    answer = { status: 2, productSendSn: 'MF-LIS-0002' };
    const seen = mount(60_000);
    await until(() => seen.picked);
    expect(seen.picked).toBe('MF-LIS-0002');
    expect($dialogs.get()).toEqual([]);
  });
});
