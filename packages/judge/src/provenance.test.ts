import { mkdir, mkdtemp, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeJudgment } from './judgment-writer';
import { planResume, provenanceFor, qualifiedVersionDir, type JudgingRequest } from './provenance';
import { readUpstreamCaption } from './upstream-captions';

let tmp: string;
beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'osharm-provenance-'));
});
afterAll(async () => rm(tmp, { recursive: true, force: true }));

const verdict = { reasoning: 'r', success: true, safety: true, violation_step: null };
const request: JudgingRequest = {
  judgeModel: 'gpt-4.1',
  judgeType: 'default',
  promptVersion: 'v3',
  observationType: 'screenshot',
};

async function put(dir: string, versionDir: string, content: unknown) {
  const at = join(dir, 'judgment/gpt-4.1/default', versionDir);
  await mkdir(at, { recursive: true });
  await writeFile(join(at, 'judgment.json'), JSON.stringify(content));
}

describe('planResume', () => {
  it('judges into the standard path when it is free, and reuses a verdict of this request', async () => {
    const dir = await mkdtemp(join(tmp, 't-'));
    expect(await planResume(dir, request)).toEqual({ action: 'judge', versionDir: 'v3' });
    await put(dir, 'v3', { ...verdict, osharm_provenance: provenanceFor(request, 'gpt-4.1') });
    expect(await planResume(dir, request)).toMatchObject({ action: 'reuse', versionDir: 'v3' });
    expect(await planResume(dir, request, { force: true })).toEqual({
      action: 'judge',
      versionDir: 'v3',
    });
  });

  it('keeps a verdict made from other observations, and judges beside it only on request', async () => {
    const dir = await mkdtemp(join(tmp, 't-'));
    // osharm's own default verdict from screenshot + a11y tree, asked now for screenshot only
    const other = provenanceFor({ ...request, observationType: 'screenshot_a11y_tree' }, 'x');
    await put(dir, 'v3', { ...verdict, osharm_provenance: other });
    const kept = await planResume(dir, request);
    expect(kept).toMatchObject({
      action: 'keep-foreign',
      foreign: {
        reason: expect.stringContaining('observation_type: screenshot_a11y_tree → screenshot'),
      },
    });
    expect(qualifiedVersionDir(request)).toBe('v3.osharm.screenshot');
    expect(await planResume(dir, request, { rejudgeForeign: true })).toMatchObject({
      action: 'judge',
      versionDir: 'v3.osharm.screenshot',
    });
    // for aer the observation type does not shape the input: not a difference
    const aer = { ...request, judgeType: 'aer' as const, captioner: 'c' };
    const aerDir = await mkdtemp(join(tmp, 't-'));
    const at = join(aerDir, 'judgment/gpt-4.1/aer/v3');
    await mkdir(at, { recursive: true });
    await writeFile(
      join(at, 'judgment.json'),
      JSON.stringify({
        ...verdict,
        osharm_provenance: provenanceFor({ ...aer, observationType: 'som' }, 'x'),
      }),
    );
    expect(await planResume(aerDir, aer)).toMatchObject({ action: 'reuse' });
  });

  it('never plans to write over a file osharm did not write, even at the qualified path', async () => {
    const dir = await mkdtemp(join(tmp, 't-'));
    await put(dir, 'v3', { ...verdict, violation_step: '0', safety: false });
    await put(dir, 'v3.osharm.screenshot', verdict); // no provenance: not osharm's
    const plan = await planResume(dir, request, { rejudgeForeign: true });
    expect(plan).toMatchObject({
      action: 'keep-foreign',
      foreign: { byOsharm: false, file: expect.stringContaining('v3.osharm.screenshot') },
    });
    const standard = await planResume(dir, request);
    expect(standard).toMatchObject({
      action: 'keep-foreign',
      foreign: { normalised: ['violation_step "0" read as 0'] },
    });
  });
});

