// Issue 9 §2 through the command: crafted dir names cannot drive the terminal, a key a provider
// echoes never reaches the terminal or the results file, and the size / time flags bound a batch.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startModelStandIn, type ModelStandIn, type ScriptedReply } from '@osharm/model-stand-in';
import { writeTrajectory } from '@osharm/results-fixture';
import type { BatchJudgeIo } from '@osharm/judge-cli';
import { runBatchJudge } from '@osharm/judge-cli';

const KEY = 'sk-proj-echoed0123456789abcdefghij';
const ESC = '\x1b';

let server: ModelStandIn;
let tmp: string;
/** Instruction tag → scripted answer for judge calls of that trajectory. */
const scripted = new Map<string, ScriptedReply>();

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'osharm-batch-hostile-'));
  server = await startModelStandIn({
    respond: (call): ScriptedReply => {
      if (call.structuredOutput.mode === 'none') return { text: 'A desktop.' };
      const text = JSON.stringify(call.messages) + (call.system ?? '');
      for (const [tag, reply] of scripted) if (text.includes(tag)) return reply;
      return { object: { reasoning: 'ok', success: true, safety: true, violation_step: null } };
    },
  });
});
afterAll(async () => {
  await server?.close();
  rmSync(tmp, { recursive: true, force: true });
});

async function judge(args: string[], overrides: Partial<BatchJudgeIo> = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runBatchJudge(args, {
    stdout: text => void out.push(text),
    stderr: text => void err.push(text),
    cwd: tmp,
    isTTY: false,
    env: {
      OPENAI_BASE_URL: server.openaiBaseUrl,
      OPENAI_API_KEY: KEY,
      ANTHROPIC_BASE_URL: server.anthropicBaseUrl,
      ANTHROPIC_API_KEY: KEY,
    },
    ...overrides,
  });
  return { code, stdout: out.join(''), stderr: err.join('') };
}

let count = 0;
const freshRoot = () => {
  count += 1;
  return join(tmp, `tree-${count}`);
};

describe('control characters in what the batch judge prints', () => {
  const evil = `_x${ESC}[2J${ESC}[H${ESC}]0;pwned\x07\r[9/9] ok safe=true forged\nline`;

  it('a dir name with escape sequences, CR and LF is printed escaped (line progress and summary)', async () => {
    const root = freshRoot();
    await writeTrajectory(join(root, 'os', evil), { instruction: 'Evil name [evil-a].' });
    // a reason echoing terminal codes (e.g. a provider's error body)
    scripted.set('[evil-a]', { status: 400, message: `bad ${ESC}[31mred${ESC}[0m request` });
    const result = await judge([root, '--concurrency', '1']);
    expect(result.code).toBe(1);
    const printed = result.stdout + result.stderr;
    expect(printed).not.toContain(ESC);
    expect(printed).not.toContain('\r');
    expect(printed).not.toContain('\x07');
    expect(printed).toContain(
      '_x\\u001b[2J\\u001b[H\\u001b]0;pwned\\u0007\\u000d[9/9] ok safe=true forged\\u000aline',
    );
    expect(printed).toContain('bad \\u001b[31mred\\u001b[0m request');
    // no line of output starts with the forged progress text
    expect(printed.split('\n').some(line => line.startsWith('[9/9]'))).toBe(false);
  });

  it('with a progress bar, only the bar draws: the name cannot clear the screen', async () => {
    const root = freshRoot();
    await writeTrajectory(join(root, 'os', evil), { instruction: 'Evil name [evil-b].' });
    scripted.set('[evil-b]', { status: 400, message: 'refused' });
    const result = await judge([root], { stderrIsTTY: true, columns: 120 });
    expect(result.code).toBe(1);
    expect(result.stdout).not.toContain(ESC);
    for (const sequence of [`${ESC}[2J`, `${ESC}[H`, `${ESC}]0;`, '\x07'])
      expect(result.stderr).not.toContain(sequence);
    expect(result.stderr).toContain('\\u001b[2J');
  });
});

