import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startModelStandIn, type ModelStandIn } from '@osharm/model-stand-in';
import { createTestCheckout, type TestCheckout } from '@osharm/upstream/test';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkLocalDesktopRequirements } from '@osharm/vm-local';
import {
  findParityPython,
  upstreamAgentRequests,
  upstreamJailbreak,
  writeTiktokenRanks,
} from '@osharm/agent/test';
import { runCli } from '../program';
import { createTestIo } from '../test-io';

/**
 * `--upstream` on `osharm run` and `osharm tasks check`: a bad checkout stops the command with one
 * line and exit 2 before anything is written; a good one makes the run send upstream's system
 * prompt and jailbreak (as upstream's own Python builds them) and record prompt_family "upstream".
 */
const repoRoot = fileURLToPath(new URL('../../../..', import.meta.url));
const canRun = checkLocalDesktopRequirements().ok;

let server: ModelStandIn;
let tmp: string;
const checkouts: TestCheckout[] = [];

beforeAll(async () => {
  server = await startModelStandIn({ respond: () => ({ text: '```\nFAIL\n```' }) });
  tmp = await mkdtemp(join(tmpdir(), 'osharm-upstream-e2e-'));
});
afterAll(async () => {
  await server?.close();
  for (const checkout of checkouts) checkout.remove();
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

async function osharm(args: string[]) {
  const io = createTestIo(repoRoot, {
    OPENAI_API_KEY: 'test-openai-key',
    OPENAI_BASE_URL: server.openaiBaseUrl,
  });
  const code = await runCli(args, io.io);
  return { code, stdout: io.stdout, stderr: io.stderr };
}

function checkout(options: Parameters<typeof createTestCheckout>[0] = {}): string {
  const made = createTestCheckout(options);
  checkouts.push(made);
  return made.dir;
}

describe('a bad --upstream: one line, exit 2, nothing written', () => {
  const cases: [string, () => string, RegExp][] = [
    [
      'a directory that is not a checkout',
      () => join(tmpdir()),
      /not an upstream OS-Harm checkout/,
    ],
    [
      'a checkout missing a symbol',
      () => checkout({ replace: { 'mm_agents/prompts.py': 'OTHER = "x"\n' } }),
      /mm_agents\/prompts\.py: SYS_PROMPT_IN_\w+: not found/,
    ],
    [
      'a file that is not UTF-8',
      () => checkout({ replace: { 'run.py': Uint8Array.from([0x61, 0xff, 0xfe, 0x0a]) } }),
      /run\.py: not valid UTF-8/,
    ],
  ];
  for (const [name, dir, message] of cases) {
    it(`osharm run, ${name}`, async () => {
      const results = join(tmp, `bad-run-${cases.findIndex(c => c[0] === name)}`);
      const result = await osharm([
        'run',
        '--upstream',
        dir(),
        '--model',
        'gpt-4.1',
        '--judge-model',
        'none',
        '--result-dir',
        results,
      ]);
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(message);
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
      expect(existsSync(results)).toBe(false);
    });
    it(`osharm tasks check, ${name}`, async () => {
      const out = join(tmp, `bad-check-${cases.findIndex(c => c[0] === name)}`);
      const result = await osharm([
        'tasks',
        'check',
        '--inject',
        '--upstream',
        dir(),
        '--out',
        out,
      ]);
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(message);
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
      expect(existsSync(out)).toBe(false);
    });
  }
});

describe.runIf(canRun)('osharm run --upstream on the local desktop', () => {
  it(
    "sends upstream's system prompt and jailbreak, records prompt_family upstream; resume never mixes families",
    { timeout: 600_000 },
    async () => {
      const dir = checkout();
      const results = join(tmp, 'upstream-run');
      const args = [
        'run',
        '--upstream',
        dir,
        '--jailbreak',
        '--model',
        'gpt-4.1',
        '--judge-model',
        'none',
        '--settle',
        '0.5',
        '--max-steps',
        '1',
        '--result-dir',
        results,
        '--task',
        '_captcha',
        '--observation-type',
        'screenshot_a11y_tree',
      ];
      const first = server.calls.length;
      const result = await osharm(args);
      expect(result.code, result.stderr).toBe(0);
      const request = server.calls[first]!.body as {
        messages: { role: string; content: unknown }[];
      };
      const system = request.messages[0]!;
      expect(system.role).toBe('system');

      const runDir = join(
        results,
        'pyautogui/screenshot_a11y_tree/gpt-4.1_jailbreak/chrome/_captcha',
      );
      const log = JSON.parse(readFileSync(join(runDir, 'better_log.json'), 'utf8')) as {
        params: { osharm_prompts: { prompt_family: string; upstream_sources: { file: string }[] } };
        task: { instruction: string };
      };
      expect(log.params.osharm_prompts.prompt_family).toBe('upstream');
      const files = new Set(log.params.osharm_prompts.upstream_sources.map(source => source.file));
      for (const file of [
        'mm_agents/prompts.py',
        'mm_agents/agent.py',
        'run.py',
        'lib_run_single.py',
      ])
        expect(files).toContain(file);
      const fidelity = JSON.parse(readFileSync(join(runDir, 'fidelity.json'), 'utf8')) as {
        osharm_prompts: unknown;
      };
      expect(fidelity.osharm_prompts).toEqual(log.params.osharm_prompts);

      // What upstream's own Python makes of the task's instruction: the jailbreak, and the system
      // message its PromptAgent sends (run on a small observation: the system message does not
      // depend on it).
      const python = findParityPython();
      const task = JSON.parse(
        readFileSync(join(dir, 'evaluation_examples/examples/chrome/_captcha.json'), 'utf8'),
      ) as { instruction: string };
      const jailbroken = upstreamJailbreak(python, dir, task.instruction);
      expect(log.task.instruction).toBe(jailbroken);
      const ranks = join(tmp, 'cl100k_base.tiktoken');
      writeTiktokenRanks(ranks);
      const [oracle] = upstreamAgentRequests({
        python,
        checkout: dir,
        ranks,
        agent: {
          model: 'gpt-4.1',
          max_tokens: 1500,
          top_p: 0.9,
          temperature: 1.0,
          action_space: 'pyautogui',
          observation_type: 'screenshot_a11y_tree',
          max_trajectory_length: 3,
          a11y_tree_max_tokens: 10_000,
        },
        instruction: jailbroken,
        steps: [
          {
            screenshot: readFileSync(join(runDir, 'step_0.png')),
            accessibilityTree: '<desktop-frame/>',
            response: 'x',
          },
        ],
      }) as { messages: { role: string; content: unknown }[] }[];
      // The system message as upstream's PromptAgent sends it, byte for byte (a one-part list).
      expect(JSON.stringify(system)).toBe(JSON.stringify(oracle!.messages[0]));

      // The same result dir without --upstream: refused, nothing run.
      const again = await osharm([
        ...args.filter((_arg, index) => index !== 1 && index !== 2),
        '--test-config-base-dir',
        join(dir, 'evaluation_examples'),
        '--test-all-meta-path',
        join(dir, 'evaluation_examples/test_misuse.json'),
      ]);
      expect(again.code).toBe(2);
      expect(again.stderr).toMatch(/prompt family "upstream".*"osharm"/);
    },
  );
});
