// Content of the information screens: help items per language, contact / franchise leads, WeChat JS config.
import type { Clock } from '../../lib/clock.ts';
import { badRequest } from '../../lib/errors.ts';
import type { Locale } from '../../lib/i18n.ts';
import { ContentRepository, type HelpItem } from './repository.ts';
import { jsSdkSignature, nonce, signableUrl, type WeChatTicketSource } from './wechat.ts';

export const LEAD_SOURCE = 'powerly-web-app';

/** The required fields of the contact form in the order they are checked, with their message keys. */
export const LEAD_REQUIRED = [
  ['Name', 'error.contact.name'],
  ['Email', 'error.contact.email'],
  ['Mobile', 'error.contact.mobile'],
  ['nation', 'error.contact.nation'],
] as const;

export type LeadBody = Partial<Record<'Name' | 'Email' | 'Mobile' | 'nation' | 'Content' | 'source', string>>;

export class ContentService {
  constructor(
    private readonly repo: ContentRepository,
    private readonly clock: Clock,
    private readonly wechat: WeChatTicketSource,
  ) {}

  /** classId is 'help_' + lang. Unknown languages fall back to en-US. */
  async help(classId: string): Promise<HelpItem[]> {
    const m = /^help_(.+)$/.exec(classId);
    if (!m) throw badRequest('error.help.classId');
    const items = await this.repo.helpItems(m[1]!);
    return items.length ? items : this.repo.helpItems('en-US');
  }

  /** Name, Email, Mobile, nation non-empty after trim, each with its own message; Content free. */
  async addLead(body: LeadBody, lang: Locale): Promise<number> {
    for (const [field, key] of LEAD_REQUIRED) if (!body[field]?.trim()) throw badRequest(key);
    return this.repo.addLead(
      {
        name: body.Name!.trim(),
        email: body.Email!.trim(),
        mobile: body.Mobile!.trim(),
        nation: body.nation!.trim(),
        content: body.Content?.trim() ?? '',
        source: body.source?.trim() || LEAD_SOURCE,
        lang,
      },
      this.clock.now(),
    );
  }

  async wechatConfig(url: string) {
    const timestamp = Math.floor(this.clock.now().getTime() / 1000);
    const noncestr = nonce();
    const ticket = await this.wechat.jsapiTicket();
    return {
      appId: this.wechat.appId,
      timestamp,
      noncestr,
      signature: jsSdkSignature({ ticket, noncestr, timestamp, url: signableUrl(url) }),
    };
  }
}
