// Parity with upstream's own PromptAgent: the same observations go through upstream's Python
// (mm_agents/agent.py of ../shared/osharm-upstream, run with python3; modules it imports that
// cannot be installed here are the stand-ins of parity/stubs) and through osharm's PromptAgent with
// `loadUpstreamAgentPrompts`, whose requests reach the loopback model stand-in over real HTTP. The
// first two requests of every observation type must be the same JSON, byte for byte (but for the
// `som` tagged screenshot's PNG bytes, named below).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startModelStandIn, type ModelStandIn } from '@osharm/model-stand-in';
import type { ActionSpace, ObservationType } from '@osharm/task-schema';
import { openUpstream } from '@osharm/upstream';
import { createTestCheckout, type TestCheckout } from '@osharm/upstream/test';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { desktopXml } from './__fixtures__/desktop-xml';
import { createOpenAIChatModel } from '@osharm/models';
import { TRIM_MARKER } from './a11y-trim';
import { createPromptAgent } from './prompt-agent';
import {
  findParityPython,
  TIKTOKEN_CL100K_SHA256,
  upstreamAgentRequests,
  writeTiktokenRanks,
  type OracleStep,
} from './test/upstream-oracle';
import { loadUpstreamAgentPrompts } from './upstream-prompts';

type Step = OracleStep;

/** A screenshot with distinct regions, so Set-of-Marks keeps boxes that are not one colour. */
async function screenshot(seed: number): Promise<Buffer> {
  const width = 1920;
  const height = 1080;
  const data = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y += 1)
    for (let x = 0; x < width; x += 1) {
      const offset = (y * width + x) * 3;
      data[offset] = (x * 7 + seed * 31) & 0xff;
      data[offset + 1] = (y * 5 + seed * 17) & 0xff;
      data[offset + 2] = ((x ^ y) + seed) & 0xff;
    }
  return sharp(data, { raw: { width, height, channels: 3 } })
    .png()
    .toBuffer();
}

/** Texts that make the tokenizer work: non-Latin scripts, emoji, quotes, digits, long runs. */
function stressedXml(rows: number, seed: number): string {
  const extras = [
    'Größe €12,345.67 — “quoted” «text»',
    '日本語のテキスト、中文文本和한국어',
    'emoji 🚀🔥👩‍💻 and مرحبا بالعالم',
    `path /home/user/Documents/report_${seed}.pdf   tabs\tand "double quotes"`,
    '1234567890'.repeat(3),
  ];
  let xml = desktopXml(rows);
  let index = 0;
  xml = xml.replace(/name="([^"]*)"/g, (_match, name: string) => {
    index += 1;
    const extra = extras[(index + seed) % extras.length]!.replace(/"/g, '&quot;');
    return index % 3 === 0 ? `name="${name} ${extra}"` : `name="${name}"`;
  });
  return xml;
}

let python: string;
let checkout: TestCheckout;
let work: string;
let ranks: string;
let standIn: ModelStandIn;
const replies: string[] = [];

beforeAll(async () => {
  python = findParityPython();
  checkout = createTestCheckout();
  work = mkdtempSync(join(tmpdir(), 'osharm-agent-parity-'));
  ranks = join(work, 'cl100k_base.tiktoken');
  // The ranks are tiktoken's own, byte for byte (the sha256 of its published file).
  expect(writeTiktokenRanks(ranks)).toBe(TIKTOKEN_CL100K_SHA256);
  standIn = await startModelStandIn({ respond: () => ({ text: replies.shift() ?? '' }) });
}, 120_000);

afterAll(async () => {
  await standIn?.close();
  checkout?.remove();
  if (work) rmSync(work, { recursive: true, force: true });
});

interface Case {
  readonly observationType: ObservationType;
  readonly actionSpace: ActionSpace;
  readonly a11yTreeMaxTokens: number;
  readonly rows: number;
}

const SETTINGS = { model: 'gpt-4o', max_tokens: 1500, top_p: 0.9, temperature: 1.0 } as const;

/** Upstream's request bodies for the steps (its GPT path's `requests.post(json=…)`). */
function upstreamRequests(spec: Case, instruction: string, steps: readonly Step[]): unknown[] {
  return upstreamAgentRequests({
    python,
    checkout: checkout.dir,
    ranks,
    agent: {
      ...SETTINGS,
      action_space: spec.actionSpace,
      observation_type: spec.observationType,
      max_trajectory_length: 3,
      a11y_tree_max_tokens: spec.a11yTreeMaxTokens,
    },
    instruction,
    steps,
  });
}

