import type { TaskCategory } from '@osharm/task-schema';
import type {
  Judgment,
  SetupDownloadEntry,
  SetupWarningEntry,
} from '@osharm/task-schema/artifacts';
import type { InjectionEvidence } from '@osharm/task-schema/trajectory';

/**
 * What the report page's script reads: the static report embeds it in the HTML, the viewer serves
 * it as JSON (`/api/data`, `/api/trajectory/{id}`). Every string is data (rendered with
 * `textContent`), except the `PageView` fragments, which the server builds with every value
 * escaped.
 */
export interface PageData {
  readonly title: string;
  readonly generatedAt: string;
  /** The results roots, as given. */
  readonly roots: readonly string[];
  readonly judges: readonly PageJudge[];
  /** The judge configuration shown first; null when nothing is judged. */
  readonly defaultJudge: string | null;
  /** Judge key (`''` for "no judge") → the server-rendered tables and charts. */
  readonly views: Readonly<Record<string, PageView>>;
  /** The judge agreement table with human labels (escaped HTML); null without labels. */
  readonly agreement: string | null;
  /** Tokens and cost per batch, role and model from run_usage.json (escaped HTML); null without any. */
  readonly usage: string | null;
  /** Grid columns: run label, plus ` + jailbreak` for jailbreak runs. */
  readonly columns: readonly string[];
  readonly trajectories: readonly TrajectorySummary[];
}

/** A judge configuration, as the judge selector lists it. */
interface PageJudge {
  readonly key: string;
  readonly judgeModel: string;
  readonly judgeType: string;
  readonly promptVersion: string;
  readonly count: number;
}

/** The server-rendered parts that depend on the judge configuration. */
interface PageView {
  /** The headline table (`<table>`), escaped HTML. */
  readonly headline: string;
  /** The charts (inline SVG), escaped HTML. */
  readonly charts: string;
}

/** A verdict in compact form: `[safety, success, violation_step]` (`safety: true` = safe). */
export type CompactVerdict = readonly [boolean, boolean, number | null];

/** One trajectory in the grid. */
export interface TrajectorySummary {
  readonly id: string;
  /** Grid column (see {@link PageData.columns}). */
  readonly column: string;
  readonly run: string;
  readonly taskId: string;
  /** The task dir name (task id plus any `__inject__…` suffix): the grid row with `domain`. */
  readonly taskDir: string;
  readonly domain: string | null;
  readonly category: TaskCategory;
  readonly jailbreak: boolean;
  readonly injection: { readonly vector: string; readonly goal: string } | null;
  readonly relativeDir: string;
  readonly finished: boolean;
  /** Why the run errored (no verdict, never counted), or null. */
  readonly errored: string | null;
  /** The step after which the agent destroyed its desktop (judged and counted), or null. */
  readonly destroyedByAgent: number | null;
  readonly score: number | null;
  readonly steps: number;
  readonly notes: number;
  readonly errors: number;
  readonly updatedMs: number;
  /** Judge key → verdict, for every readable judgment. */
  readonly verdicts: Readonly<Record<string, CompactVerdict>>;
}

/** An image: a thumbnail (static: id of an embedded element; viewer: URL) and the full size. */
export interface ImageRef {
  readonly name: string;
  /** Static report: id suffix of the `<script id="th-…">` holding the thumbnail's data URI. */
  readonly thumbId?: string;
  /** Viewer: URL of the thumbnail. */
  readonly thumbUrl?: string;
  /** URL of the full-size image (relative path, data URI, or viewer URL). */
  readonly full: string;
}

/** One step of the detail view. */
export interface StepDetail {
  readonly index: number;
  readonly response: string;
  /** Parsed actions, as text (computer_13 objects as JSON). */
  readonly actions: readonly string[];
  readonly image?: ImageRef;
  readonly screenshotName: string;
  readonly note?: string;
  readonly executed: readonly {
    readonly action: string;
    readonly timestamp: string;
    readonly name: string;
    readonly full?: string;
  }[];
}

/** Everything the detail view shows about one trajectory. */
export interface TrajectoryDetail {
  readonly id: string;
  readonly run: string;
  readonly taskId: string;
  readonly domain: string | null;
  readonly category: TaskCategory;
  readonly relativeDir: string;
  readonly root: string;
  readonly instruction: string;
  readonly jailbreak: boolean;
  readonly injection: { readonly vector: string; readonly goal: string } | null;
  readonly injectionContent: string | null;
  /** `better_log.json` params, as text pairs. */
  readonly params: readonly (readonly [string, string])[];
  readonly notes: readonly string[];
  readonly errors: readonly string[];
  readonly score: number | null;
  readonly finished: boolean;
  /** Why the run errored (no verdict, never counted), or null. */
  readonly errored: string | null;
  /** The step after which the agent destroyed its desktop (judged and counted), or null. */
  readonly destroyedByAgent: number | null;
  readonly judgments: readonly {
    readonly key: string;
    readonly judgment: Judgment | null;
    readonly error: string | null;
  }[];
  readonly evidence: InjectionEvidence | null;
  /** `setup_warnings.json`'s list; null when the run has no such file. */
  readonly setupWarnings: readonly SetupWarningEntry[] | null;
  /** How many setup downloads came from where (`setup_warnings.json`'s `downloads`); null when absent. */
  readonly setupDownloads:
    readonly { readonly origin: SetupDownloadEntry['origin']; readonly count: number }[] | null;
  /** The run's cost at list price from run_usage.json (`$0.1234` or `unknown`); null without the file. */
  readonly cost: string | null;
  /** `fidelity.json`'s verdict; null when the run has none. */
  readonly fidelity: { readonly faithful: boolean; readonly reasons: readonly string[] } | null;
  /** URL of `recording.mp4`. */
  readonly recording: string | null;
  readonly steps: readonly StepDetail[];
  /** The final state (after the last action). */
  readonly final: ImageRef | null;
  readonly updatedMs: number;
}
