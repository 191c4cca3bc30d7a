// @osharm/report/internal: NOT a public API. Glue the report shares with apps/cli (the `osharm
// report` format choices, the `osharm agreement` text and its unmatched-label check). It may change
// in any release, patch releases included; it is for @osharm packages only. User code imports
// `@osharm/report`.
export { REPORT_FORMATS } from './build-report';
export { formatObserverAgreement } from './observer-agreement-text';
export { unmatchedLabels } from './label-matching';
