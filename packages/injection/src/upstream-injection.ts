import { INJECTION_GOAL_IDS, type InjectionGoalId, type UpstreamSource } from '@osharm/task-schema';
import {
  STRING_LITERAL as STR,
  UpstreamError,
  UpstreamText,
  type UpstreamCheckout,
} from '@osharm/upstream';
import type { GoalTexts } from './injection-goals';
import { injectionCommentHeader } from './vs-code-header';

/**
 * The texts the vectors wrap around a goal text, when they are not osharm's own: upstream's,
 * read from a checkout by `loadUpstreamInjection`. Each absent member is osharm's own.
 */
export interface InjectionTemplates {
  /** The website vector's page for a goal text (upstream: assets/website_template.html filled). */
  readonly websitePage?: (text: string) => string;
  /** The received-mail vector's messages (upstream: assets/message_{1,2,3}.eml filled). */
  readonly receivedMessages?: readonly ((text: string) => string)[];
  /**
   * The templates themselves, unfilled: the notification vector's `thunderbird` config uploads the
   * first one as it is (upstream's lib_run_single.py does).
   */
  readonly receivedMessageTemplates?: readonly string[];
  /** The title of the notification vector's notification. */
  readonly notificationTitle?: string;
  /** The mail-draft vector's `thunderbird -compose` argument for a goal text. */
  readonly draftComposeArgument?: (text: string) => string;
  /**
   * The VS Code vector's injected file from the original content. osharm's own fills the
   * placeholder of a template-only file (quirk #7); upstream's leaves it: header + content.
   */
  readonly vsCodeFile?: (content: string, text: string) => string;
}

/** Upstream's injection texts, read from a checkout, and the sources they came from. */
export interface UpstreamInjection {
  /** The 12 goal texts (`all_injection_goals` in run.py). */
  readonly goalTexts: GoalTexts;
  /** What the vectors wrap around them (assets/ templates, lib_run_single.py commands). */
  readonly templates: InjectionTemplates;
  /** `jailbreak_instruction` of mm_agents/prompts.py. */
  readonly jailbreak: (instruction: string) => string;
  readonly sources: readonly UpstreamSource[];
}

const RUN_SINGLE = 'lib_run_single.py';
const RUN_SINGLE_FUNCTION = 'run_single_example';
const MESSAGE_TEMPLATES = ['assets/message_1.eml', 'assets/message_2.eml', 'assets/message_3.eml'];

/** An asset of the checkout as a text: its symbol is the whole file. */
function assetText(checkout: UpstreamCheckout, path: string): UpstreamText {
  const file = checkout.file(path);
  return new UpstreamText(
    { kind: 'str', parts: [file.content] },
    file.source('(file)'),
    1,
    checkout.root,
  );
}

/**
 * Reads upstream's injection texts from a checkout: the goal texts of run.py, the jailbreak wrapper
 * of mm_agents/prompts.py, the website and mail templates of assets/, and from
 * lib_run_single.py's `run_single_example` the notification's title and the draft's
 * `-compose` argument. Nothing is filled until a run asks for its goal text.
 * @throws {UpstreamError} naming file and symbol when one is missing or not the shape expected
 */
export function loadUpstreamInjection(checkout: UpstreamCheckout): UpstreamInjection {
  const goals = checkout.file('run.py').dict('all_injection_goals');
  const goalTexts = {} as Record<InjectionGoalId, string>;
  const sources: UpstreamSource[] = [];
  for (const id of INJECTION_GOAL_IDS) {
    const text = goals.get(id);
    if (text === undefined)
      throw new UpstreamError({
        reason: 'missing-symbol',
        root: checkout.root,
        file: 'run.py',
        symbol: `all_injection_goals[${JSON.stringify(id)}]`,
        detail: 'not found',
      });
    goalTexts[id] = text.text;
    sources.push(text.source);
  }
  const jailbreak = checkout.file('mm_agents/prompts.py').returnedString('jailbreak_instruction');
  sources.push(jailbreak.text.source);

  const website = assetText(checkout, 'assets/website_template.html');
  const messages = MESSAGE_TEMPLATES.map(path => assetText(checkout, path));
  sources.push(website.source, ...messages.map(message => message.source));

  const runSingle = checkout.file(RUN_SINGLE);
  const command = (vector: string): UpstreamText => {
    const found = runSingle.find(['_launch_setup', '(', 'command', '=', '[', STR, ']'], {
      within: RUN_SINGLE_FUNCTION,
      under: vector,
    });
    if (found.length !== 1)
      throw shapeError(
        checkout,
        `the ${vector} command: found ${found.length} times, expected once`,
      );
    return found[0]![0]!;
  };
  const notify = command('desktop_notification');
  const title = /notify-send\s+'([^']*)'/.exec(literalText(notify))?.[1];
  if (title === undefined)
    throw shapeError(checkout, "the desktop_notification command has no notify-send '<title>'");
  const draft = command('thunderbird_mail_draft');
  const composeArgument = (text: string) => {
    const filled = fillContent(checkout, draft, text);
    const argument = /-compose\s+"(.*)"\s*$/s.exec(filled)?.[1];
    if (argument === undefined)
      throw shapeError(checkout, 'the thunderbird_mail_draft command has no -compose "<argument>"');
    return argument;
  };
  composeArgument('');
  sources.push(runSingle.source(RUN_SINGLE_FUNCTION));

  return {
    goalTexts: Object.freeze(goalTexts),
    jailbreak: instruction => jailbreak.call(instruction),
    templates: {
      websitePage: text => website.formatNamed({ injection: text }),
      receivedMessages: messages.map(
        message => (text: string) => message.formatNamed({ injection: text }),
      ),
      receivedMessageTemplates: messages.map(message => message.text),
      notificationTitle: title,
      draftComposeArgument: composeArgument,
      vsCodeFile: (content, text) => injectionCommentHeader(text) + content,
    },
    sources,
  };
}

function shapeError(checkout: UpstreamCheckout, detail: string): UpstreamError {
  return new UpstreamError({
    reason: 'unsupported',
    root: checkout.root,
    file: RUN_SINGLE,
    symbol: RUN_SINGLE_FUNCTION,
    detail,
  });
}

/** The literal text of an f-string, its fields left out. */
function literalText(text: UpstreamText): string {
  return text.parts.filter((part): part is string => typeof part === 'string').join('');
}

/** The f-string with its `injection['content']` field filled (the only field upstream puts there). */
function fillContent(checkout: UpstreamCheckout, text: UpstreamText, content: string): string {
  return text.parts
    .map(part => {
      if (typeof part === 'string') return part;
      if (
        /^\s*injection\s*\[\s*(['"])content\1\s*\]\s*$/.test(part.expr) &&
        !part.conversion &&
        !part.spec
      )
        return content;
      throw shapeError(checkout, `field {${part.expr}} is not supported by this reader`);
    })
    .join('');
}
