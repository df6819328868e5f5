import type { Queryable } from '../../db/db.ts';

export interface HelpItem {
  position: number;
  title: string;
  content: string;
}

export interface LeadInput {
  name: string;
  email: string;
  mobile: string;
  nation: string;
  content: string;
  source: string;
  lang: string;
}

export class ContentRepository {
  constructor(private readonly db: Queryable) {}

  async helpItems(lang: string): Promise<HelpItem[]> {
    const { rows } = await this.db.query<HelpItem>(
      'select position, title, content from help_items where lang = $1 order by position',
      [lang],
    );
    return rows;
  }

  async addLead(l: LeadInput, at: Date): Promise<number> {
    const { rows } = await this.db.query<{ id: number }>(
      `insert into crm_leads (name, email, mobile, nation, content, source, lang, created_at)
       values ($1, $2, $3, $4, $5, $6, $7, $8) returning id`,
      [l.name, l.email, l.mobile, l.nation, l.content, l.source, l.lang, at],
    );
    return Number(rows[0]!.id);
  }
}
