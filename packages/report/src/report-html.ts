import { redactSecrets } from '@osharm/task-schema/artifacts';
import { randomBytes, createHash } from 'node:crypto';
import { dirname, extname, relative, resolve, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { HumanLabel } from '@osharm/metrics';
import { readTrajectoryFile } from '@osharm/task-schema/trajectory';
import { escapeHtml, jsonForScript } from './html-escape';
import { mapLimit } from './map-limit';
import { reportClientSource } from './report-client';
import { buildPageData, buildTrajectoryDetail, type FileLinker } from './report-page';
import type { ImageRef } from './report-page-data';
import { REPORT_CSS } from './report-style';
import { ThumbnailCache, type ThumbnailOptions } from './report-thumbnails';
import type { ResultsTree, TrajectoryRecord } from './results-tree';

/** Options of the HTML report (see `buildReport`). */
export interface HtmlReportOptions {
  /**
   * Page title.
   * @default 'osharm report'
   */
  readonly title?: string;
  /** Judge configuration (`{model}/{type}/{version}`) shown first. @default the most frequent */
  readonly judge?: string;
  /**
   * Directory the HTML file will be written to: full-size screenshots and recordings are linked
   * by paths relative to it, so the page works when opened from disk next to the results tree.
   * @default process.cwd()
   */
  readonly baseDir?: string;
  /**
   * Inline the full-size screenshots too (as data URIs; each distinct image once), so the file
   * works anywhere on its own. Recordings stay linked.
   * @default false
   */
  readonly embedImages?: boolean;
  /**
   * Step thumbnails, inlined as data URIs (made with sharp; identical screenshots once); `false`
   * shows the full-size images (lazily) instead.
   * @default { width: 320, format: 'webp', quality: 50 }
   */
  readonly thumbnails?: ThumbnailOptions | false;
  /** Human labels: adds the judge agreement table (`agreementTable` of `@osharm/metrics`). */
  readonly labels?: readonly HumanLabel[];
  /** Reuse a thumbnail cache (e.g. across reports of one process). */
  readonly thumbnailCache?: ThumbnailCache;
  /**
   * Trajectories whose images are prepared at once.
   * @default 4
   */
  readonly concurrency?: number;
}

/** The page shell: CSS, the layout the script fills, and the inlined script (CSP with a nonce). */
export function renderPageShell({
  title,
  mode,
  payload = '',
}: {
  title: string;
  mode: 'static' | 'live';
  /** Extra elements before the script: the `<script type="application/json">` data. */
  payload?: string;
}): string {
  const nonce = randomBytes(16).toString('base64');
  const csp = [
    "default-src 'none'",
    `script-src 'nonce-${nonce}'`,
    "style-src 'unsafe-inline'",
    'img-src * data: blob:',
    'media-src * data: blob:',
    mode === 'live' ? "connect-src 'self'" : "connect-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="${escapeHtml(csp)}">
<meta name="generator" content="osharm report">
<link rel="icon" href="data:,">
<title>${escapeHtml(title)}</title>
<style>${REPORT_CSS}</style>
</head>
<body data-mode="${mode}">
<header class="top">
  <h1 id="title">${escapeHtml(title)}</h1>
  <div id="meta" class="meta"></div>
  ${mode === 'live' ? '<div id="live-status" class="live-status">live · connecting…</div>' : ''}
</header>
<main>
<div id="overview">
  <section class="controls" aria-label="filters">
    <label>judge <select id="f-judge"></select></label>
    <label>run <select id="f-column"></select></label>
    <label>category <select id="f-category"></select></label>
    <label>domain <select id="f-domain"></select></label>
    <label>verdict <select id="f-verdict"></select></label>
    <label>search <input id="f-search" type="search" placeholder="task, domain or path"></label>
  </section>
  <section><h2>Headline</h2><div id="headline"></div></section>
  <section id="agreement-section" hidden><h2>Judge agreement</h2><div id="agreement"></div></section>
  <section><h2>Charts</h2><div id="charts" class="charts"></div></section>
  <section id="usage-section" hidden><h2>Model usage and cost</h2><div id="usage"></div></section>
  <section><h2>Trajectories</h2><p id="grid-summary" class="meta"></p><div id="grid"></div></section>
</div>
<article id="detail" hidden></article>
</main>
<div id="lightbox" class="lightbox" hidden></div>
<noscript><p>This report needs JavaScript to show its data.</p></noscript>
${payload}
<script nonce="${nonce}">${reportClientSource()}</script>
</body>
</html>
`;
}

/** A file path as a URL relative to `baseDir` (each segment percent-encoded). */
function relativeUrl(baseDir: string, file: string): string {
  const path = relative(baseDir, file);
  if (path === '' || /^[a-zA-Z]:/.test(path)) return pathToFileURL(file).href;
  return path.split(sep).map(encodeURIComponent).join('/');
}

const mimeTypes: Record<string, string> = {
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.webp': 'image/webp',
};

/**
 * The self-contained HTML report: CSS and script inline, the overview data as one JSON element,
 * each trajectory's detail as its own JSON element (parsed only when opened), each distinct
 * thumbnail once as a data URI. Full-size images are linked relative to `baseDir` unless
 * `embedImages`.
 */
export async function renderHtmlReport(
  tree: ResultsTree,
  options: HtmlReportOptions = {},
): Promise<string> {
  const title = options.title ?? 'osharm report';
  const baseDir = resolve(options.baseDir ?? process.cwd());
  const thumbnails =
    options.thumbnails === false
      ? undefined
      : (options.thumbnailCache ??
        new ThumbnailCache({
          maxImageBytes: tree.limits.maxImageBytes,
          ...(options.thumbnails || {}),
        }));
  const embedded = new Map<string, string>(); // element id → data URI
  const embedFile = async (file: string): Promise<string> => {
    // Only a regular image file inside its dir, under the cap, is ever inlined.
    const bytes = await readTrajectoryFile(file, {
      within: dirname(file),
      maxBytes: tree.limits.maxImageBytes,
      kind: 'image',
    });
    const id = `im-${createHash('sha256').update(bytes).digest('hex').slice(0, 16)}`;
    if (!embedded.has(id)) {
      const type = mimeTypes[extname(file).toLowerCase()] ?? 'application/octet-stream';
      embedded.set(id, `data:${type};base64,${bytes.toString('base64')}`);
    }
    return `#${id}`;
  };
  const fullOf = async (file: string): Promise<string> => {
    if (options.embedImages && mimeTypes[extname(file).toLowerCase()]) {
      try {
        return await embedFile(file);
      } catch {
        // unreadable: fall back to the link
      }
    }
    return relativeUrl(baseDir, file);
  };
  const linker: FileLinker = {
    async image(_record: TrajectoryRecord, file: string): Promise<ImageRef> {
      const name = file.split(sep).at(-1)!;
      const full = await fullOf(file);
      const thumbnail = thumbnails && (await thumbnails.get(file));
      if (!thumbnail) return { name, full };
      const id = `th-${thumbnail.sourceHash.slice(0, 16)}`;
      if (!embedded.has(id))
        embedded.set(id, `data:${thumbnail.mimeType};base64,${thumbnail.data.toString('base64')}`);
      return { name, full, thumbId: id.slice(3) };
    },
    url(_record: TrajectoryRecord, file: string): string {
      return relativeUrl(baseDir, file);
    },
  };
  // Executed actions link their "after" screenshot; embed those too when asked.
  const details = await mapLimit(tree.trajectories, options.concurrency ?? 4, async record => {
    const detail = await buildTrajectoryDetail(record, linker);
    if (!options.embedImages) return detail;
    const steps = await Promise.all(
      detail.steps.map(async step => ({
        ...step,
        executed: await Promise.all(
          step.executed.map(async executed => {
            const file = record.steps[step.index]?.executed.find(
              candidate => candidate.screenshotName === executed.name,
            )?.screenshot;
            return file ? { ...executed, full: await fullOf(file) } : executed;
          }),
        ),
      })),
    );
    return { ...detail, steps };
  });
  const data = await buildPageData(tree, {
    title,
    // shown as paths relative to the page, like its links (no machine-specific prefix)
    roots: tree.roots.map(root => relative(baseDir, root).split(sep).join('/') || '.'),
    ...(options.judge !== undefined && { judge: options.judge }),
    ...(options.labels && { labels: options.labels }),
  });
  const parts: string[] = [
    `<script type="application/json" id="osharm-data">${redactSecrets(jsonForScript(data))}</script>`,
  ];
  // Key-shaped strings the tree holds (an agent's output, a pasted key) never reach the page in
  // clear, as the judge's files (the images, base64, are not text: left as they are).
  for (const detail of details)
    parts.push(
      `<script type="application/json" id="tr-${detail.id}">${redactSecrets(jsonForScript(detail))}</script>`,
    );
  for (const [id, uri] of embedded)
    parts.push(`<script type="text/plain" id="${id}">${uri}</script>`);
  return renderPageShell({ title, mode: 'static', payload: parts.join('\n') });
}
