// The ops API's partners (docs/api.md "Ops API: partners"): share rules, tax and provider fee rates, statements
// (JSON, CSV, PDF) and earnings. Reads need partners.read, writes partners.write and carry a reason.
import { pickLocale } from '../../lib/i18n.ts';
import type { App } from '../../lib/route.ts';
import { actorOf } from '../../plugins/ops-api.ts';
import {
  Earnings,
  PartnerRentals,
  ProviderFeeSet,
  Rates,
  RulesQuery,
  ShareRule,
  ShareRuleCreate,
  ShareRuleList,
  StatementDetail,
  StatementIssue,
  StatementList,
  StatementParams,
  StatementShape,
  StatementsQuery,
  TaxRateSet,
} from '#contract/ops/partners.ts';
import { toStatement, type PartnersAdmin } from './admin.ts';
import { statementCsv, statementFileName, statementPdf } from './statement-documents.ts';
import type { LineRow } from './statements-repository.ts';

const iso = (d: Date | null) => (d ? new Date(d).toISOString() : undefined);
const toLine = (l: LineRow) => ({
  kind: l.line_kind,
  orderId: l.order_id ?? undefined,
  settledAt: iso(l.settled_at),
  at: iso(l.at)!,
  gross: l.gross,
  refunded: l.refunded,
  providerFee: l.provider_fee,
  tax: l.tax,
  net: l.net,
  percentBps: l.percent_bps,
  amount: l.amount,
});

export function partnersOpsRoutes(o: { admin: PartnersAdmin }) {
  return async (ops: App) => {
    const read = { permission: 'partners.read' as const };
    const write = { permission: 'partners.write' as const };

    ops.get(
      '/partners/rules',
      { config: read, schema: { querystring: RulesQuery, response: { 200: ShareRuleList } } },
      async (req) => ({ items: await o.admin.rules(req.opsScope, req.query) }),
    );

    ops.post(
      '/partners/rules',
      { config: write, schema: { body: ShareRuleCreate, response: { 201: ShareRule } } },
      async (req, reply) => {
        const { reason, ...input } = req.body;
        return reply.code(201).send(await o.admin.addRule(req.opsScope, actorOf(req, reason), input));
      },
    );

    ops.get(
      '/partners/rates',
      {
        config: read,
        schema: { description: 'Platform-wide: 404 for a caller scoped to agents.', response: { 200: Rates } },
      },
      async (req) => o.admin.rates(req.opsScope),
    );

    ops.post(
      '/partners/tax-rates',
      {
        config: write,
        schema: { description: "Sets a country's rate (platform-wide).", body: TaxRateSet, response: { 200: Rates } },
      },
      async (req) =>
        o.admin.setTaxRate(req.opsScope, actorOf(req, req.body.reason), req.body.country, req.body.rateBps),
    );

    ops.post(
      '/partners/provider-fees',
      {
        config: write,
        schema: {
          description: "Sets a provider's fee (platform-wide).",
          body: ProviderFeeSet,
          response: { 200: Rates },
        },
      },
      async (req) =>
        o.admin.setProviderFee(req.opsScope, actorOf(req, req.body.reason), req.body.provider, req.body.rateBps),
    );

    ops.get('/partners/earnings', { config: read, schema: { response: { 200: Earnings } } }, async (req) => ({
      items: await o.admin.earnings(req.opsScope),
    }));

    ops.get(
      '/partners/rentals',
      {
        config: read,
        schema: {
          description: 'The latest 200 settled rentals of the venues in scope.',
          response: { 200: PartnerRentals },
        },
      },
      async (req) => ({ items: await o.admin.rentals(req.opsScope) }),
    );

    ops.get(
      '/partners/statements',
      { config: read, schema: { querystring: StatementsQuery, response: { 200: StatementList } } },
      async (req) => ({ items: await o.admin.statements(req.opsScope, req.query) }),
    );

    ops.post(
      '/partners/statements',
      {
        config: write,
        schema: {
          description: 'Issues a month that has ended (409 before, or when issued already); posts the monthly fee.',
          body: StatementIssue,
          response: { 201: StatementShape },
        },
      },
      async (req, reply) => {
        const { reason, ...k } = req.body;
        return reply.code(201).send(await o.admin.issue(req.opsScope, actorOf(req, reason), k));
      },
    );

    ops.get(
      '/partners/statements/:id',
      { config: read, schema: { params: StatementParams, response: { 200: StatementDetail } } },
      async (req) => {
        const s = await o.admin.statement(req.opsScope, req.params.id);
        return { statement: toStatement(s.statement), lines: s.lines.map(toLine) };
      },
    );

    ops.get(
      '/partners/statements/:id/csv',
      { config: read, schema: { description: 'text/csv', params: StatementParams } },
      async (req, reply) => {
        const s = await o.admin.statement(req.opsScope, req.params.id);
        return reply
          .header('Content-Type', 'text/csv; charset=utf-8')
          .header('Cache-Control', 'no-store')
          .header('Content-Disposition', `attachment; filename="${statementFileName(s.statement, 'csv')}"`)
          .send(statementCsv(s.statement, s.lines, pickLocale(req.headers['accept-language'])));
      },
    );

    ops.get(
      '/partners/statements/:id/pdf',
      { config: read, schema: { description: 'application/pdf', params: StatementParams } },
      async (req, reply) => {
        const s = await o.admin.statement(req.opsScope, req.params.id);
        return reply
          .header('Content-Type', 'application/pdf')
          .header('Cache-Control', 'no-store')
          .header('Content-Disposition', `attachment; filename="${statementFileName(s.statement, 'pdf')}"`)
          .send(await statementPdf(s.statement, s.lines, pickLocale(req.headers['accept-language'])));
      },
    );
  };
}
