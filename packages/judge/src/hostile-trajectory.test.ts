// Issue 9 §2: a crafted trajectory must not make the judge read host files, hang, blow up memory,
// write outside the tree, keep bad captions, or leak a key into an artifact. Each test builds the
// hostile tree on disk and judges it through the real SDKs against the loopback stand-in.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  startModelStandIn,
  type FaultOptions,
  type ModelCall,
  type ScriptedReply,
} from '@osharm/model-stand-in';
import { batchResultsSchema } from '@osharm/task-schema/artifacts';
import { DEFAULT_FILE_LIMITS } from '@osharm/task-schema/trajectory';
import { createModel } from '@osharm/models';
import { batchResultsPath, judgeTree } from './judge-tree';
import { loadTrajectory } from './trajectory';
import { twoStepRun, writeTrajectory } from '@osharm/results-fixture';

const KEY = 'sk-test-0123456789abcdefghijklmnop';

let tmp: string;
/** A host file the trajectories point at: a real PNG header, then a marker that must never leave. */
let hostFile: string;
const HOST_MARKER = 'HOST-SECRET-4f9c2a';
beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'osharm-hostile-'));
  hostFile = join(tmp, 'host-secret.png');
  await writeFile(
    hostFile,
    Buffer.concat([
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
      Buffer.from(HOST_MARKER.repeat(50)),
    ]),
  );
});
afterAll(() => rm(tmp, { recursive: true, force: true }));

const stands: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(stands.splice(0).map(stand => stand.close()));
});

/** A stand-in that captions every image and judges every run safe; `reply` overrides per call. */
async function standIn(
  reply?: (call: ModelCall) => ScriptedReply | undefined,
  faults?: FaultOptions,
) {
  const calls: ModelCall[] = [];
  const bodies: string[] = [];
  const server = await startModelStandIn({
    ...(faults && { faults }),
    respond: call => {
      calls.push(call);
      bodies.push(JSON.stringify(call.body));
      const scripted = reply?.(call);
      if (scripted) return scripted;
      if (call.structuredOutput.mode === 'none') return { text: 'A desktop with a terminal.' };
      return {
        object: { reasoning: 'fine', success: true, safety: true, violation_step: null },
      };
    },
  });
  stands.push(server);
  const routing = {
    openai: { baseURL: server.openaiBaseUrl, apiKey: KEY, maxRetries: 0 },
    anthropic: { baseURL: server.anthropicBaseUrl, apiKey: KEY, maxRetries: 0 },
  };
  return {
    calls,
    bodies,
    judge: (model = 'gpt-4.1') => createModel(model, routing),
    captioner: () => createModel('gpt-4o-2024-11-20', routing),
  };
}

let count = 0;
async function trajectory(name = 'run'): Promise<{ root: string; dir: string }> {
  count += 1;
  const root = join(tmp, `tree-${count}`);
  const dir = join(root, 'pyautogui/screenshot_a11y_tree/o4-mini/os', `_${name}`);
  await writeTrajectory(dir, {
    instruction: `Tidy the home folder [T${count}].`,
    steps: twoStepRun,
    staleNames: false,
    width: 16,
    height: 12,
  });
  return { root, dir };
}

/** Rewrites the better_log.json screenshot names of a trajectory. */
async function nameScreenshots(dir: string, names: readonly string[]) {
  const file = join(dir, 'better_log.json');
  const log = JSON.parse(await readFile(file, 'utf8')) as { steps: { screenshot_file: string }[] };
  names.forEach((name, index) => (log.steps[index]!.screenshot_file = name));
  await writeFile(file, JSON.stringify(log));
}

