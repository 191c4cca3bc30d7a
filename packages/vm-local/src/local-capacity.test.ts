import { describe, expect, it } from 'vitest';
import {
  availableMemoryMb,
  capacityWarning,
  DESKTOP_MEMORY_BUDGET_MB,
  localDesktopCapacity,
  warmSpareSetting,
} from './local-capacity';

describe('local desktop capacity', () => {
  it('suggests min(cores, memory slots), at least one', () => {
    expect(localDesktopCapacity({ cores: 2, availableMemoryMb: 20_000 }).suggested).toBe(2);
    expect(localDesktopCapacity({ cores: 16, availableMemoryMb: 5_000, warmSpare: false })).toEqual(
      {
        suggested: 4,
        cores: 16,
        availableMemoryMb: 5_000,
        memorySlots: 4,
        memoryPerEnvMb: DESKTOP_MEMORY_BUDGET_MB,
      },
    );
    expect(localDesktopCapacity({ cores: 8, availableMemoryMb: 300 }).suggested).toBe(1);
    expect(
      localDesktopCapacity({ cores: 4, availableMemoryMb: 4_000, budgetMb: 500 }).suggested,
    ).toBe(4);
  });

  it('counts the warm spare: two desktops per environment', () => {
    expect(warmSpareSetting(undefined, {})).toBe(true);
    expect(warmSpareSetting(undefined, { OSHARM_WARM_SPARE: '0' })).toBe(false);
    expect(warmSpareSetting(true, { OSHARM_WARM_SPARE: '0' })).toBe(true);
    expect(localDesktopCapacity({ cores: 16, availableMemoryMb: 5_000, warmSpare: true })).toEqual({
      suggested: 2,
      cores: 16,
      availableMemoryMb: 5_000,
      memorySlots: 2,
      memoryPerEnvMb: 2 * DESKTOP_MEMORY_BUDGET_MB,
    });
    expect(
      capacityWarning(
        3,
        localDesktopCapacity({ cores: 16, availableMemoryMb: 5_000, warmSpare: true }),
      ),
    ).toMatch(/holds 2 at 2048 MiB each \(a desktop and its warm spare\)/);
  });

  it('reads MemAvailable from /proc/meminfo text', () => {
    const meminfo =
      'MemTotal:       24576000 kB\nMemFree:         1000000 kB\nMemAvailable:   10485760 kB\n';
    expect(availableMemoryMb(meminfo)).toBe(10_240);
    // This machine: some positive figure.
    expect(availableMemoryMb()).toBeGreaterThan(0);
  });

  it('warns when the requested desktops exceed memory or two per core, naming the suggestion', () => {
    const capacity = localDesktopCapacity({
      cores: 2,
      availableMemoryMb: 3 * DESKTOP_MEMORY_BUDGET_MB + 10,
      warmSpare: false,
    });
    expect(capacityWarning(2, capacity)).toBeUndefined();
    expect(capacityWarning(4, capacity)).toMatch(
      /^4 local desktops exceed this machine \(.*holds 3 at 1024 MiB each\): .*--num-envs 2$/,
    );
    expect(
      capacityWarning(5, localDesktopCapacity({ cores: 2, availableMemoryMb: 50_000 })),
    ).toMatch(/2 core\(s\) run at most 4/);
  });
});
