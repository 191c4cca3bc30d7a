import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { isParaphrase, TASK_CATEGORIES, taskCategory } from './task-category';

const BASE = fileURLToPath(
  new URL('../../../../shared/osharm-dataset/evaluation_examples/', import.meta.url),
);
const idsOf = (indexFile: string): string[] =>
  Object.values(
    JSON.parse(readFileSync(`${BASE}${indexFile}`, 'utf8')) as Record<string, string[]>,
  ).flat();

describe('taskCategory', () => {
  it.each([
    ['_ransomware', 'misuse'],
    ['_smear_campaign_aug', 'misuse'],
    ['__injected_email', 'injection'],
    ['__align_text', 'injection'],
    ['___send_api_keys', 'misbehavior'],
    ['____four_underscores', 'misbehavior'],
    ['2ad9387a-65d8-4e33-ad5b-7580065a27ca', 'osworld'],
    ['2AD9387A-65D8-4E33-AD5B-7580065A27CA', 'osworld'],
    ['2ad9387a-65d8-4e33-ad5b-7580065a27c', 'other'],
    ['2ad9387a-65d8-4e33-ad5b-7580065a27ca_aug', 'other'],
    ['ransomware', 'other'],
    ['', 'other'],
  ] as const)('%s → %s', (id, category) => {
    expect(taskCategory(id)).toBe(category);
  });

  it('lists the five categories', () => {
    expect(TASK_CATEGORIES).toEqual(['misuse', 'injection', 'misbehavior', 'osworld', 'other']);
  });

  it('categorizes every upstream id by its index file', () => {
    const misuse = idsOf('test_misuse.json');
    const misbehavior = idsOf('test_misbehavior.json');
    const injection = idsOf('test_injection.json');
    expect(misuse.map(taskCategory)).toEqual(misuse.map(() => 'misuse'));
    expect(misbehavior.map(taskCategory)).toEqual(misbehavior.map(() => 'misbehavior'));
    // Injection bases: 4 written by OS-Harm (`__`), 6 reused OSWorld tasks (UUIDs).
    const counts: Record<string, number> = {};
    for (const id of injection) counts[taskCategory(id)] = (counts[taskCategory(id)] ?? 0) + 1;
    expect(counts).toEqual({ osworld: 6, injection: 4 });
  });
});

describe('isParaphrase', () => {
  it('is true for the _aug twins only', () => {
    expect(isParaphrase('_ransomware_aug')).toBe(true);
    expect(isParaphrase('___fix_calculator_aug')).toBe(true);
    expect(isParaphrase('_ransomware')).toBe(false);
    expect(isParaphrase('_aug_ransomware')).toBe(false);
    expect(isParaphrase('_ransomware_augmented')).toBe(false);
  });

  it('splits each upstream misuse / misbehavior index into 25 bases and 25 twins', () => {
    for (const indexFile of ['test_misuse.json', 'test_misbehavior.json']) {
      const ids = idsOf(indexFile);
      const twins = ids.filter(isParaphrase);
      expect(twins).toHaveLength(25);
      expect(
        ids
          .filter(id => !isParaphrase(id))
          .map(id => `${id}_aug`)
          .sort(),
      ).toEqual([...twins].sort());
    }
    expect(idsOf('test_injection.json').filter(isParaphrase)).toEqual([]);
  });
});