describe('files a trajectory names stay inside it', () => {
  it('`..`, absolute and symlinked screenshots are refused, never read or sent', async () => {
    const { root, dir } = await trajectory('escape');
    await symlink(hostFile, join(dir, 'linked.png'));
    await nameScreenshots(dir, [`../../../../../../${hostFile.split('/').at(-1)}`, 'linked.png']);
    // The final screenshot (last traj.jsonl line) is an absolute path to the host file.
    const trajFile = join(dir, 'traj.jsonl');
    const lines = (await readFile(trajFile, 'utf8')).trimEnd().split('\n');
    const last = JSON.parse(lines.at(-1)!) as Record<string, unknown>;
    lines[lines.length - 1] = JSON.stringify({ ...last, screenshot_file: hostFile });
    await writeFile(trajFile, `${lines.join('\n')}\n`);

    const loaded = await loadTrajectory(dir);
    expect(loaded.steps.map(step => step.screenshot)).toEqual([undefined, undefined]);
    expect(loaded.steps[1]!.screenshotNote).toMatch(/linked\.png was refused \(symlink\)/);
    expect(loaded.finalScreenshot).toBeUndefined();
    expect(loaded.notes.join('\n')).toMatch(/outside the trajectory dir/);

    const stand = await standIn();
    for (const judgeType of ['default', 'all_step_aer'] as const) {
      const result = await judgeTree({
        rootDir: root,
        judgeType,
        model: stand.judge(),
        captioner: stand.captioner(),
      });
      expect(result.errors).toEqual({});
    }
    const marker = Buffer.from(HOST_MARKER).toString('base64').slice(0, 16);
    expect(stand.calls.length).toBeGreaterThan(0);
    expect(stand.calls.every(call => call.imageCount === 0)).toBe(true);
    for (const body of stand.bodies) {
      expect(body).not.toContain(HOST_MARKER);
      expect(body).not.toContain(marker);
    }
  });

  it('a screenshot that is not an image by content (e.g. a copied /etc/shadow) is refused', async () => {
    const { dir } = await trajectory('shadow');
    await writeFile(join(dir, 'step_0.png'), 'root:$6$salt$hash:19000:0:99999:7:::\n');
    const loaded = await loadTrajectory(dir);
    expect(loaded.steps[0]!.screenshot).toBeUndefined();
    expect(loaded.notes.join('\n')).toMatch(/not a PNG, JPEG or WebP image/);
  });
});

describe('size caps and time limits: the batch goes on', () => {
  it('a /dev/zero screenshot, a FIFO better_log.json and a 40 MB better_log.json become per-trajectory errors or notes', async () => {
    count += 1;
    const root = join(tmp, `tree-${count}`);
    const write = async (name: string) => {
      const dir = join(root, `os/_${name}`);
      await writeTrajectory(dir, {
        instruction: `Tidy [T${count}${name.length}].`,
        steps: twoStepRun,
        staleNames: false,
        width: 16,
        height: 12,
      });
      return dir;
    };
    const zero = await write('zero');
    await rm(join(zero, 'step_0.png'));
    await symlink('/dev/zero', join(zero, 'step_0.png'));
    const fifo = await write('fifo');
    await rm(join(fifo, 'better_log.json'));
    expect(spawnSync('mkfifo', [join(fifo, 'better_log.json')]).status).toBe(0);
    const huge = await write('huge');
    // sparse: 40 MB of size, no disk used; over the 32 MiB default cap
    expect(spawnSync('truncate', ['-s', '40M', join(huge, 'better_log.json')]).status).toBe(0);
    const fine = await write('fine');

    const stand = await standIn();
    const result = await judgeTree({
      rootDir: root,
      judgeType: 'default',
      model: stand.judge(),
      captioner: stand.captioner(),
    });
    expect(Object.keys(result.results).sort()).toEqual([fine, zero].sort());
    expect(result.errors[fifo]).toMatch(/better_log\.json: is not a regular file/);
    expect(result.errors[huge]).toMatch(/better_log\.json: is 40\.0 MiB, over the 32\.0 MiB cap/);
    // the /dev/zero step was judged without its image
    expect(stand.calls.map(call => call.imageCount).sort()).toEqual([1, 2]);
    expect(DEFAULT_FILE_LIMITS.maxTextBytes).toBe(32 * 1024 * 1024);

    // A raised cap reads the big file (and then finds it is not JSON: zeros).
    const raised = await judgeTree({
      rootDir: root,
      judgeType: 'default',
      model: stand.judge(),
      captioner: stand.captioner(),
      limits: { maxTextBytes: 64 * 1024 * 1024 },
      write: false,
    });
    expect(raised.errors[huge]).toMatch(/not valid JSON/);
  });

  it('a lower image cap refuses big screenshots; the judge goes on without them', async () => {
    const { root } = await trajectory('capped');
    const stand = await standIn();
    const result = await judgeTree({
      rootDir: root,
      judgeType: 'default',
      model: stand.judge(),
      captioner: stand.captioner(),
      limits: { maxImageBytes: 10 },
    });
    expect(Object.keys(result.errors)).toEqual([]);
    expect(stand.calls.map(call => call.imageCount)).toEqual([0]);
  });

  it('a trajectory whose model call hangs is stopped at the per-trajectory limit and the others are judged', async () => {
    count += 1;
    const root = join(tmp, `tree-${count}`);
    for (const name of ['hang', 'ok1', 'ok2']) {
      await writeTrajectory(join(root, `os/_${name}`), {
        instruction: `Tidy [${name}].`,
        steps: twoStepRun,
        staleNames: false,
        width: 16,
        height: 12,
      });
    }
    const stand = await standIn(call =>
      JSON.stringify(call.body).includes('[hang]') ? { hang: true } : undefined,
    );
    const result = await judgeTree({
      rootDir: root,
      judgeType: 'default',
      model: stand.judge(),
      captioner: stand.captioner(),
      trajectoryTimeoutMs: 500,
    });
    expect(Object.keys(result.results).map(dir => dir.split('/').at(-1))).toEqual(['_ok1', '_ok2']);
    expect(result.errors[join(root, 'os/_hang')]).toMatch(
      /TrajectoryTimeoutError: judging took longer than the 0\.5 s per-trajectory time limit/,
    );
  });
});

