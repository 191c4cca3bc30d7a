import { escapeControlChars } from '@osharm/task-schema/artifacts';

/**
 * Summary lines for trajectories whose judgment path holds a verdict of another provenance (kept,
 * not judged, not counted): how many, the first few with why, and how to judge them beside it.
 */
export function foreignLines(
  foreign: Readonly<Record<string, string>>,
  show: (path: string) => string,
): string[] {
  const entries = Object.entries(foreign);
  if (entries.length === 0) return [];
  const lines = [
    '',
    `Kept, not judged (${entries.length}): the judgment path holds a verdict of another provenance; not counted above. --rejudge-foreign judges them into a sibling dir, keeping these files:`,
  ];
  for (const [dir, reason] of entries.slice(0, 20))
    lines.push(`  ${show(dir)}: ${escapeControlChars(reason)}`);
  if (entries.length > 20)
    lines.push(`  … and ${entries.length - 20} more (see "foreign" in the results file)`);
  return lines;
}
