// One version source: `osharm --version` prints the version judgment provenance records
// (@osharm/judge's, through @osharm/judge-cli); the packages are released together (a changesets
// `fixed` group), so it is also this app's.
export { VERSION } from '@osharm/judge-cli';