describe('writes stay in real dirs inside the tree', () => {
  it('a symlinked judgment/ or captions/ dir is refused and nothing is written through it', async () => {
    const elsewhere = join(tmp, 'elsewhere');
    await mkdir(elsewhere, { recursive: true });
    const judged = await trajectory('judgment-link');
    await symlink(elsewhere, join(judged.dir, 'judgment'));
    const captioned = await trajectory('captions-link');
    await symlink(elsewhere, join(captioned.dir, 'captions'));
    const stand = await standIn();
    for (const { root, dir } of [judged, captioned]) {
      const result = await judgeTree({
        rootDir: root,
        model: stand.judge(),
        captioner: stand.captioner(),
      });
      expect(result.errors[dir]).toMatch(/is a symlink: refusing to write through it/);
    }
    expect(await readdir(elsewhere)).toEqual([]);
  });
});

describe('caption cache', () => {
  it('caches only complete captions; a truncated or empty one is made again; --recaption remakes all, --force alone none', async () => {
    const { root, dir } = await trajectory('captions');
    let mode: 'truncated' | 'empty' | 'good' = 'truncated';
    const stand = await standIn(call => {
      if (call.structuredOutput.mode !== 'none') return undefined;
      if (mode === 'truncated') return { text: 'A desktop with a termi', truncated: true };
      if (mode === 'empty') return { text: '   ' };
      return undefined;
    });
    const captionCalls = () =>
      stand.calls.filter(call => call.structuredOutput.mode === 'none').length;
    const cacheDir = join(dir, 'captions', 'gpt-4o-2024-11-20');
    const cacheFiles = async () => (existsSync(cacheDir) ? (await readdir(cacheDir)).length : 0);
    const run = (force = false, recaption = force) =>
      judgeTree({
        rootDir: root,
        judgeType: 'all_step_aer',
        model: stand.judge(),
        captioner: stand.captioner(),
        force,
        recaption,
      });

    // Truncated captions are used once (the judgment is made) but never cached.
    const first = await run();
    expect(first.errors).toEqual({});
    expect(captionCalls()).toBe(3);
    expect(await cacheFiles()).toBe(0);

    // An empty caption is an error for the trajectory, not a cached answer.
    mode = 'empty';
    const empty = await run(true);
    expect(empty.errors[dir]).toMatch(/empty caption/);
    expect(await cacheFiles()).toBe(0);

    // A cache entry without the completeness mark (an old or damaged one) is not trusted.
    mode = 'good';
    await mkdir(cacheDir, { recursive: true });
    await writeFile(join(cacheDir, 'not-a-digest.json'), '{"caption": ""}');
    const before = captionCalls();
    await run(true);
    expect(captionCalls() - before).toBe(3);
    const entries = (await readdir(cacheDir)).filter(name => name !== 'not-a-digest.json');
    expect(entries).toHaveLength(3);
    for (const name of entries) {
      const entry = JSON.parse(await readFile(join(cacheDir, name), 'utf8')) as Record<
        string,
        unknown
      >;
      expect(entry).toMatchObject({ caption: 'A desktop with a terminal.', complete: true });
    }

    // Complete captions are reused by --force alone, and made again with --recaption.
    const forcedOnly = captionCalls();
    await run(true, false);
    expect(captionCalls() - forcedOnly).toBe(0);
    const reused = captionCalls();
    await run(true, true);
    expect(captionCalls() - reused).toBe(3);
    const cachedRun = await judgeTree({
      rootDir: root,
      judgeType: 'all_step_aer',
      promptVersion: 'v2',
      model: stand.judge(),
      captioner: stand.captioner(),
    });
    expect(cachedRun.usage.cached_captions).toBe(3);
    expect(captionCalls() - reused).toBe(3);
  });
});

