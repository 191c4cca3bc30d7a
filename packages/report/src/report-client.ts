/// <reference lib="dom" />
import { reportClientBase, type ClientBase } from './report-client-base';
import { reportClientDetail } from './report-client-detail';
import { reportClientOverview } from './report-client-overview';

/**
 * The report page's script. It is shipped as source (`reportClient.toString()`, inlined in the
 * page), so it must stay self-contained: no imports at run time, no module-level values.
 *
 * Data comes from `<script type="application/json">` elements in the static report (the overview
 * from `#osharm-data`, each trajectory from `#tr-{id}`, parsed only when opened; thumbnails from
 * `#th-{hash}`) or from the viewer's `/api/*` endpoints (with server-sent events for live
 * updates). Every value from a trajectory is written with `textContent` — never as HTML; only the
 * server-built table and chart fragments are inserted as markup.
 */
function reportClient(
  base: ClientBase,
  overview: ReturnType<typeof reportClientOverview>,
  details: ReturnType<typeof reportClientDetail>,
): void {
  const { live, byId, h, clear, state, loadData, loadDetail } = base;
  const { renderOverview, renderView, renderGrid } = overview;
  const { renderDetail } = details;
  // ---- routing ----
  const route = () => {
    const params = new URLSearchParams(location.hash.slice(1));
    return { id: params.get('t'), step: params.get('step') };
  };
  const show = async (keepScroll = false) => {
    const { id, step } = route();
    const overview = byId('overview');
    const panel = byId('detail');
    if (!id) {
      state.detail = null;
      if (overview) overview.hidden = false;
      if (panel) {
        panel.hidden = true;
        clear(panel);
      }
      return;
    }
    const y = window.scrollY;
    const detail = await loadDetail(id);
    if (overview) overview.hidden = true;
    if (panel) panel.hidden = false;
    if (!detail) {
      panel?.replaceChildren(
        h('p', {}, h('a', { href: '#', class: 'back' }, '← all trajectories')),
        h('p', {}, 'This trajectory is not in the results (any more).'),
      );
      return;
    }
    if (state.detail?.id !== detail.id) state.detailJudge = '';
    state.detail = detail;
    renderDetail(detail, step === null ? undefined : Number(step));
    if (keepScroll) window.scrollTo(0, y);
    else if (step === null) window.scrollTo(0, 0);
  };

  // ---- wiring ----
  const bind = (id: string, key: 'judge' | 'column' | 'category' | 'domain' | 'verdict') => {
    byId(id)?.addEventListener('change', event => {
      state[key] = (event.target as HTMLSelectElement).value;
      if (key === 'judge') renderView(state.data!);
      renderGrid(state.data!);
    });
  };
  bind('f-judge', 'judge');
  bind('f-column', 'column');
  bind('f-category', 'category');
  bind('f-domain', 'domain');
  bind('f-verdict', 'verdict');
  byId('f-search')?.addEventListener('input', event => {
    state.search = (event.target as HTMLInputElement).value;
    renderGrid(state.data!);
  });
  window.addEventListener('hashchange', () => void show());
  const box = byId('lightbox');
  box?.addEventListener('click', () => {
    box.hidden = true;
    clear(box);
  });
  document.addEventListener('keydown', event => {
    if (event.key === 'Escape' && box && !box.hidden) {
      box.hidden = true;
      clear(box);
    }
  });

  const start = async () => {
    state.data = await loadData();
    state.judge = state.data.defaultJudge ?? '';
    renderOverview();
    await show();
    document.body.dataset.ready = '1';
    (window as unknown as { osharmReadyMs: number }).osharmReadyMs = performance.now();
    if (!live) return;
    const status = byId('live-status');
    const refresh = async () => {
      const previous = state.data;
      state.data = await loadData();
      if (!state.data.judges.some(judge => judge.key === state.judge))
        state.judge = state.data.defaultJudge ?? '';
      renderOverview();
      const open = state.detail;
      if (open) {
        const now = state.data.trajectories.find(summary => summary.id === open.id);
        const before = previous?.trajectories.find(summary => summary.id === open.id);
        if (!now || !before || now.updatedMs !== before.updatedMs) await show(true);
      }
      if (status) status.textContent = `live · updated ${new Date().toLocaleTimeString()}`;
      document.body.dataset.version = String(Number(document.body.dataset.version ?? '0') + 1);
    };
    const events = new EventSource('api/events');
    events.addEventListener('change', () => void refresh());
    events.addEventListener('open', () => {
      if (status) status.textContent = 'live · connected';
    });
    events.addEventListener('error', () => {
      if (status) status.textContent = 'live · reconnecting…';
    });
  };
  void start();
}

/**
 * The page script: the sections' sources (each self-contained), composed in one scope-free
 * expression — base, then overview and detail on it, then routing and wiring.
 */
export function reportClientSource(): string {
  return `(() => {
const base = (${reportClientBase.toString()})();
(${reportClient.toString()})(base, (${reportClientOverview.toString()})(base), (${reportClientDetail.toString()})(base));
})();`;
}
