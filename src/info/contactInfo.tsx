// Powerly's contact details (about us, contact us). Labels are translated; the values are not text.
import { SUPPORT_CHAT_NUMBER, supportChatLink } from '../core/navigation.ts';

export const CONTACT = {
  website: 'https://www.powerly.io',
  phones: ['+351 21 000 4242', '+86 400 800 4242'],
  wechatId: 'PowerlyService',
  email: 'hello@powerly.io',
  chatNumber: SUPPORT_CHAT_NUMBER,
};

export function ContactItems({ t }: { t: (k: string) => string }) {
  return (
    <ul className="contact-list">
      <li>
        <span>{t('contact.website')}</span>
        <a href={CONTACT.website} target="_blank" rel="noopener noreferrer">
          {CONTACT.website.replace(/^https:\/\//, '')}
        </a>
      </li>
      {CONTACT.phones.map((p) => (
        <li key={p}>
          <span>{t('contact.phone')}</span>
          <a href={`tel:${p.replace(/\s/g, '')}`}>{p}</a>
        </li>
      ))}
      <li>
        <span>{t('contact.imId')}</span>
        <span className="value">{CONTACT.wechatId}</span>
      </li>
      <li>
        <span>{t('contact.email')}</span>
        <a href={`mailto:${CONTACT.email}`}>{CONTACT.email}</a>
      </li>
      <li>
        <span>{t('contact.chat')}</span>
        <a href={supportChatLink()} target="_blank" rel="noopener noreferrer">
          {t('contact.chatLink')}
        </a>
      </li>
    </ul>
  );
}