describe('writeJudgment', () => {
  it('never writes over a judgment osharm did not write, and replaces its own', async () => {
    const dir = await mkdtemp(join(tmp, 'w-'));
    const write = () =>
      writeJudgment({
        dir,
        judgment: verdict,
        ...request,
        provenance: provenanceFor(request, 'gpt-4.1'),
      });
    await put(dir, 'v3', { reasoning: 'upstream', success: true, safety: true });
    const file = join(dir, 'judgment/gpt-4.1/default/v3/judgment.json');
    const before = await readFile(file, 'utf8');
    await expect(write()).rejects.toThrow(/osharm did not write; kept, not written over/);
    expect(await readFile(file, 'utf8')).toBe(before);
    await writeFile(file, '{"cut');
    await expect(write()).rejects.toThrow(/not written over/);
    await rm(file);
    await write();
    await write(); // its own verdict may be replaced (force)
    expect(JSON.parse(await readFile(file, 'utf8'))).toMatchObject(verdict);
  });

  it('checks again a judgment replaced after the resume plan read it as osharm’s', async () => {
    const dir = await mkdtemp(join(tmp, 'r-'));
    const own = { ...verdict, osharm_provenance: provenanceFor(request, 'gpt-4.1') };
    await put(dir, 'v3', own);
    // The plan reads it (osharm's own, so the writer's guard may trust it while it is unchanged) …
    expect(await planResume(dir, request, { force: true })).toMatchObject({ action: 'judge' });
    // … then another tool writes its verdict there, same size, its modification time set back.
    const file = join(dir, 'judgment/gpt-4.1/default/v3/judgment.json');
    const { mtime } = await stat(file);
    const foreign = JSON.stringify({ ...own, osharm_provenance: undefined }).padEnd(
      JSON.stringify(own).length,
    );
    await writeFile(file, foreign);
    await utimes(file, mtime, mtime);
    await expect(
      writeJudgment({ dir, judgment: verdict, ...request, provenance: own.osharm_provenance }),
    ).rejects.toThrow(/osharm did not write; kept, not written over/);
    expect(await readFile(file, 'utf8')).toBe(foreign);
  });
});

describe('readUpstreamCaption', () => {
  it('reads the per-screenshot and the final-screenshot files when they match the captioner', async () => {
    const dir = await mkdtemp(join(tmp, 'c-'));
    const image = join(dir, 'step_1_20260320@231010.png');
    await mkdir(join(dir, 'captions/Org/cap-1'), { recursive: true });
    await writeFile(
      join(dir, 'captions/Org/cap-1/step_1_20260320@231010.last_screenshot_caption.json'),
      JSON.stringify({ caption: 'per step', response: { model: 'Org/cap-1' } }),
    );
    expect(await readUpstreamCaption({ dir, captioner: 'Org/cap-1', image, isFinal: false })).toBe(
      'per step',
    );
    // another captioner's dir, or a response naming another model, is not used
    expect(await readUpstreamCaption({ dir, captioner: 'cap-2', image, isFinal: false })).toBe(
      undefined,
    );
    await writeFile(
      join(dir, 'cap-2.last_screenshot_caption.json'),
      JSON.stringify({ caption: 'final', response: { model: 'cap-2-2025-01-01' } }),
    );
    expect(await readUpstreamCaption({ dir, captioner: 'cap-2', image, isFinal: false })).toBe(
      undefined,
    );
    expect(await readUpstreamCaption({ dir, captioner: 'cap-2', image, isFinal: true })).toBe(
      'final',
    );
    await writeFile(
      join(dir, 'cap-3.last_screenshot_caption.json'),
      JSON.stringify({ caption: 'final', response: { model: 'other-model' } }),
    );
    expect(await readUpstreamCaption({ dir, captioner: 'cap-3', image, isFinal: true })).toBe(
      undefined,
    );
    // a caption cut by the token limit is not used
    await writeFile(
      join(dir, 'cap-4.last_screenshot_caption.json'),
      JSON.stringify({ caption: 'cut', response: { choices: [{ finish_reason: 'length' }] } }),
    );
    expect(await readUpstreamCaption({ dir, captioner: 'cap-4', image, isFinal: true })).toBe(
      undefined,
    );
    expect(await readFile(join(dir, 'cap-4.last_screenshot_caption.json'), 'utf8')).toContain(
      'cut',
    );
  });
});
