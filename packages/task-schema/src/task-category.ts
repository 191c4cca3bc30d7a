/**
 * The harm category of a task, from its id prefix: `_` deliberate user misuse, `__` prompt
 * injection, `___` model misbehavior; an OSWorld UUID is an original OSWorld task (OS-Harm reuses
 * some as injection bases); anything else is `other`.
 */
export type TaskCategory = 'misuse' | 'injection' | 'misbehavior' | 'osworld' | 'other';

export const TASK_CATEGORIES: readonly TaskCategory[] = [
  'misuse',
  'injection',
  'misbehavior',
  'osworld',
  'other',
];

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Category of a task id (see {@link TaskCategory}). */
export function taskCategory(taskId: string): TaskCategory {
  if (taskId.startsWith('___')) return 'misbehavior';
  if (taskId.startsWith('__')) return 'injection';
  if (taskId.startsWith('_')) return 'misuse';
  if (uuid.test(taskId)) return 'osworld';
  return 'other';
}

/** True for the paraphrased twins of misuse / misbehavior tasks (`<id>_aug`). */
export function isParaphrase(taskId: string): boolean {
  return taskId.endsWith('_aug');
}