/** osharm's request bodies for the same steps, as the stand-in received them. */
async function osharmRequests(spec: Case, instruction: string, steps: readonly Step[]) {
  const agent = createPromptAgent({
    model: createOpenAIChatModel('gpt-4o', { baseURL: standIn.openaiBaseUrl, apiKey: 'parity' }),
    prompts: loadUpstreamAgentPrompts(openUpstream(checkout.dir)).prompts,
    observationType: spec.observationType,
    actionSpace: spec.actionSpace,
    a11yTreeMaxTokens: spec.a11yTreeMaxTokens,
    maxTokens: SETTINGS.max_tokens,
    topP: SETTINGS.top_p,
    temperature: SETTINGS.temperature,
  });
  const first = standIn.calls.length;
  for (const step of steps) {
    replies.push(step.response);
    await agent.predict({
      instruction,
      observation: { screenshot: step.screenshot, accessibilityTree: step.accessibilityTree },
    });
  }
  return standIn.calls.slice(first).map(call => call.body);
}

type Part = { type: string; text?: string; image_url?: { url: string; detail?: string } };
type Body = { model: string; messages: { role: string; content: string | Part[] }[] };

/**
 * The request as JSON text. For `som` the tagged screenshot's bytes are left out (named
 * difference: osharm draws the marks with sharp and its own digit glyphs, upstream with PIL and its
 * default font, so the PNG bytes differ; the boxes kept, their numbering and the table — the text
 * parts — are compared); every other byte of the body is compared.
 */
function wire(body: Body, dropImages: boolean): string {
  if (!dropImages) return JSON.stringify(body);
  return JSON.stringify({
    ...body,
    messages: body.messages.map(message => ({
      ...message,
      content:
        typeof message.content === 'string'
          ? message.content
          : message.content.map(part =>
              part.type === 'image_url'
                ? { ...part, image_url: { ...part.image_url!, url: 'data:image/png;base64,…' } }
                : part,
            ),
    })),
  });
}

const CASES: readonly Case[] = [
  { observationType: 'screenshot', actionSpace: 'pyautogui', a11yTreeMaxTokens: 10_000, rows: 40 },
  {
    observationType: 'screenshot',
    actionSpace: 'computer_13',
    a11yTreeMaxTokens: 10_000,
    rows: 40,
  },
  { observationType: 'a11y_tree', actionSpace: 'pyautogui', a11yTreeMaxTokens: 10_000, rows: 900 },
  { observationType: 'a11y_tree', actionSpace: 'computer_13', a11yTreeMaxTokens: 700, rows: 200 },
  {
    observationType: 'screenshot_a11y_tree',
    actionSpace: 'pyautogui',
    a11yTreeMaxTokens: 10_000,
    rows: 900,
  },
  {
    observationType: 'screenshot_a11y_tree',
    actionSpace: 'computer_13',
    a11yTreeMaxTokens: 1_000,
    rows: 200,
  },
  { observationType: 'som', actionSpace: 'pyautogui', a11yTreeMaxTokens: 10_000, rows: 200 },
  { observationType: 'som', actionSpace: 'pyautogui', a11yTreeMaxTokens: 500, rows: 200 },
];

describe("upstream's PromptAgent and osharm's with upstream's texts send the same requests", () => {
  for (const spec of CASES) {
    it(
      `${spec.observationType} × ${spec.actionSpace}, a11y budget ${spec.a11yTreeMaxTokens}`,
      { timeout: 240_000 },
      async () => {
        const instruction =
          'Open the file “report.pdf” in ~/Documents and summarise it in 3 bullet points.';
        const code =
          spec.actionSpace === 'pyautogui'
            ? 'I will click the menu first.\n```python\npyautogui.click(100, 200)\n```'
            : 'Clicking.\n```json\n{"action_type": "CLICK", "x": 100, "y": 200}\n```';
        const steps: Step[] = [
          {
            screenshot: await screenshot(1),
            accessibilityTree: stressedXml(spec.rows, 1),
            response: `  ${code}\n\n`,
          },
          {
            screenshot: await screenshot(2),
            accessibilityTree: stressedXml(spec.rows, 2),
            response: code,
          },
        ];
        const expected = upstreamRequests(spec, instruction, steps) as Body[];
        const actual = (await osharmRequests(spec, instruction, steps)) as unknown as Body[];
        expect(actual).toHaveLength(2);
        expect(expected).toHaveLength(2);
        const som = spec.observationType === 'som';
        for (const [index, request] of actual.entries())
          expect(wire(request, som), `request ${index + 1}`).toBe(wire(expected[index]!, som));
        // The budget cut the table where the case asks for it (the comparison covered a trim).
        const last = expected[1]!.messages.at(-1)!.content;
        const lastText = typeof last === 'string' ? last : (last[0]!.text ?? '');
        if (spec.a11yTreeMaxTokens < 10_000) expect(lastText).toContain(TRIM_MARKER);
      },
    );
  }
});
