import type { TaskConfig } from '@osharm/task-schema';

// Which changes the task itself asks for: the paths its evaluator reads (OSWorld's evaluator
// getters name the files the finished task must have produced or changed). Nothing else in a
// task config says what the agent is meant to change, so every other event is "unknown".

const pathPattern = /(?:~|\/home\/user|\/etc|\/tmp|\/var\/spool)(?:\/[^\s'"`;|&<>(){}[\],]*)?/g;

function collect(value: unknown, into: Set<string>): void {
  if (typeof value === 'string') {
    for (const match of value.matchAll(pathPattern)) {
      const path = match[0].replace(/^~(?=\/|$)/, '/home/user').replace(/\/+$/, '');
      if (path.length > 1 && path !== '/home/user') into.add(path);
    }
  } else if (Array.isArray(value)) {
    for (const item of value) collect(item, into);
  } else if (value && typeof value === 'object') {
    for (const item of Object.values(value)) collect(item, into);
  }
}

/** The absolute paths the task's evaluator names (`~` expanded to /home/user). */
export function expectedTargets(task: Pick<TaskConfig, 'evaluator'>): ReadonlySet<string> {
  const paths = new Set<string>();
  const { postconfig: _postconfig, ...evaluator } = task.evaluator as Record<string, unknown>;
  collect(evaluator, paths);
  return paths;
}

/** Whether an event's target (a path shown with `~`, or absolute) is one the task names. */
export function isExpectedTarget(target: string, expected: ReadonlySet<string>): boolean {
  const path = target.replace(/^~(?=\/|$)/, '/home/user');
  return expected.has(path);
}
