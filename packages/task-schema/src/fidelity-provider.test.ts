import { describe, expect, it } from 'vitest';
import { fidelityRecord, type FidelityInput } from './fidelity';
import { providerIdSchema } from './fidelity-provider';
import { fidelityRecordSchema } from './fidelity-schema';
import { parseTaskConfig } from './task-config-schema';

// Providers by id: fidelity.json records any provider's id of the right shape; the verdict needs to
// know which desktop it ran, which the bundled ids say themselves and any other provider must.

const sudoTask = parseTaskConfig(
  {
    id: '_t',
    snapshot: 'x',
    instruction: 'do it',
    source: '',
    config: [{ type: 'execute', parameters: { command: 'sudo -S id', shell: true } }],
    related_apps: [],
    evaluator: { func: 'infeasible' },
  },
  { file: 't.json' },
).config!;
const input = (overrides: Partial<FidelityInput>): FidelityInput => ({
  task: sudoTask,
  domain: 'os',
  run: 'os/_t',
  provider: 'local',
  setup: { version: 1, warnings: [], downloads: [] },
  ...overrides,
});
/** The record minus its provider, to compare verdicts across ids. */
const verdict = (overrides: Partial<FidelityInput>) => {
  const { provider: _provider, ...rest } = fidelityRecord(input(overrides));
  return rest;
};

describe('providers by id in fidelity.json', () => {
  it('records written with each bundled provider (before ids) read back unchanged', () => {
    for (const provider of ['local', 'vmware', 'podman', 'docker', 'kubernetes']) {
      const record = fidelityRecord(input({ provider }));
      // through JSON, as a file written by an earlier version is read
      const read = fidelityRecordSchema.parse(JSON.parse(JSON.stringify(record)));
      expect(read).toEqual(record);
      expect(read.provider).toBe(provider);
    }
  });

  it("a third party's provider is recorded by its id, judged as the desktop it says it runs", () => {
    const record = fidelityRecord(input({ provider: 'acme-cloud.v2', desktop: 'image' }));
    expect(fidelityRecordSchema.parse(record).provider).toBe('acme-cloud.v2');
    expect(verdict({ provider: 'acme-cloud.v2', desktop: 'image' })).toEqual(
      verdict({ provider: 'podman' }),
    );
    expect(record.sudo.mode).toBe('unavailable');
    expect(verdict({ provider: 'acme-vm', desktop: 'upstream-vm' })).toEqual(
      verdict({ provider: 'vmware' }),
    );
    expect(verdict({ provider: 'acme-vm', desktop: 'upstream-vm' }).sudo.mode).toBe('vm');
    // `desktop` overrides a bundled id's own
    expect(verdict({ provider: 'local', desktop: 'image' }).sudo.mode).toBe('unavailable');
  });

  it('an id that is not bundled, without its desktop, is refused: no verdict on a guess', () => {
    expect(() => fidelityRecord(input({ provider: 'acme-cloud' }))).toThrow(
      /provider "acme-cloud" is not bundled: say which desktop it runs/,
    );
  });

  it('an id of the wrong shape is refused when written and when read', () => {
    const good = fidelityRecord(input({}));
    for (const bad of ['', 'Podman', 'my provider', '-x', 'x-', 'a..b', 'x'.repeat(65), '../x']) {
      expect(providerIdSchema.safeParse(bad).success).toBe(false);
      expect(() => fidelityRecord(input({ provider: bad, desktop: 'image' }))).toThrow(
        /^fidelity: provider ".*":/,
      );
      const read = fidelityRecordSchema.safeParse({ ...good, provider: bad });
      expect(read.success).toBe(false);
      expect(read.error?.issues[0]?.path).toEqual(['provider']);
    }
    for (const ok of ['local', 'k8s', 'acme-cloud.v2', 'x'.repeat(64)]) {
      expect(providerIdSchema.parse(ok)).toBe(ok);
    }
  });
});
