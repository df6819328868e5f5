// Information screens: help, contact leads, WeChat JS config, order receipts.
import { api, createClient, DEFAULT_API_BASE } from './client.ts';
import { $agentOpenId } from '../stores/session.ts';
import { $lang } from '../stores/locale.ts';
import type { HelpItem, LeadBody, LeadResult, WeChatConfig } from '../contract/content.ts';
import type { InvoiceCheckResult, Receipt } from '../contract/notify.ts';

export type { HelpItem, Receipt, WeChatConfig };

/** GET cdb/help/list {classId: 'help_' + lang}. */
export function helpList(lang: string): Promise<HelpItem[]> {
  return api.get<HelpItem[]>('cdb/help/list', { query: { classId: `help_${lang}` } });
}

/** What the contact form sends (the contract's lead body without the source, which is always ours). */
export type ContactLead = Required<Omit<LeadBody, 'source'>>;

export const LEAD_SOURCE = 'powerly-web-app';

/** The host root of the API (POST {host}/crmLeads/add/public, JSON). */
function hostBase(): string {
  const base = api.config.baseURL ?? DEFAULT_API_BASE;
  return /^https?:\/\//.test(base) ? new URL('/', base).href : '/';
}

const hostClient = createClient({
  get baseURL() {
    return hostBase();
  },
  headers: () => ({ lang: $lang.get(), agentOpenId: $agentOpenId.get() }),
});

export function addLead(lead: ContactLead): Promise<LeadResult> {
  return hostClient.post<LeadResult>('crmLeads/add/public', { body: { ...lead, source: LEAD_SOURCE }, json: true });
}

/** POST setting/js_config {url without hash}. */
export function wechatConfig(url: string): Promise<WeChatConfig> {
  return api.post<WeChatConfig>('setting/js_config', { body: { url } });
}

/** GET cdb/invoice/check?orderId — the receipt, or null while there is none. */
export function invoiceCheck(orderId: string): Promise<InvoiceCheckResult> {
  return api.get<InvoiceCheckResult>('cdb/invoice/check', { query: { orderId } });
}

/** POST cdb/invoice/sendCdbOrderReceipt {orderId, email}. */
export function sendReceipt(orderId: string, email: string): Promise<null> {
  return api.post<null>('cdb/invoice/sendCdbOrderReceipt', { body: { orderId, email } });
}
