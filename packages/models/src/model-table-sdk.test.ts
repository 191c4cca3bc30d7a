import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MODEL_FAMILIES, MODEL_RETIREMENTS } from '@osharm/model-spec';

/**
 * The capability table and the retirement dates against the pinned SDKs' own data, read from
 * their installed files at test time: every model id of the table is in its SDK's model list, and
 * every end of life is the SDK's.
 */
const require = createRequire(import.meta.url);
const packageDir = (name: string) => {
  // the SDKs' exports hide package.json from require.resolve: walk up from the entry to the
  // directory named after the package
  let dir = dirname(require.resolve(name));
  while (!dir.endsWith(join('node_modules', name))) dir = dirname(dir);
  return dir;
};
const read = (name: string, path: string) => readFileSync(join(packageDir(name), path), 'utf8');

const quoted = (text: string) =>
  new Set([...text.matchAll(/['"]([a-z0-9][a-z0-9.-]*)['"]/g)].map(match => match[1]!));

const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

describe('the capability table against the SDKs', () => {
  it('names only models of the SDK lists', () => {
    const messages = read('@anthropic-ai/sdk', 'resources/messages/messages.d.ts');
    const anthropic = quoted(
      messages.slice(
        messages.indexOf('export type Model ='),
        messages.indexOf('(string & {})', messages.indexOf('export type Model =')),
      ),
    );
    const shared = read('openai', 'resources/shared.d.ts');
    const openai = quoted(
      shared.slice(
        shared.indexOf('export type ChatModel ='),
        shared.indexOf(';', shared.indexOf('export type ChatModel =')),
      ),
    );
    const genai = read('@google/genai', 'dist/genai.d.ts');
    const gemini = quoted(
      genai.slice(
        genai.indexOf('declare type Model_2 ='),
        genai.indexOf('(string & {})', genai.indexOf('declare type Model_2 =')),
      ),
    );
    const responses = read('openai', 'resources/beta/responses/responses.d.ts');
    const missing: string[] = [];
    for (const family of MODEL_FAMILIES) {
      for (const id of family.models) {
        const list =
          family.vendor === 'anthropic' ? anthropic : family.vendor === 'openai' ? openai : gemini;
        const elsewhere = family.vendor === 'openai' && responses.includes(`'${id}'`);
        // the Gemini computer-use preview is named by its vendor's docs, not by the SDK's list
        if (!list.has(id) && !elsewhere && id !== 'gemini-2.5-computer-use-preview-10-2025')
          missing.push(id);
      }
    }
    expect(missing).toEqual([]);
  });

  it("has Anthropic's end-of-life dates (DEPRECATED_MODELS)", () => {
    const data = read('@anthropic-ai/sdk', 'internal/data/deprecated-models.js');
    const entries = [...data.matchAll(/'([a-z0-9-]+)': '([A-Za-z]+) (\d+)[a-z]*, (\d{4})'/g)];
    expect(entries.length).toBeGreaterThan(0);
    for (const [, id, month, date, year] of entries) {
      const iso = `${year}-${String(MONTHS.indexOf(month!) + 1).padStart(2, '0')}-${date!.padStart(2, '0')}`;
      expect(MODEL_RETIREMENTS.get(id!)?.date, id).toBe(iso);
    }
  });

  it("has OpenAI's announced shutdown dates", () => {
    const text = read('openai', 'resources/beta/responses/responses.d.ts');
    const start = text.indexOf('Deprecated values:');
    const block = text.slice(start, text.indexOf('*/', start)).replace(/\n\s*\*\s*/g, ' ');
    const items = block.split(/ - (?=")/).slice(1);
    let checked = 0;
    for (const item of items) {
      const date = /Announced shutdown date: (\d{4}-\d{2}-\d{2})/.exec(item)?.[1];
      if (!date) continue;
      for (const [, id] of item.matchAll(/"([^"]+)"/g)) {
        expect(MODEL_RETIREMENTS.get(id!)?.date, id).toBe(date);
        checked += 1;
      }
    }
    expect(checked).toBeGreaterThan(50);
  });
});
