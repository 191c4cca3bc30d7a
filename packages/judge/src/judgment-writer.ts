/** The files a judging leaves in the trajectory dir: judgment.json and messages.json. */
import { lstatSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { type JudgeType, type ObservationType, type PromptVersion } from '@osharm/task-schema';
import {
  judgmentRelativePath,
  PROVENANCE_KEY,
  writeArtifact,
  type Judgment,
  type JudgmentProvenance,
} from '@osharm/task-schema/artifacts';
import type { ImageOptions } from './judge-images';
import type { JudgePrompt } from './judge-message';
import { upstreamMessagesText } from './upstream-messages';
import { assertWritableJudgment } from './provenance';

/** messages.json: the judge input as OpenAI-style messages, images referenced by file name. */
function messagesForFile(prompt: JudgePrompt, dir: string): unknown[] {
  const messages: unknown[] = [];
  if (prompt.system !== undefined) {
    messages.push({
      role: 'system',
      content:
        typeof prompt.system === 'string'
          ? prompt.system
          : prompt.system.map(part => ({ type: 'text', text: part.text })),
    });
  }
  for (const message of prompt.messages) {
    messages.push({
      role: message.role,
      content:
        typeof message.content === 'string'
          ? message.content
          : message.content.map(part =>
              part.type === 'text'
                ? { type: 'text', text: part.text }
                : {
                    type: 'image_url',
                    image_url: {
                      url: relative(dir, part.path),
                      ...(part.detail === null ? {} : { detail: part.detail ?? 'high' }),
                    },
                  },
            ),
    });
  }
  return messages;
}

/**
 * Writes judgment.json where upstream puts it (or in `versionDir`, a provenance-qualified sibling
 * of the version dir), with its provenance record under `osharm_provenance`, and the judge input as
 * messages.json beside it; returns the judgment path. The trajectory's own `messages.json` (where
 * upstream writes its judge input) is written only when there is none: one another tool wrote is
 * never replaced — but with `upstreamMessages` (upstream's prompt family) it is upstream's own file,
 * replaced as upstream's run_judge.py does (see writeMessages). Through task-schema's `writeArtifact`: keys redacted, atomic, and only into real
 * directories inside the trajectory dir (a symlinked `judgment/` dir is refused).
 */
export async function writeJudgment(options: {
  dir: string;
  judgment: Judgment;
  judgeModel: string;
  judgeType: JudgeType;
  promptVersion: PromptVersion;
  observationType: ObservationType;
  /** The version dir to write in. @default `promptVersion` */
  versionDir?: string;
  /** What made the verdict, written under `osharm_provenance`. */
  provenance?: JudgmentProvenance;
  prompt?: JudgePrompt;
  /** Upstream's prompt family: the top-level messages.json is upstream's (see writeMessages). */
  upstreamMessages?: { readonly images?: ImageOptions };
}): Promise<string> {
  const file = judgmentRelativePath({
    judgeModel: options.judgeModel,
    judgeType: options.judgeType,
    promptVersion: options.versionDir ?? options.promptVersion,
    observationType: options.observationType,
  });
  await assertWritableJudgment(options.dir, file);
  if (options.prompt)
    await writeMessages(options.dir, options.prompt, dirname(file), options.upstreamMessages);
  const content = options.provenance
    ? { ...options.judgment, [PROVENANCE_KEY]: options.provenance }
    : options.judgment;
  return writeArtifact(options.dir, file, `${JSON.stringify(content, null, 2)}\n`);
}

/**
 * Writes the judge input as messages.json in `besideDir` (relative to the trajectory dir) when
 * given (osharm's form: images by file name), and at the trajectory's top level: with `upstream`
 * (upstream's prompt family) the file upstream's run_judge.py writes there — the message list as
 * sent, images inline, Python's `json.dump` text — replacing the one there, as upstream does;
 * else osharm's form, only when no messages.json is there yet.
 */
export async function writeMessages(
  dir: string,
  prompt: JudgePrompt,
  besideDir?: string,
  upstream?: { readonly images?: ImageOptions },
): Promise<void> {
  const text = `${JSON.stringify(messagesForFile(prompt, dir), null, 2)}\n`;
  if (besideDir !== undefined) await writeArtifact(dir, `${besideDir}/messages.json`, text);
  if (upstream) {
    await writeArtifact(dir, 'messages.json', await upstreamMessagesText(prompt, upstream.images));
    return;
  }
  const top = join(dir, 'messages.json');
  if (!lstatSync(top, { throwIfNoEntry: false })) await writeArtifact(dir, 'messages.json', text);
}
