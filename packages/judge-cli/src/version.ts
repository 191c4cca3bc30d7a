// One version source: osharm's packages are released together (a changesets `fixed` group), and
// `--version` prints the version that judgment provenance records — @osharm/judge's.
export { VERSION } from '@osharm/judge';
