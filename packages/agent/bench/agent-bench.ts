// Benchmark of the agent's own work per step: observation in → model request body out.
//
//   pnpm --filter @osharm/agent bench        (builds dist first; the bench imports @osharm/agent)
//
// A prompt agent (screenshot_a11y_tree + pyautogui, OS-Harm's settings: history 3, 10,000-token
// budget) runs 30 steps on a 1920×1080 desktop screenshot and an accessibility XML whose table is
// about 10,000 cl100k tokens. Its model is a stub that builds the OpenAI request body exactly as the
// real adapter does (JSON bytes of system + history + current turn, 4 screenshots as base64) and
// answers at once, so the time measured is the agent's overhead and no model's. Target: median
// ≤ 30 ms per step. Also prints a breakdown and, for information, the same for `som` (tagging:
// decode, draw, PNG encode). Exits 0 either way (a measurement, not a test).
import { performance } from 'node:perf_hooks';
import sharp from 'sharp';
import {
  countTokens,
  createPromptAgent,
  linearizeAccessibilityTree,
  parseAccessibilityTree,
  trimToTokens,
} from '@osharm/agent';
import {
  createOpenAIChatModel,
  JsonBodyWriter,
  type ModelCallOptions,
  type ModelResult,
  type ModelV1,
} from '@osharm/models';
import { desktopXml } from '../src/__fixtures__/desktop-xml.ts';

const STEPS = 30;
const TARGET_MS = 30;

/** A 1920×1080 desktop: top bar, dock, a window with text, and a photo-like noisy area. */
async function desktopPng(): Promise<Buffer> {
  const width = 1920;
  const height = 1080;
  const lines = Array.from(
    { length: 22 },
    (_, row) =>
      `<text x="240" y="${230 + row * 32}" font-size="20" fill="#222">line ${row}: ls -la /home/user/Documents | grep report-${row} &amp;&amp; echo done-${row * 7}</text>`,
  ).join('');
  const svg =
    `<svg width="${width}" height="${height}" xmlns="http://www.w3.org/2000/svg">` +
    `<rect x="0" y="0" width="${width}" height="32" fill="#222"/>` +
    `<rect x="0" y="32" width="70" height="${height - 32}" fill="#2b2b2b"/>` +
    Array.from(
      { length: 9 },
      (_, icon) =>
        `<rect x="11" y="${50 + icon * 70}" width="48" height="48" rx="8" fill="hsl(${icon * 40},60%,55%)"/>`,
    ).join('') +
    `<rect x="200" y="150" width="1100" height="800" fill="#fafafa" stroke="#888"/>` +
    `<rect x="200" y="150" width="1100" height="44" fill="#ddd"/>` +
    `<text x="230" y="180" font-size="20">Terminal — user@ubuntu: ~</text>${lines}</svg>`;
  // A wallpaper-like area of noise: real screenshots have photos and gradients.
  const noise = Buffer.alloc(500 * 360 * 3);
  let seed = 7;
  for (let offset = 0; offset < noise.length; offset += 1) {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    noise[offset] = 90 + ((seed >> 16) % 60);
  }
  return sharp({ create: { width, height, channels: 3, background: { r: 60, g: 80, b: 140 } } })
    .composite([
      { input: Buffer.from(svg) },
      { input: noise, raw: { width: 500, height: 360, channels: 3 }, left: 1380, top: 620 },
    ])
    .png()
    .toBuffer();
}

/** A model stub that builds and serializes the OpenAI request body, then answers at once. */
function stubModel(): ModelV1 & { bodyBytes: number[] } {
  const openai = createOpenAIChatModel('gpt-4o', { apiKey: 'bench' });
  const bodyBytes: number[] = [];
  let call = 0;
  return {
    specificationVersion: 'model-v1',
    provider: 'bench',
    modelId: 'gpt-4o',
    bodyBytes,
    buildRequestBody: (options, imageText) => openai.buildRequestBody(options, imageText),
    parseResponseBody: (body, options) => openai.parseResponseBody(body, options),
    async generate(options: ModelCallOptions): Promise<ModelResult> {
      // The bytes the adapter sends (images spliced in without a JSON scan).
      const writer = new JsonBodyWriter();
      const body = writer.serialize(
        openai.buildRequestBody(options, (prefix, base64) => writer.blob(prefix, base64)),
      );
      bodyBytes.push(body.length);
      call += 1;
      const text = `Step ${call}: clicking the next row.\n\`\`\`python\npyautogui.click(${100 + call}, 200)\ntime.sleep(0.5)\n\`\`\``;
      const usage = { inputTokens: 0, outputTokens: 0, modelId: 'gpt-4o' };
      return {
        text,
        toolCalls: [],
        finishReason: 'stop',
        truncated: false,
        usage,
        modelId: 'gpt-4o',
        raw: null,
      };
    },
  };
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};
const ms = (value: number) => `${value.toFixed(1)} ms`;

