/// <reference lib="dom" />
import type { StepDetail, TrajectoryDetail } from './report-page-data';
import type { ClientBase } from './report-client-base';

// Shipped as source (`toString()`, composed by `reportClientSource` in report-client.ts): this
// function must stay self-contained — no imports at run time, no module-level values.

/** The detail section of the report page: one trajectory, its steps, screenshots and verdicts. */
export function reportClientDetail(base: ClientBase) {
  const { byId, h, state, imageBlock, fullLink } = base;
  // ---- detail ----
  const pre = (text: string, className = '') => h('pre', { class: className }, text);

  const renderStep = (step: StepDetail, violation: number | null | undefined) => {
    const isViolation = violation === step.index;
    const after = violation !== null && violation !== undefined && step.index > violation;
    return h(
      'section',
      {
        class: `step${isViolation ? ' violation' : ''}${after ? ' after-violation' : ''}`,
        id: `step-${step.index}`,
        'data-step': step.index,
      },
      h(
        'header',
        {},
        h('h3', {}, `Step ${step.index}`),
        isViolation ? h('span', { class: 'badge unsafe' }, 'violation step (judge)') : null,
        h('span', { class: 'file' }, step.screenshotName),
      ),
      h(
        'div',
        { class: 'step-body' },
        h(
          'div',
          { class: 'step-shot' },
          imageBlock(step.image, `step ${step.index}: ${step.screenshotName}`, step.note),
          step.note ? h('div', { class: 'note' }, step.note) : null,
        ),
        h(
          'div',
          { class: 'step-text' },
          h('h4', {}, 'Response (reasoning and code)'),
          pre(step.response, 'response'),
          h('h4', {}, `Actions (${step.actions.length})`),
          step.actions.length > 0
            ? h('div', {}, ...step.actions.map(action => pre(action, 'action')))
            : h('div', { class: 'note' }, 'no action parsed from the response'),
          step.executed.length > 0
            ? h(
                'div',
                { class: 'executed' },
                h('h4', {}, 'Executed'),
                h(
                  'ul',
                  {},
                  ...step.executed.map(executed =>
                    h(
                      'li',
                      {},
                      h('code', {}, executed.timestamp),
                      ' ',
                      executed.action.split('\n').at(-1) ?? '',
                      ' ',
                      executed.full
                        ? fullLink(executed.full, executed.name, 'screenshot after')
                        : h('span', { class: 'note' }, `(${executed.name} missing)`),
                    ),
                  ),
                ),
              )
            : null,
        ),
      ),
    );
  };

  const renderDetail = (detail: TrajectoryDetail, scrollTo?: number) => {
    const panel = byId('detail');
    if (!panel) return;
    const judgments = detail.judgments;
    if (!judgments.some(record => record.key === state.detailJudge)) {
      state.detailJudge = judgments.some(record => record.key === state.judge && record.judgment)
        ? state.judge
        : (judgments.find(record => record.judgment)?.key ?? '');
    }
    const selected = judgments.find(record => record.key === state.detailJudge)?.judgment ?? null;
    const violation = selected && !selected.safety ? selected.violation_step : null;
    const marks = h(
      'div',
      { class: 'marks-row' },
      h('span', { class: `badge cat-${detail.category}` }, detail.category),
      detail.jailbreak ? h('span', { class: 'badge jailbreak' }, 'jailbreak') : null,
      detail.injection
        ? h(
            'span',
            { class: 'badge injection' },
            `injection: ${detail.injection.vector} × ${detail.injection.goal}`,
          )
        : null,
      detail.destroyedByAgent !== null
        ? h(
            'span',
            { class: 'badge errored' },
            `desktop destroyed by the agent after step ${detail.destroyedByAgent} (judged, counted)`,
          )
        : null,
      detail.errored !== null
        ? h('span', { class: 'badge errored', title: detail.errored }, `errored: ${detail.errored}`)
        : detail.finished
          ? detail.score === null
            ? h('span', { class: 'badge unscored' }, 'ended, no result.txt (not scored)')
            : null
          : h('span', { class: 'badge running' }, 'running (no result.txt, no final action yet)'),
    );
    const verdictBox = selected
      ? h(
          'div',
          { class: `verdict-box ${selected.safety ? 'safe' : 'unsafe'}`, id: 'verdict' },
          h(
            'div',
            { class: 'verdict-line' },
            h(
              'strong',
              { 'data-verdict': selected.safety ? 'safe' : 'unsafe' },
              selected.safety ? 'SAFE' : 'UNSAFE',
            ),
            ' · ',
            selected.success ? 'task completed' : 'task not completed',
            violation !== null && violation !== undefined
              ? h(
                  'span',
                  {},
                  ' · first unsafe step: ',
                  h('a', { href: `#t=${detail.id}&step=${violation}` }, `step ${violation}`),
                  violation >= detail.steps.length ? ' (beyond the logged steps)' : '',
                )
              : null,
          ),
          h('div', { class: 'judge-name' }, `judge ${state.detailJudge}`),
          pre(selected.reasoning, 'reasoning'),
        )
      : h('div', { class: 'verdict-box unjudged' }, 'Not judged (no readable judgment.json).');
    const judgmentTable =
      judgments.length > 0
        ? h(
            'table',
            { class: 'judgments' },
            h(
              'thead',
              {},
              h(
                'tr',
                {},
                h('th', {}, 'judge (model / type / version)'),
                h('th', {}, 'safety'),
                h('th', {}, 'success'),
                h('th', {}, 'violation step'),
              ),
            ),
            h(
              'tbody',
              {},
              ...judgments.map(record => {
                const row = h(
                  'tr',
                  { class: record.key === state.detailJudge ? 'selected' : '', tabindex: 0 },
                  h('td', {}, record.key),
                  h(
                    'td',
                    { class: record.judgment ? (record.judgment.safety ? 'safe' : 'unsafe') : '' },
                    record.judgment
                      ? record.judgment.safety
                        ? 'safe'
                        : 'unsafe'
                      : (record.error ?? 'unreadable'),
                  ),
                  h('td', {}, record.judgment ? String(record.judgment.success) : ''),
                  h('td', {}, record.judgment ? String(record.judgment.violation_step ?? '–') : ''),
                );
                row.addEventListener('click', () => {
                  state.detailJudge = record.key;
                  renderDetail(detail);
                });
                return row;
              }),
            ),
          )
        : null;
    const evidence = detail.evidence
      ? h(
          'section',
          { class: 'evidence' },
          h('h3', {}, 'Injection evidence (deterministic checks)'),
          ...detail.evidence.goals.map(goal =>
            h(
              'div',
              {},
              h(
                'p',
                {},
                `${goal.vector} × ${goal.goal}: `,
                h(
                  'strong',
                  {},
                  goal.triggered === null
                    ? `unknown${goal.reason ? ` (${goal.reason})` : ''}`
                    : goal.triggered
                      ? 'triggered'
                      : 'not triggered',
                ),
              ),
              h(
                'table',
                { class: 'checks' },
                h(
                  'tbody',
                  {},
                  ...goal.checks.map(check =>
                    h(
                      'tr',
                      {},
                      h('td', {}, check.name),
                      h(
                        'td',
                        { class: check.triggered ? 'unsafe' : '' },
                        check.triggered === null ? 'n/a' : String(check.triggered),
                      ),
                      h('td', {}, check.description),
                      h('td', {}, pre(check.detail)),
                    ),
                  ),
                ),
              ),
            ),
          ),
        )
      : null;
    const fidelity = detail.fidelity
      ? h(
          'section',
          { class: 'fidelity' },
          h(
            'h3',
            {},
            detail.fidelity.faithful ? 'Faithful to upstream' : 'Not faithful to upstream',
          ),
          detail.fidelity.reasons.length === 0
            ? null
            : h('ul', {}, ...detail.fidelity.reasons.map(reason => h('li', {}, reason))),
        )
      : null;
    const warnings = detail.setupWarnings
      ? h(
          'section',
          { class: 'setup-warnings' },
          h('h3', {}, `Setup warnings (${detail.setupWarnings.length})`),
          detail.setupWarnings.length === 0
            ? h('p', {}, 'Every setup step succeeded.')
            : h(
                'ul',
                {},
                ...detail.setupWarnings.map(warning =>
                  h(
                    'li',
                    {},
                    `${warning.source} ${warning.phase} step ${warning.step_index + 1} (${warning.step_type}): ${warning.message}`,
                  ),
                ),
              ),
          detail.setupWarnings.length === 0
            ? null
            : h(
                'p',
                { class: 'note' },
                'Upstream only logs these failures and runs on; the run may differ from one where the step succeeded.',
              ),
          detail.setupDownloads && detail.setupDownloads.length > 0
            ? h(
                'p',
                { class: 'downloads' },
                `Downloads: ${detail.setupDownloads
                  .map(
                    ({ origin, count }) =>
                      `${count} from ${origin === 'asset-map' ? 'asset-map files' : origin === 'mirror' ? 'a mirror' : `the ${origin}`}`,
                  )
                  .join(', ')}.`,
              )
            : null,
        )
      : null;
    const parts: (HTMLElement | null)[] = [
      h('p', {}, h('a', { href: '#', class: 'back' }, '← all trajectories')),
      h('h2', {}, `${detail.domain ? `${detail.domain}/` : ''}${detail.taskId}`),
      h('div', { class: 'sub' }, `${detail.run} · ${detail.relativeDir}`),
      marks,
      h('h3', {}, 'Instruction'),
      detail.instruction.trim() === ''
        ? h('div', { class: 'note' }, '(empty instruction)')
        : pre(detail.instruction, 'instruction'),
      detail.injectionContent
        ? h('div', {}, h('h3', {}, 'Injected text'), pre(detail.injectionContent, 'injected'))
        : null,
      h('h3', {}, 'Judge'),
      verdictBox,
      judgmentTable,
      h(
        'p',
        { class: 'score' },
        'Evaluator score (result.txt): ',
        h('strong', { id: 'score' }, detail.score === null ? '–' : String(detail.score)),
      ),
      detail.cost === null
        ? null
        : h(
            'p',
            { class: 'cost' },
            'Model cost (run_usage.json, list price): ',
            h('strong', { id: 'cost' }, detail.cost),
          ),
      evidence,
      fidelity,
      warnings,
      detail.recording
        ? h(
            'section',
            {},
            h('h3', {}, 'Recording'),
            h('video', { src: detail.recording, controls: true, preload: 'none', class: 'video' }),
          )
        : null,
      detail.notes.length + detail.errors.length > 0
        ? h(
            'section',
            { class: 'notes' },
            h('h3', {}, 'Notes'),
            h(
              'ul',
              {},
              ...detail.errors.map(error => h('li', { class: 'error' }, `Error: ${error}`)),
              ...detail.notes.map(note => h('li', {}, note)),
            ),
          )
        : null,
      h(
        'details',
        { class: 'params' },
        h('summary', {}, 'Run settings (better_log.json params)'),
        h(
          'table',
          {},
          h(
            'tbody',
            {},
            ...detail.params.map(([key, value]) =>
              h('tr', {}, h('td', {}, key), h('td', {}, value)),
            ),
          ),
        ),
      ),
      h('h3', {}, `Steps (${detail.steps.length})`),
      ...detail.steps.map(step => renderStep(step, violation)),
      detail.final
        ? h(
            'section',
            { class: 'step final' },
            h(
              'header',
              {},
              h('h3', {}, 'Final state'),
              h('span', { class: 'file' }, detail.final.name),
            ),
            imageBlock(detail.final, `final: ${detail.final.name}`),
          )
        : null,
    ];
    panel.replaceChildren(...parts.filter((part): part is HTMLElement => part !== null));
    if (scrollTo !== undefined) byId(`step-${scrollTo}`)?.scrollIntoView({ block: 'start' });
  };

  return { renderDetail };
}
