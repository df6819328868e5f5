// A method whose wire operations are still an object (MethodAdapter) rather than the method's own class: the
// operations are taken over as the MethodProvider's own. Goes once every method is a MethodProvider itself.
import type { PayoutInput } from '../provider.ts';
import type { AdapterDeps, MethodAdapter, MethodDefinition, NotificationRequest, StartInput } from './adapter.ts';
import { MethodProvider } from './external.ts';

export class AdaptedMethod extends MethodProvider {
  constructor(def: MethodDefinition, private readonly a: MethodAdapter, deps: AdapterDeps) {
    super(def, deps);
    if (a.complete) this.complete = a.complete.bind(a);
    if (a.capture) this.capturePayment = a.capture.bind(a);
    if (a.void) this.voidPayment = a.void.bind(a);
    if (a.saveCard) this.saveCardToken = a.saveCard.bind(a);
    if (a.removeCard) this.removeCard = a.removeCard.bind(a);
  }

  start(input: StartInput) {
    return this.a.start(input);
  }

  status(ref: string, outTradeNo: string) {
    return this.a.status(ref, outTradeNo);
  }

  refundPayment(ref: string, amount: number, call: { idempotencyKey: string }) {
    return this.a.refund(ref, amount, call);
  }

  readNotification(req: NotificationRequest) {
    return this.a.notification(req);
  }

  override payout(input: PayoutInput) {
    return this.a.payout ? this.a.payout(input) : super.payout(input);
  }

  override clientConfig() {
    return this.a.clientConfig?.() ?? {};
  }
}
