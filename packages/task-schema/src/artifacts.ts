// @osharm/task-schema/artifacts: the files around a run that are not the trajectory itself —
// judgments and batch results, fidelity and setup-warning records — plus the tools that write and
// print them: atomic/artifact writers, Python-compatible JSON, secret redaction, control-char
// escaping, and the JSON Schema export.

// judgments and batch results
export {
  batchResultsFileName,
  batchResultsSchema,
  judgmentRelativePath,
  judgmentSchema,
  judgmentTypeDir,
  rateSchema,
} from './judgment-schema';
export type { BatchResults, Judgment, RateValue } from './judgment-schema';
export { judgmentProvenanceSchema, PROVENANCE_KEY } from './judgment-provenance';
export type { JudgmentProvenance } from './judgment-provenance';

// setup warnings and the fidelity record
export {
  SETUP_WARNINGS_FILE,
  setupDownloadSchema,
  setupWarningSchema,
  setupWarningsSchema,
  setupWindowWaitSchema,
} from './setup-warnings-schema';
export type {
  SetupDownloadEntry,
  SetupWarningEntry,
  SetupWarnings,
  SetupWindowWaitEntry,
} from './setup-warnings-schema';
export { FIDELITY_FILE, fidelityRecordSchema, VSCODE_KINDS } from './fidelity-schema';
export type { FidelityRecord, FidelityWarning } from './fidelity-schema';
export { fidelityRecord, liveWebUrls, requiredApps } from './fidelity';
export type { FidelityInput } from './fidelity';
export { providerIdSchema } from './fidelity-provider';
export type { FidelityDesktop } from './fidelity-provider';

// writing and printing
export {
  readTruncatedTransfers,
  recordTruncatedTransfer,
  TRUNCATED_TRANSFERS_FILE,
  truncatedTransfersSchema,
} from './truncated-transfers';
export type { TruncatedTransfer } from './truncated-transfers';
export { toPythonJson } from './python-json';
export { writeFileAtomic } from './atomic-write';
export { writeArtifact } from './artifact-write';
export { REDACTED, redactSecrets, registerSecret } from './secrets';
export { escapeControlChars } from './control-chars';
export { generateJsonSchemas } from './json-schema';
