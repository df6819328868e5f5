// Test mode's hint above a payment form: the values that decide the outcome (the sandbox card form's test cards,
// or a method's test phone numbers), each with what it does.
import { useT } from '../i18n/index.ts';
import { SANDBOX_TEST_CARDS } from './provider.ts';

export function SandboxHint({ text, values }: { text: string; values: { value: string; label: string }[] }) {
  const t = useT();
  return (
    <aside className="sandbox-hint" aria-label={t('confirm.sandboxTitle')}>
      <p>
        <strong>{t('confirm.sandboxTitle')}</strong> {text}
      </p>
      <ul>
        {values.map((v) => (
          <li key={v.value}>
            <code>{v.value}</code> — {v.label}
          </li>
        ))}
      </ul>
    </aside>
  );
}

/** The sandbox card form's test cards; for the debit-only type every card that is not debit is declined. */
export function SandboxCardsHint({ debitOnly = false }: { debitOnly?: boolean }) {
  const t = useT();
  return (
    <SandboxHint
      text={t('confirm.sandboxText')}
      values={SANDBOX_TEST_CARDS.map((c) => ({
        value: c.number,
        label: t(`confirm.testCard.${debitOnly && c.funding !== 'debit' ? 'notDebit' : c.outcome}`),
      }))}
    />
  );
}
