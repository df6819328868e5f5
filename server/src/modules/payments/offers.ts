// What an agent offers to pay with: its card provider and card types, its methods by currency and platform, the payout
// channels of its methods, and which method can hold a deposit (PaymentsService extends this).
import { badRequest } from '../../lib/errors.ts';
import { DEBIT_CARD_TYPE, type PaymentProvider } from './provider.ts';
import type { MethodProvider } from './methods/external.ts';
import { PaymentRecords } from './records.ts';
import {
  type PaymentMethod,
  COUNTRY,
  CARD_METHOD_ID,
  STRIPE_TYPES,
  STRIPE_TYPE_ALIASES,
  STRIPE_HOLD_TYPES,
  type Purpose,
} from './service-shapes.ts';

export abstract class PaymentOffers extends PaymentRecords {
  /** The card provider of an agent: its own account, else the platform's (the registry's). */
  providerOf(agent: string): PaymentProvider | null {
    return this.providers.cardProviderOf(agent);
  }

  /** The methods a cabinet or wallet in `currency` offers for `agent`. Only registered providers are offered. */
  methods(currency: string, symbol: string, agent = this.platform, purpose: Purpose = {}): PaymentMethod[] {
    const provider = this.providerOf(agent);
    const base = {
      currencySymbol: symbol,
      pCurrencyType: currency,
      configDetails: { accountCountry: COUNTRY[currency] ?? 'US', currency: currency.toLowerCase() },
    };
    const cards: PaymentMethod[] = !provider
      ? []
      : provider.id === 'sandbox'
        ? [
            {
              pId: CARD_METHOD_ID,
              pPaymentType: 'STRIPE_CARD',
              label: 'Card',
              publicKey: provider.publicKey(),
              ...base,
            },
          ]
        : STRIPE_TYPES.filter((t) => !t.currencies || t.currencies.includes(currency))
            .filter((t) => !purpose.hold || STRIPE_HOLD_TYPES.has(t.type))
            .map((t) => ({
              pId: `${provider.id}:${t.type}`,
              pPaymentType: t.type,
              label: t.label,
              publicKey: provider.publicKey(),
              ...base,
            }));
    // Debit cards only (`debitcard`): the card form of the agent's card provider, where the operator switched it on.
    if (provider && this.debitCard(agent)) {
      cards.push({
        pId: `${provider.id}:${DEBIT_CARD_TYPE}`,
        pPaymentType: DEBIT_CARD_TYPE,
        label: 'Debit card',
        publicKey: provider.publicKey(),
        ...base,
      });
    }
    // The other methods: by currency and platform. Without a hold they still rent: the deposit goes through the wallet.
    const platform = purpose.platform ?? 'web';
    const others = this.methodProvidersOf(agent).flatMap((p) => {
      const def = p.definition;
      if (def.currencies && !def.currencies.includes(currency)) return [];
      // The test mode of the card provider's own types (wallets, iDEAL, WeChat Pay): only where that provider is the sandbox.
      if (def.cardProviderTypes && provider?.id !== 'sandbox') return [];
      // A card method of test mode tokenises with the sandbox card provider's key.
      const key = p.sandbox
        ? this.providers.has('sandbox')
          ? this.providers.get('sandbox').publicKey()
          : ''
        : p.publicKey();
      return def.payTypes
        .filter((t) => (t.platforms ? t.platforms.includes(platform) : platform === 'web' || t.kind !== 'jsapi'))
        .filter((t) => !t.currencies || t.currencies.includes(currency))
        .map((t): PaymentMethod => ({
          pId: `${p.id}:${t.type}`,
          pPaymentType: t.type,
          label: t.label,
          publicKey: key,
          ...base,
          kind: t.kind,
          hold: def.capabilities.hold && t.hold !== false,
          // The card fields go to our server (sealed in the payer token, encrypted for the provider): Flutterwave's direct charge.
          ...(t.directCard ? { directCard: true } : {}),
          ...(t.kind === 'card' && p.cardOnSdkScreen ? { sdk: true } : {}),
          ...(t.kind === 'card' && p.savesCards ? { savesCards: true } : {}),
          // Test mode: the phone numbers of a push method decide its outcome (the provider's own test numbers); a card
          // method takes the sandbox card form's test cards, the others the checkout page's answer.
          ...(p.sandbox
            ? {
                sandbox: true,
                testValues:
                  t.kind === 'push'
                    ? (def.testValues ?? []).filter((v) => !v.card).map((v) => ({ value: v.value, outcome: v.outcome }))
                    : [],
              }
            : {}),
        }));
    });
    return [...cards, ...others];
  }

