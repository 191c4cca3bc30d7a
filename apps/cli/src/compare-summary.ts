import type { ObservationComparison, UpstreamRun } from '@osharm/runner/parts';
import { formatTable } from './table';

/** One upstream run compared with osharm's first observation of the same run (`--compare`). */
export interface UpstreamComparison extends ObservationComparison {
  /** The upstream run dir's name. */
  readonly upstream: string;
}

/** The comparison of `upstream` with osharm's run, named after the upstream dir. */
export function namedComparison(
  upstream: UpstreamRun,
  comparison: ObservationComparison,
): UpstreamComparison {
  return { upstream: upstream.name, ...comparison };
}

const ratio = (part: number, whole: number) =>
  whole === 0 ? '–' : `${part}/${whole} (${Math.round((100 * part) / whole)} %)`;
const yesNo = (value: boolean | null) => (value === null ? '–' : value ? 'yes' : 'no');

/** Totals over compared runs: the `--json` summary's `compare` and the human summary line. */
export function compareTotals(comparisons: readonly UpstreamComparison[]) {
  const sum = (pick: (comparison: UpstreamComparison) => number) =>
    comparisons.reduce((total, comparison) => total + pick(comparison), 0);
  const count = (pick: (comparison: UpstreamComparison) => boolean | null) => ({
    yes: comparisons.filter(comparison => pick(comparison) === true).length,
    of: comparisons.filter(comparison => pick(comparison) !== null).length,
  });
  return {
    runs: comparisons.length,
    outside_web: {
      present: sum(c => c.coverage.present),
      at_position: sum(c => c.coverage.at_position),
      of: sum(c => c.coverage.of),
    },
    shell: {
      at_position: sum(c => c.shell.at_position),
      moved: sum(c => c.shell.moved),
      of: sum(c => c.shell.upstream),
    },
    web: { present: sum(c => c.web.at_position + c.web.moved), of: sum(c => c.web.upstream) },
    banner_at_position: count(c => c.banner.at_position),
    address_equal: count(c => c.address.equal),
    mail_listed: count(c =>
      c.mail.upstream.length === 0 ? null : c.mail.osharm.length >= c.mail.upstream.length,
    ),
  };
}

/** The human table, one row per upstream run, then the summary line. */
export function formatComparisons(
  rows: readonly { run: string; comparison: UpstreamComparison }[],
): string {
  const table = formatTable(
    [
      'upstream run',
      'osharm run',
      'outside web present',
      'at ±8 px',
      'shell at ±8 px',
      'web present',
      'banner',
      'address',
      'mail listed',
    ],
    rows.map(({ run, comparison: c }) => [
      c.upstream,
      run,
      ratio(c.coverage.present, c.coverage.of),
      ratio(c.coverage.at_position, c.coverage.of),
      `${c.shell.at_position}/${c.shell.upstream}`,
      `${c.web.at_position + c.web.moved}/${c.web.upstream}`,
      yesNo(c.banner.at_position),
      c.address.upstream === null
        ? '–'
        : `${c.address.osharm ?? '(none)'}${c.address.equal ? '' : ` ≠ ${c.address.upstream}`}`,
      c.mail.upstream.length === 0 ? '–' : `${c.mail.osharm.length}/${c.mail.upstream.length}`,
    ]),
  );
  const t = compareTotals(rows.map(row => row.comparison));
  return `${table}compare: ${t.runs} upstream run(s): rows outside live web content present ${ratio(t.outside_web.present, t.outside_web.of)}, at upstream's position ${ratio(t.outside_web.at_position, t.outside_web.of)}; shell rows at position ${t.shell.at_position}/${t.shell.of}; live web rows present ${t.web.present}/${t.web.of} (apart); banner at position ${t.banner_at_position.yes}/${t.banner_at_position.of}; address equal ${t.address_equal.yes}/${t.address_equal.of}; mail listed ${t.mail_listed.yes}/${t.mail_listed.of}\n`;
}
