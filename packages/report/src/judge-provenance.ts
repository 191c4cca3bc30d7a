import { createHash } from 'node:crypto';
import { judgeTypeUsesObservationType } from '@osharm/task-schema';
import type { JudgmentProvenance } from '@osharm/task-schema/artifacts';
import type { JudgmentRecord, TrajectoryRecord } from './results-tree';

/** The observation type shapes the input of the per-step judges only (task-schema's table). */
const usesObservationType = judgeTypeUsesObservationType;

/**
 * A short label for what made a verdict: `other tool` for a judgment.json osharm did not write
 * (upstream's, or hand-made), else `osharm` with the settings its path does not say (observation
 * type for per-step judges, captioner for caption judges).
 */
export function provenanceLabel(provenance: JudgmentProvenance | undefined): string {
  if (!provenance) return 'other tool';
  const parts = [
    provenance.prompt_family === 'osharm'
      ? 'osharm'
      : provenance.prompt_family === 'upstream'
        ? `osharm, upstream prompts ${sourcesDigest(provenance.upstream_sources)}`
        : `osharm, ${provenance.prompt_family} prompt wording`,
  ];
  if (usesObservationType(provenance.judge_type)) parts.push(provenance.observation_type);
  if (provenance.captioner !== null) parts.push(`captions ${provenance.captioner}`);
  return parts.join(', ');
}

/**
 * 8 hex digits naming the checkout files upstream texts came from: verdicts made from two
 * different checkouts (a changed file) get different labels, so no rate pools them.
 */
function sourcesDigest(sources: JudgmentProvenance['upstream_sources']): string {
  const files = [...new Set((sources ?? []).map(source => `${source.file}@${source.sha256}`))];
  return `@${createHash('sha256').update(files.sort().join('\n')).digest('hex').slice(0, 8)}`;
}

/** Whose prompts a verdict was made with, in words: for headlines. */
export function promptFamilyText(provenance: JudgmentProvenance | undefined): string {
  if (!provenance) return 'not recorded (another tool wrote the verdicts)';
  if (provenance.prompt_family === 'osharm') return "osharm's own wording";
  if (provenance.prompt_family === 'upstream')
    return "upstream's own, read from an upstream checkout";
  return provenance.prompt_family;
}

/**
 * Keeps verdicts of different provenance apart: when the judgments under one path key
 * (`{model}/{type}/{version}`) across the tree were made differently (another tool's beside
 * osharm's, or osharm's with another observation type or captioner), each gets the key
 * `{path key} ({label})`, so no rate pools them. A path key whose verdicts share one provenance
 * keeps its plain key.
 */
export function separateProvenance(trajectories: readonly TrajectoryRecord[]): TrajectoryRecord[] {
  const labels = new Map<string, Set<string>>();
  for (const trajectory of trajectories)
    for (const record of trajectory.judgments) {
      if (!record.judgment) continue;
      const set = labels.get(record.key) ?? new Set<string>();
      set.add(record.provenanceLabel);
      labels.set(record.key, set);
    }
  const mixed = new Set([...labels].filter(([, set]) => set.size > 1).map(([key]) => key));
  if (mixed.size === 0) return [...trajectories];
  const split = (record: JudgmentRecord): JudgmentRecord =>
    mixed.has(record.key) && record.judgment
      ? { ...record, key: `${record.key} (${record.provenanceLabel})` }
      : record;
  return trajectories.map(trajectory => ({
    ...trajectory,
    judgments: trajectory.judgments.map(split),
  }));
}
