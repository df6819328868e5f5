// docs/asyncapi.yaml lints clean through the AsyncAPI parser (a pinned dev dependency): no error and no warning.
// (The served OpenAPI documents are linted with Redocly CLI in contract-openapi.test.ts.)
import { readFile } from 'node:fs/promises';
import { Parser } from '@asyncapi/parser';
import { describe, expect, it } from 'vitest';

describe('docs/asyncapi.yaml', () => {
  it('has no error or warning from the AsyncAPI parser', async () => {
    const text = await readFile(new URL('../../docs/asyncapi.yaml', import.meta.url), 'utf8');
    const diagnostics = await new Parser().validate(text);
    // Severity 0 is an error, 1 a warning (2 and 3: information and hints, such as a newer AsyncAPI version existing).
    const problems = diagnostics
      .filter((d) => d.severity <= 1)
      .map((d) => `${d.code} ${d.path.join('.')}: ${d.message}`);
    expect(problems, problems.join('\n')).toEqual([]);
  }, 120_000);
});