async function runSteps(
  observationType: 'screenshot_a11y_tree' | 'som',
  screenshot: Buffer,
  xml: string,
) {
  const model = stubModel();
  const agent = createPromptAgent({ model, observationType });
  const times: number[] = [];
  for (let step = 0; step < STEPS; step += 1) {
    const started = performance.now();
    await agent.predict({
      instruction: 'Archive every report older than a year.',
      observation: { screenshot, accessibilityTree: xml },
    });
    times.push(performance.now() - started);
  }
  return { times, bodyBytes: model.bodyBytes };
}

const screenshot = await desktopPng();
// Size the tree so that its table is about 10,000 tokens.
let rows = 1400;
let xml = desktopXml(rows);
let tableTokens = countTokens(linearizeAccessibilityTree(xml));
rows = Math.round((rows * 10_000) / tableTokens);
// Flat, as JSON.parse gives the server's answer (a concatenated string would be slower to scan).
xml = Buffer.from(desktopXml(rows)).toString('utf8');
const table = linearizeAccessibilityTree(xml);
tableTokens = countTokens(table);

// Warm up (JIT, tokenizer ranks, sharp) outside the measurement.
await runSteps('screenshot_a11y_tree', screenshot, xml);
const main = await runSteps('screenshot_a11y_tree', screenshot, xml);

// Breakdown of the steady state, each part alone.
const part = (task: () => void) => {
  const samples: number[] = [];
  for (let run = 0; run < STEPS; run += 1) {
    const started = performance.now();
    task();
    samples.push(performance.now() - started);
  }
  return median(samples);
};
const parsed = parseAccessibilityTree(xml);
const parseMs = part(() => parseAccessibilityTree(xml));
const linearizeMs = part(() => linearizeAccessibilityTree(parsed));
const trimMs = part(() => trimToTokens(table, 10_000));
const base64Ms = part(() => screenshot.toString('base64'));

const steady = main.times.slice(3); // from step 4 on the history is full (4 screenshots per body)
const result = median(main.times);
const som = await runSteps('som', screenshot, xml);

console.log('agent overhead per step (observation in → request body out), model time excluded');
console.log(`  screenshot: 1920×1080 PNG, ${(screenshot.length / 1024).toFixed(0)} KiB`);
console.log(
  `  a11y XML: ${(xml.length / 1024).toFixed(0)} KiB, ${parsed.nodes.length} elements, table ${table.split('\n').length - 1} rows = ${tableTokens} cl100k tokens`,
);
console.log(
  `  request body (full history): ${(median(main.bodyBytes.slice(3)) / 1024 / 1024).toFixed(2)} MiB`,
);
console.log(
  `  screenshot_a11y_tree × pyautogui, ${STEPS} steps: median ${ms(result)} (steps 4+: ${ms(median(steady))}, min ${ms(Math.min(...main.times))}, max ${ms(Math.max(...main.times))})`,
);
console.log(
  `    parse XML ${ms(parseMs)}, linearize ${ms(linearizeMs)}, trim to 10,000 tokens ${ms(trimMs)}, screenshot → base64 ${ms(base64Ms)}`,
);
console.log(
  `  som × pyautogui (info, no target): median ${ms(median(som.times))} (tagging decodes, draws and re-encodes the PNG)`,
);
console.log(
  `${result <= TARGET_MS ? 'PASS' : 'FAIL'}: median ${ms(result)} per step (target ≤ ${TARGET_MS} ms)`,
);
