// Benchmark of the native computer-use harness's own work per action at 1920×1080:
//
//   pnpm --filter @osharm/agent bench:native     (builds dist first; imports @osharm/agent/native)
//
// Two figures per vendor (Anthropic, OpenAI, Gemini), 30 turns each, printed as median / p90:
// - response in → guest action out: the vendor's calls of a turn (3 actions) mapped to the
//   pyautogui code strings the env sends, per action;
// - screenshot in → next request out: `predict` from the PNG of the screen until the loopback
//   stand-in has received the vendor request — downscaling with sharp, base64, the SDK building and
//   sending the body (an upper bound: it includes the loopback transfer and the stand-in's JSON parse).
//   Also the process's CPU time over that span (all threads, sharp's included): on a loaded machine
//   wall time mostly measures waiting for a core, CPU time what the harness itself costs.
// Target: median ≤ 30 ms each. Exits 0 either way (a measurement, not a test).
import { cpus, loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import sharp from 'sharp';
import { startModelStandIn, type ModelCall, type ScriptedReply } from '@osharm/model-stand-in';
import {
  ANTHROPIC_IMAGE_LIMITS,
  GEMINI_IMAGE_LIMITS,
  OPENAI_IMAGE_LIMITS,
  createNativeAgent,
  mapAnthropicToolUse,
  mapGeminiCall,
  mapOpenaiComputerCall,
  scalingFor,
  screenshotForModel,
} from '@osharm/agent/native';

const TURNS = 30;
const TARGET_MS = 30;
const screen = { width: 1920, height: 1080 };

/** A 1920×1080 desktop-like PNG: bars, a text window and a noisy photo-like area. */
async function desktopPng(): Promise<Buffer> {
  const lines = Array.from(
    { length: 22 },
    (_, row) =>
      `<text x="240" y="${230 + row * 32}" font-size="20" fill="#222">line ${row}: ls -la /home/user/Documents | grep report-${row}</text>`,
  ).join('');
  const svg =
    `<svg width="1920" height="1080" xmlns="http://www.w3.org/2000/svg">` +
    `<rect width="1920" height="32" fill="#222"/><rect y="32" width="70" height="1048" fill="#2b2b2b"/>` +
    `<rect x="200" y="150" width="1100" height="800" fill="#fafafa" stroke="#888"/>${lines}</svg>`;
  const noise = Buffer.alloc(500 * 360 * 3);
  let seed = 7;
  for (let offset = 0; offset < noise.length; offset += 1) {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    noise[offset] = 90 + ((seed >> 16) % 60);
  }
  return sharp({ create: { ...screen, channels: 3, background: { r: 60, g: 80, b: 140 } } })
    .composite([
      { input: Buffer.from(svg) },
      { input: noise, raw: { width: 500, height: 360, channels: 3 }, left: 1380, top: 620 },
    ])
    .png()
    .toBuffer();
}

const stats = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
  return { median: at(0.5), p90: at(0.9) };
};
const fmt = (ms: number) => `${ms.toFixed(2)} ms`;

const batches = {
  anthropic: [
    { name: 'left_click', input: { coordinate: [715, 402] }, toolset_name: 'computer' },
    { name: 'type', input: { text: 'echo osharm-native-$((6*7))\n' }, toolset_name: 'computer' },
    { name: 'key', input: { text: 'ctrl+s' }, toolset_name: 'computer' },
  ],
  openai: [
    {
      actions: [
        { type: 'click', button: 'left', x: 682, y: 384 },
        { type: 'type', text: 'echo osharm-native-$((6*7))\n' },
        { type: 'keypress', keys: ['CTRL', 'S'] },
      ],
    },
  ],
  gemini: [
    { name: 'click_at', args: { x: 500, y: 500 } },
    { name: 'type_text', args: { text: 'echo osharm-native-$((6*7))\n' } },
    { name: 'key_combination', args: { keys: 'Control+S' } },
  ],
};

