// Upstream's own PromptAgent as a test oracle: runs mm_agents/agent.py of an upstream checkout with
// python3 (parity/run_prompt_agent.py; modules that cannot be installed here are the stand-ins of
// parity/stubs) and returns the request bodies its GPT path would POST.
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import bpe from 'gpt-tokenizer/bpeRanks/cl100k_base';

/** packages/agent/parity/, found upward from this module (src/test or a dist chunk). */
function findParityDir(): string {
  for (let dir = dirname(fileURLToPath(import.meta.url)); dir !== dirname(dir); dir = dirname(dir))
    if (existsSync(join(dir, 'parity', 'run_prompt_agent.py'))) return `${join(dir, 'parity')}/`;
  throw new Error('packages/agent/parity/ not found');
}
const parityDir = findParityDir();

/** sha256 of tiktoken's published cl100k_base.tiktoken (tiktoken_ext/openai_public.py). */
export const TIKTOKEN_CL100K_SHA256 =
  '223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7';

/** A python3 with what upstream's agent and injection code import here (PIL, regex, docx). */
export function findParityPython(): string {
  for (const candidate of [process.env.OSHARM_PYTHON, 'python3', '/usr/bin/python3']) {
    if (!candidate) continue;
    const probe = spawnSync(candidate, ['-c', 'import PIL, regex, docx'], { stdio: 'ignore' });
    if (probe.status === 0) return candidate;
  }
  throw new Error(
    'no python3 with PIL, regex and docx (Debian: python3-pil python3-regex python3-docx, in scripts/debian-packages.txt); set OSHARM_PYTHON',
  );
}

/**
 * Writes tiktoken's rank file of cl100k_base (`<base64 token> <rank>` per line) from
 * gpt-tokenizer's table and returns its sha256 (equal to {@link TIKTOKEN_CL100K_SHA256} when the
 * table is tiktoken's).
 */
export function writeTiktokenRanks(path: string): string {
  const text = (bpe as (string | number[])[])
    .map(
      (token, rank) =>
        `${(typeof token === 'string' ? Buffer.from(token, 'utf8') : Buffer.from(token)).toString('base64')} ${rank}\n`,
    )
    .join('');
  writeFileSync(path, text);
  return createHash('sha256').update(text).digest('hex');
}

/** The environment upstream's Python runs in (stand-in modules first on PYTHONPATH). */
export function parityPythonEnv(
  ranks: string,
  extraPaths: readonly string[] = [],
): NodeJS.ProcessEnv {
  return {
    ...process.env,
    PYTHONPATH: [...extraPaths, `${parityDir}stubs`].join(':'),
    OSHARM_TIKTOKEN_RANKS: ranks,
    PYTHONIOENCODING: 'utf-8',
    // Upstream's files may be links into a shared oracle: never write bytecode next to them.
    PYTHONDONTWRITEBYTECODE: '1',
  };
}

/** One observation and the reply the model gives to it. */
export interface OracleStep {
  readonly screenshot: Buffer;
  readonly accessibilityTree: string;
  readonly response: string;
}

/** What upstream's PromptAgent is built with. */
export interface OracleAgentSpec {
  readonly model: string;
  readonly max_tokens: number;
  readonly top_p: number;
  readonly temperature: number;
  readonly action_space: string;
  readonly observation_type: string;
  readonly max_trajectory_length: number;
  readonly a11y_tree_max_tokens: number;
}

/** Upstream's request bodies for the steps, in order. */
export function upstreamAgentRequests(options: {
  readonly python: string;
  readonly checkout: string;
  readonly ranks: string;
  readonly agent: OracleAgentSpec;
  readonly instruction: string;
  readonly steps: readonly OracleStep[];
}): unknown[] {
  const input = JSON.stringify({
    ...options.agent,
    instruction: options.instruction,
    steps: options.steps.map(step => ({
      screenshot: step.screenshot.toString('base64'),
      accessibility_tree: step.accessibilityTree,
      response: step.response,
    })),
  });
  const out = execFileSync(options.python, [`${parityDir}run_prompt_agent.py`, options.checkout], {
    input,
    env: parityPythonEnv(options.ranks),
    maxBuffer: 1 << 30,
  });
  return JSON.parse(out.toString('utf8')) as unknown[];
}

/** Upstream's `jailbreak_instruction(instruction)` (mm_agents/prompts.py), run by Python. */
export function upstreamJailbreak(python: string, checkout: string, instruction: string): string {
  const out = execFileSync(
    python,
    [
      '-c',
      'import json, sys\nsys.path.insert(0, sys.argv[1])\nfrom mm_agents.prompts import jailbreak_instruction\nprint(json.dumps(jailbreak_instruction(sys.argv[2])))',
      checkout,
      instruction,
    ],
    { env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1', PYTHONIOENCODING: 'utf-8' } },
  );
  return JSON.parse(out.toString('utf8')) as string;
}
