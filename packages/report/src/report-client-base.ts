/// <reference lib="dom" />
import type {
  CompactVerdict,
  ImageRef,
  PageData,
  TrajectoryDetail,
  TrajectorySummary,
} from './report-page-data';

// Shipped as source (`toString()`, composed by `reportClientSource` in report-client.ts): this
// function must stay self-contained — no imports at run time, no module-level values.

/** The report page's shared parts: the element builder, the page state, data sources, verdicts. */
export function reportClientBase() {
  const live = document.body.dataset.mode === 'live';
  const byId = (id: string) => document.getElementById(id);

  type Child = Node | string | number | null | undefined | false;
  const h = (
    tag: string,
    attributes: Record<string, string | number | boolean | null | undefined> = {},
    ...children: Child[]
  ): HTMLElement => {
    const element = document.createElement(tag);
    for (const [name, value] of Object.entries(attributes)) {
      if (value === null || value === undefined || value === false) continue;
      if (name === 'class') element.className = String(value);
      else element.setAttribute(name, value === true ? '' : String(value));
    }
    for (const child of children) {
      if (child === null || child === undefined || child === false) continue;
      element.append(typeof child === 'object' ? child : document.createTextNode(String(child)));
    }
    return element;
  };
  const clear = (element: Element | null) => {
    if (element) element.replaceChildren();
  };

  const state = {
    data: null as PageData | null,
    judge: '',
    column: '',
    category: '',
    domain: '',
    verdict: '',
    search: '',
    detail: null as TrajectoryDetail | null,
    detailJudge: '',
  };

  // ---- data sources ----
  const readJson = <T>(id: string): T | null => {
    const element = byId(id);
    return element?.textContent ? (JSON.parse(element.textContent) as T) : null;
  };
  const loadData = async (): Promise<PageData> => {
    if (!live) return readJson<PageData>('osharm-data')!;
    const response = await fetch('api/data', { cache: 'no-store' });
    return (await response.json()) as PageData;
  };
  const loadDetail = async (id: string): Promise<TrajectoryDetail | null> => {
    if (!live) return readJson<TrajectoryDetail>(`tr-${id}`);
    const response = await fetch(`api/trajectory/${encodeURIComponent(id)}`, {
      cache: 'no-store',
    });
    return response.ok ? ((await response.json()) as TrajectoryDetail) : null;
  };
  const thumbSource = (image: ImageRef): string | undefined => {
    if (image.thumbUrl) return image.thumbUrl;
    if (image.thumbId) return byId(`th-${image.thumbId}`)?.textContent ?? undefined;
    return undefined;
  };
  // `#im-…`: a full-size image embedded in the page (`--embed-images`).
  const fullSource = (full: string): string =>
    full.startsWith('#im-') ? (byId(full.slice(1))?.textContent ?? '') : full;

  // ---- verdicts ----
  // An errored run has no verdict, even if a judgment file is lying around.
  const verdictOf = (summary: TrajectorySummary): CompactVerdict | undefined =>
    state.judge && summary.errored === null ? summary.verdicts[state.judge] : undefined;
  const verdictClass = (verdict: CompactVerdict | undefined) =>
    verdict ? (verdict[0] ? 'safe' : 'unsafe') : 'unjudged';

  // ---- images (thumbnails, full size, the lightbox) ----
  const lightbox = (src: string, caption: string) => {
    const box = byId('lightbox');
    if (!box) return;
    box.replaceChildren(
      h('img', { src, alt: caption }),
      h('div', { class: 'caption' }, caption, ' — click or press Esc to close'),
    );
    box.hidden = false;
  };
  const imageBlock = (image: ImageRef | undefined, caption: string, note?: string) => {
    if (!image) return h('div', { class: 'shot missing' }, note ?? 'no screenshot');
    const full = fullSource(image.full);
    const link = h(
      'a',
      { href: full, target: '_blank', rel: 'noopener', class: 'shot' },
      h('img', {
        src: thumbSource(image) ?? full,
        loading: 'lazy',
        decoding: 'async',
        alt: caption,
      }),
    );
    link.addEventListener('click', event => {
      event.preventDefault();
      lightbox(full, caption);
    });
    return link;
  };
  const fullLink = (full: string, caption: string, text: string) => {
    const source = fullSource(full);
    const link = h('a', { href: source, target: '_blank', rel: 'noopener' }, text);
    link.addEventListener('click', event => {
      event.preventDefault();
      lightbox(source, caption);
    });
    return link;
  };
  return {
    live,
    byId,
    h,
    clear,
    state,
    readJson,
    loadData,
    loadDetail,
    thumbSource,
    fullSource,
    verdictOf,
    verdictClass,
    lightbox,
    imageBlock,
    fullLink,
  };
}

/** What {@link reportClientBase} gives the other sections of the page script. */
export type ClientBase = ReturnType<typeof reportClientBase>;
