// Does the native agent's downscale really run off the path on a real desktop? On the local
// sandboxed desktop (1920×1080, a terminal open), per vendor, observations alternate between
// plain `observe()` and `observe({ prepareScreenshot })` with the native agent's hook (what
// `runTask` does for a native agent): the difference of their medians is what the prepare adds to
// an observation, printed beside the prepare's own time and how often it was the last part of the
// observation to finish (then its tail was on the path; else the walk hid it). Then the
// same with the walk off (`requireA11yTree: false`), the case where nothing hides the prepare.
//
//   pnpm --filter @osharm/runner bench:native-observe     (needs the local desktop's Debian packages)
//
// A measurement, not a test: exits 0 either way.
import { mkdtempSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createNativeAgent } from '@osharm/agent/native';
import { createDesktopEnv, type DesktopEnv } from '@osharm/desktop-env';
import { createLocalProvider } from '@osharm/vm-local';

const ROUNDS = 20;
const task = {
  id: 'native_observe_bench',
  snapshot: 'os',
  instruction: 'Look at the screen.',
  evaluator: { func: 'infeasible' },
};

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
};
const ms = (value: number) => `${value.toFixed(1)} ms`;

async function measure(env: DesktopEnv, model: string) {
  const agent = createNativeAgent({ model });
  agent.reset();
  const plain: number[] = [];
  const hooked: number[] = [];
  const prepare: number[] = [];
  let prepared = 0;
  /** Observations the prepare finished last (so its tail was on the path), within 1 ms. */
  let last = 0;
  for (let round = 0; round < ROUNDS; round += 1) {
    let started = performance.now();
    await env.observe();
    plain.push(performance.now() - started);
    started = performance.now();
    let preparedAt = 0;
    const observation = await env.observe({
      prepareScreenshot: async png => {
        const begun = performance.now();
        const result = await agent.prepareScreenshot(png);
        preparedAt = performance.now();
        prepare.push(preparedAt - begun);
        return result;
      },
    });
    const ended = performance.now();
    hooked.push(ended - started);
    if (ended - preparedAt < 1) last += 1;
    if (observation.preparedScreenshot !== undefined) prepared += 1;
  }
  return {
    plain: median(plain),
    hooked: median(hooked),
    prepare: median(prepare),
    prepared,
    last,
  };
}

async function run(requireA11yTree: boolean) {
  const env = createDesktopEnv({
    provider: createLocalProvider(),
    cacheRoot: mkdtempSync(join(tmpdir(), 'osharm-observe-bench-')),
    requireA11yTree,
  });
  try {
    await env.reset({ task });
    await env.step('pyautogui.hotkey("ctrl", "alt", "t")', { pauseSeconds: 3 });
    console.log(
      requireA11yTree
        ? 'with the accessibility walk (as osharm run observes):'
        : 'without the walk (requireA11yTree: false):',
    );
    for (const model of [
      'claude-opus-5',
      'gpt-5.5',
      'gemini-2.5-computer-use-preview-10-2025',
    ] as const) {
      const result = await measure(env, model);
      console.log(
        `  ${model.padEnd(40)} observe ${ms(result.plain)} → with the prepare ${ms(result.hooked)} ` +
          `(adds ${ms(result.hooked - result.plain)}); the prepare alone ${ms(result.prepare)}; ` +
          `prepared ${result.prepared}/${ROUNDS}, the prepare finished last in ${result.last}/${ROUNDS}`,
      );
    }
  } finally {
    await env.close();
  }
}

console.log(
  `native screenshot prepare vs observation, local desktop 1920×1080, medians of ${ROUNDS}; load average ${loadavg()
    .map(value => value.toFixed(1))
    .join(' ')} on ${cpus().length} cores\n`,
);
await run(true);
await run(false);