  get platform() {
    return this.providers.platform;
  }

  /** Whether the agent offers the debit-only card type: switched on in its configuration (else the platform's), or test mode. */
  debitCard(agent: string): boolean {
    if (this.providerOf(agent)?.id === 'sandbox') return true;
    return this.providers.cardTypesOf(agent).includes(DEBIT_CARD_TYPE);
  }

  /** The agent's own method providers, else the platform's. */
  methodProvidersOf(agent: string): MethodProvider[] {
    return this.providers.methodsOf(agent);
  }

  /**
   * Withdrawal channels of the agent's configured methods that pay out in `currency` (payout channels). Test
   * mode adds none: which currencies can be withdrawn, and how, stays the operator's configuration.
   */
  payoutChannels(currency: string, agent = this.platform) {
    return this.methodProvidersOf(agent)
      .filter(
        (p) =>
          !p.sandbox &&
          p.capabilities.payout &&
          p.definition.payoutChannel &&
          (!p.definition.currencies || p.definition.currencies.includes(currency)),
      )
      .map((p) => ({
        provider: p,
        channel: {
          channelName: p.definition.payoutChannel!.label,
          paymentId: `${p.id}:payout`,
          payoutConfig: p.definition.payoutChannel!.fields.map((fieldName) => ({
            fieldName,
            fieldType: 'input' as const,
            fieldDefauldValues: [],
          })),
        },
      }));
  }

  /** Every registered method provider (of every agent, offered or switched off: their payments still resume). */
  allMethodProviders(): MethodProvider[] {
    return this.providers.allMethods();
  }

  /** The method provider behind a method id of `agent`, and the method's payment type. */
  externalMethod(methodId: string, agent = this.platform) {
    const i = methodId.lastIndexOf(':');
    const [pid, type] = [methodId.slice(0, i), methodId.slice(i + 1)];
    const p = this.methodProvidersOf(agent).find((x) => x.id === pid);
    if (p?.definition.cardProviderTypes && this.providerOf(agent)?.id !== 'sandbox') return undefined;
    return p && p.kindOf(type) ? { provider: p, payType: type, kind: p.kindOf(type)! } : undefined;
  }

  /**
   * The provider behind a method id, if that method belongs to `agent` (a method of another agent's account is
   * refused: its cards and keys are not this agent's).
   */
  providerForMethod(methodId: string, agent = this.platform): PaymentProvider | null {
    const ext = this.externalMethod(methodId, agent);
    if (ext) return this.providers.get(ext.provider.id);
    const provider = this.providerOf(agent);
    if (!provider) return null;
    if (methodId === CARD_METHOD_ID) return provider.id === 'sandbox' ? provider : null;
    const [pid, type] = methodId.split(':');
    if (pid !== provider.id) return null;
    if (type === DEBIT_CARD_TYPE) return this.debitCard(agent) ? provider : null;
    return STRIPE_TYPES.some((t) => t.type === (STRIPE_TYPE_ALIASES[type ?? ''] ?? type)) ? provider : null;
  }

  /**
   * Whether a method can hold a deposit (pre-authorisation) rather than charge at once: its provider declares both
   * `hold` and `partialCapture` (a deposit is settled by capturing the rent and releasing the rest). A method
   * without them pays the deposit into the wallet, where it is held (docs/payments.md "Deposits").
   */
  methodHolds(methodId: string, agent = this.platform) {
    const ext = this.externalMethod(methodId, agent);
    // A pay type that charges at once (WeChat H5, Alipay WAP) never holds, whatever its provider can do.
    if (ext?.provider.definition.payTypes.find((t) => t.type === ext.payType)?.hold === false) return false;
    const holdType =
      ext != null ||
      methodId === CARD_METHOD_ID ||
      STRIPE_HOLD_TYPES.has(methodId.slice(methodId.lastIndexOf(':') + 1));
    const provider = holdType ? this.providerForMethod(methodId, agent) : null;
    return provider != null && this.can(provider.id, 'hold') && this.can(provider.id, 'partialCapture');
  }

  /** A method id must be one of this agent's methods, else a clear 400 and nothing is charged. */
  requireProvider(methodId: string, agent?: string) {
    const p = this.providerForMethod(methodId, agent);
    if (!p) throw badRequest('error.paymentMethod');
    return p;
  }
}