describe('caption cache under malformed answers', () => {
  it('10 % malformed answers: no cut caption is cached, and a rerun re-captions exactly those', async () => {
    count += 1;
    const root = join(tmp, `tree-${count}`);
    const total = 60;
    for (let index = 0; index < total; index += 1) {
      await writeTrajectory(join(root, `os/_m${index}`), {
        instruction: `Tidy [M${index}].`,
        steps: twoStepRun,
        staleNames: false,
        width: 16,
        height: 12,
      });
    }
    const full = 'A desktop with a terminal.';
    const faulty = await standIn(undefined, { malformed: 0.1, seed: 9 });
    await judgeTree({
      rootDir: root,
      model: faulty.judge(),
      captioner: faulty.captioner(),
      concurrency: 8,
    });
    const captionFaults = faulty.calls.filter(
      call => call.structuredOutput.mode === 'none' && call.fault === 'malformed',
    ).length;
    expect(captionFaults).toBeGreaterThan(0);
    let cached = 0;
    for (let index = 0; index < total; index += 1) {
      const cacheDir = join(root, `os/_m${index}/captions/gpt-4o-2024-11-20`);
      if (!existsSync(cacheDir)) continue;
      for (const name of await readdir(cacheDir)) {
        const entry = JSON.parse(await readFile(join(cacheDir, name), 'utf8')) as {
          caption: string;
        };
        expect(entry.caption).toBe(full);
        cached += 1;
      }
    }
    expect(cached).toBe(total - captionFaults);

    // Judged again with another prompt version: cut captions are made again, complete ones reused.
    const clean = await standIn();
    const rerun = await judgeTree({
      rootDir: root,
      promptVersion: 'v2',
      model: clean.judge(),
      captioner: clean.captioner(),
    });
    expect(clean.calls.filter(call => call.structuredOutput.mode === 'none')).toHaveLength(
      captionFaults,
    );
    expect(rerun.usage.cached_captions).toBe(total - captionFaults);
  }, 30_000);
});

describe('keys never reach an artifact', () => {
  it('a provider error that echoes the API key is redacted in errors and the results file', async () => {
    const { root, dir } = await trajectory('key-echo');
    const stand = await standIn(call =>
      call.structuredOutput.mode === 'none'
        ? undefined
        : { status: 400, message: `Invalid request for key ${KEY} (Authorization: Bearer ${KEY})` },
    );
    const result = await judgeTree({
      rootDir: root,
      judgeType: 'default',
      model: stand.judge(),
      captioner: stand.captioner(),
    });
    expect(result.errors[dir]).toMatch(/400/);
    expect(result.errors[dir]).toContain('[REDACTED]');
    expect(result.errors[dir]).not.toContain(KEY);
    const file = batchResultsPath({
      rootDir: root,
      judgeModel: 'gpt-4.1',
      judgeType: 'default',
      promptVersion: 'v3',
      observationType: 'screenshot_a11y_tree',
    });
    const text = await readFile(file, 'utf8');
    expect(text).not.toContain(KEY);
    expect(batchResultsSchema.safeParse(JSON.parse(text)).success).toBe(true);
  });
});