async function main() {
  const png = await desktopPng();
  console.log(
    `native harness overhead per action, 1920×1080, ${TURNS} turns per vendor (target median ≤ ${TARGET_MS} ms); load average ${loadavg()
      .map(value => value.toFixed(1))
      .join(' ')} on ${cpus().length} cores\n`,
  );
  let requestOutAt = 0;
  let requestOutCpu = process.cpuUsage();
  const server = await startModelStandIn({
    respond: (call: ModelCall): ScriptedReply => {
      requestOutAt = performance.now();
      requestOutCpu = process.cpuUsage();
      if (call.vendor === 'anthropic') return { calls: batches.anthropic };
      if (call.vendor === 'gemini') return { calls: batches.gemini };
      return { calls: batches.openai };
    },
  });
  try {
    for (const [vendor, model, limits, normalized] of [
      ['anthropic', 'claude-opus-5', ANTHROPIC_IMAGE_LIMITS, false],
      ['openai', 'gpt-5.5', OPENAI_IMAGE_LIMITS, false],
      ['gemini', 'gemini-2.5-computer-use-preview-10-2025', GEMINI_IMAGE_LIMITS, true],
    ] as const) {
      // response in → guest action out (mapping), per action
      const scaling = scalingFor(screen, limits, normalized);
      const mapping: number[] = [];
      for (let turn = 0; turn < TURNS; turn += 1) {
        const started = performance.now();
        const mapped =
          vendor === 'anthropic'
            ? batches.anthropic.map(block => mapAnthropicToolUse(block, scaling))
            : vendor === 'openai'
              ? batches.openai.flatMap(call => mapOpenaiComputerCall(call, scaling))
              : batches.gemini.map(call => mapGeminiCall(call, scaling));
        mapping.push((performance.now() - started) / mapped.length);
      }
      // screenshot in → next request out, through the real SDK to the loopback stand-in
      const agent = createNativeAgent({
        model,
        safetyChecks: 'acknowledge',
        session: {
          apiKey: 'bench',
          baseURL:
            vendor === 'openai'
              ? server.openaiBaseUrl
              : vendor === 'gemini'
                ? server.geminiBaseUrl
                : server.anthropicBaseUrl,
          maxRetries: 0,
        },
      });
      // Without the hook (an env that does not run prepareScreenshot): downscale on the path.
      const turnsOf = async (prepare: boolean) => {
        const requestOut: number[] = [];
        const requestCpu: number[] = [];
        const prepareMs: number[] = [];
        agent.reset();
        for (let turn = 0; turn < TURNS; turn += 1) {
          if (turn % 10 === 0) agent.reset(); // keep the history (and request size) realistic
          let preparedScreenshot: unknown;
          if (prepare) {
            // what the env runs while it waits for the accessibility walk
            const started = performance.now();
            preparedScreenshot = await agent.prepareScreenshot(png);
            prepareMs.push(performance.now() - started);
          }
          const started = performance.now();
          const cpuBefore = process.cpuUsage();
          await agent.predict({
            instruction: 'List the files.',
            observation: { screenshot: png, ...(prepare && { preparedScreenshot }) },
            ...(turn % 10 !== 0 && {
              previousActions: [{ status: 'done' }, { status: 'done' }, { status: 'done' }],
            }),
          });
          requestOut.push(requestOutAt - started);
          requestCpu.push(
            (requestOutCpu.user - cpuBefore.user + requestOutCpu.system - cpuBefore.system) / 1000,
          );
        }
        return { out: stats(requestOut), cpu: stats(requestCpu), prepare: stats(prepareMs) };
      };
      const before = await turnsOf(false);
      const after = await turnsOf(true);
      const downscale: number[] = [];
      for (let turn = 0; turn < TURNS; turn += 1) {
        const started = performance.now();
        (await screenshotForModel(png, scaling)).bytes.toString('base64');
        downscale.push(performance.now() - started);
      }
      const map = stats(mapping);
      const shrink = stats(downscale);
      const ok = (value: number) => (value <= TARGET_MS ? 'ok' : 'OVER');
      console.log(
        `${vendor.padEnd(9)} response → action: median ${fmt(map.median)} p90 ${fmt(map.p90)} [${ok(map.median)}]   (image ${scaling.image.width}×${scaling.image.height})\n` +
          `          screenshot → request out, prepared while observing: median ${fmt(after.out.median)} p90 ${fmt(after.out.p90)} [${ok(after.out.median)}] cpu median ${fmt(after.cpu.median)}` +
          `  (the prepare, overlapping the accessibility walk: median ${fmt(after.prepare.median)})\n` +
          `          screenshot → request out, not prepared (before): median ${fmt(before.out.median)} p90 ${fmt(before.out.p90)} [${ok(before.out.median)}] cpu median ${fmt(before.cpu.median)}` +
          `  (of which downscale + base64: median ${fmt(shrink.median)})`,
      );
    }
  } finally {
    await server.close();
  }
}

await main();