describe('newlines in dir names', () => {
  it('a domain dir with a newline cannot add a line to the breakdown table', async () => {
    const root = freshRoot();
    await writeTrajectory(
      join(root, 'pyautogui/screenshot_a11y_tree/o4-mini', 'dom\nFORGED row', '_x'),
      { instruction: 'Newline domain [nl].' },
    );
    const result = await judge([root]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('dom\\u000aFORGED row');
    expect(result.stdout.split('\n').some(line => line.startsWith('FORGED'))).toBe(false);
  });
});

describe('keys in errors', () => {
  it('a provider error echoing the key is redacted on the terminal and in the results file', async () => {
    const root = freshRoot();
    await writeTrajectory(join(root, 'os/_echo'), { instruction: 'Echo [echo-key].' });
    scripted.set('[echo-key]', {
      status: 400,
      message: `Invalid request. Your key: ${KEY}; header Authorization: Bearer ${KEY}`,
    });
    const result = await judge([root]);
    expect(result.code).toBe(1);
    expect(result.stdout + result.stderr).not.toContain(KEY);
    expect(result.stdout).toContain('[REDACTED]');
    const file = readFileSync(join(root, 'batch_judgment_results_gpt-4.1_aer_v3.json'), 'utf8');
    expect(file).not.toContain(KEY);
    const errors = (JSON.parse(file) as { errors: Record<string, string> }).errors;
    expect(Object.values(errors)[0]).toMatch(/400 .*Your key: \[REDACTED\]/);
  });
});

describe('size and time flags', () => {
  it('--max-log-mb refuses a larger better_log.json for that trajectory only', async () => {
    const root = freshRoot();
    await writeTrajectory(join(root, 'os/_small'), { instruction: 'Small [size-small].' });
    await writeTrajectory(join(root, 'os/_big'), { instruction: 'Big [size-big].' });
    const log = join(root, 'os/_big/better_log.json');
    const parsed = JSON.parse(readFileSync(log, 'utf8')) as { steps: { response: string }[] };
    parsed.steps[0]!.response += 'x'.repeat(200_000);
    writeFileSync(log, JSON.stringify(parsed));
    const result = await judge([root, '--max-log-mb', '0.125']);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(
      /os\/_big: .*better_log\.json: is 19\d\.\d KiB, over the 128\.0 KiB cap/,
    );
    expect(result.stdout).toContain('Successfully processed: 1');
    const again = await judge([root, '--max-log-mb', '1']);
    expect(again.code).toBe(0);
  });

  it('--trajectory-timeout stops a hanging trajectory and judges the rest', async () => {
    const root = freshRoot();
    await writeTrajectory(join(root, 'os/_hangs'), { instruction: 'Hang [time-hang].' });
    await writeTrajectory(join(root, 'os/_fine'), { instruction: 'Fine [time-fine].' });
    scripted.set('[time-hang]', { hang: true });
    const result = await judge([root, '--trajectory-timeout', '0.5']);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(
      /os\/_hangs: TrajectoryTimeoutError: judging took longer than the 0\.5 s/,
    );
    expect(result.stdout).toContain('Successfully processed: 1');
  });

  it('rejects bad values (exit 2) and documents the defaults in --help', async () => {
    const root = freshRoot();
    await writeTrajectory(join(root, 'os/_a'), { instruction: 'A.' });
    for (const args of [
      ['--max-log-mb', '0'],
      ['--max-image-mb', 'lots'],
      ['--trajectory-timeout', '-1'],
    ]) {
      expect((await judge([root, ...args])).code).toBe(2);
    }
    const help = await judge(['--help']);
    expect(help.stdout).toMatch(/--max-image-mb <MiB>[\s\S]*\(default: 32\)/);
    expect(help.stdout).toMatch(/--max-log-mb <MiB>[\s\S]*\(default: 32\)/);
    expect(help.stdout).toMatch(/--trajectory-timeout <seconds>[\s\S]*\(default: 900\)/);
  });
});
