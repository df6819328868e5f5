// The rental's receipts and reminders for the host page: live events of kind 'notice' (the rider's 'host' channel,
// modules/notify on the server) become `rental.notice` messages, each notice once by its tag (docs/embed.md). Loaded
// by the frame only once a rental is on; holds the live stream open for as long as the frame lives.
import { $liveState, onLiveEvent } from '../src/stores/live.ts';
import type { WidgetMessage } from './protocol.ts';

export function passNotices(bridge: { send(m: WidgetMessage): void }) {
  const told = new Set<string>();
  $liveState.listen(() => undefined);
  onLiveEvent((e) => {
    const n = e.kind === 'notice' ? e.notice : undefined;
    if (!n || !e.orderId || told.has(n.tag)) return;
    told.add(n.tag);
    bridge.send({
      type: 'rental.notice',
      payload: { orderId: e.orderId, kind: n.kind, title: n.title.slice(0, 200), body: n.body.slice(0, 600) },
    });
  });
}
