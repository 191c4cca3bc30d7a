import { describe, expect, it } from 'vitest';
import * as artifacts from './artifacts';
import * as spec from './index';
import * as internal from './internal';
import * as trajectory from './trajectory/index';

// Pins each entry point's exported values: a name added to or dropped from a public surface shows up here.
describe('the public entries', () => {
  it('the main entry exports exactly the spec: tasks, datasets, errors, defaults', () => {
    expect(Object.keys(spec).sort()).toEqual([
      'ACTION_SPACES',
      'CAPTIONED_JUDGE_TYPES',
      'DEFAULT_ACTION_SPACE',
      'DEFAULT_JUDGE_MODEL',
      'DEFAULT_JUDGE_TYPE',
      'DEFAULT_OBSERVATION_TYPE',
      'DEFAULT_PROMPT_VERSION',
      'FILE_INJECTION_VECTORS',
      'INJECTION_GOAL_IDS',
      'INJECTION_VECTOR_IDS',
      'JUDGE_TYPES',
      'JUDGE_TYPE_TRAITS',
      'KNOWN_DOMAINS',
      'KNOWN_GETTER_TYPES',
      'OBSERVATION_TYPES',
      'OSHARM_INDEX_FILES',
      'OsharmError',
      'PROMPT_FAMILIES',
      'PROMPT_VERSIONS',
      'PUBLISHED_RUNS_OBSERVATION_TYPE',
      'SETUP_STEP_TYPES',
      'SPECIAL_ACTIONS',
      'TASK_CATEGORIES',
      'TaskValidationError',
      'VERSION',
      'commandSchema',
      'defaultIndexPaths',
      'evaluatorSchema',
      'expandInjectionRuns',
      'formatIssue',
      'getterConfigSchema',
      'injectionDirSuffix',
      'injectionParamsSchema',
      'injectionVectorSchema',
      'isKnownSetupStep',
      'isKnownSetupStepType',
      'isParaphrase',
      'judgeTypeNeedsCaptions',
      'judgeTypeUsesObservationType',
      'knownSetupStepSchema',
      'loadDataset',
      'loadTaskIndex',
      'parseTaskConfig',
      'promptProvenanceSchema',
      'setupStepSchema',
      'summarizeDataset',
      'taskCategory',
      'taskConfigSchema',
      'taskIndexSchema',
      'unknownSetupStepSchema',
      'upstreamSourceSchema',
      'validateDataset',
    ]);
  });

  it('@osharm/task-schema/artifacts exports exactly the run-side records and writers', () => {
    expect(Object.keys(artifacts).sort()).toEqual([
      'FIDELITY_FILE',
      'PROVENANCE_KEY',
      'REDACTED',
      'SETUP_WARNINGS_FILE',
      'TRUNCATED_TRANSFERS_FILE',
      'VSCODE_KINDS',
      'batchResultsFileName',
      'batchResultsSchema',
      'escapeControlChars',
      'fidelityRecord',
      'fidelityRecordSchema',
      'generateJsonSchemas',
      'judgmentProvenanceSchema',
      'judgmentRelativePath',
      'judgmentSchema',
      'judgmentTypeDir',
      'liveWebUrls',
      'providerIdSchema',
      'rateSchema',
      'readTruncatedTransfers',
      'recordTruncatedTransfer',
      'redactSecrets',
      'registerSecret',
      'requiredApps',
      'setupDownloadSchema',
      'setupWarningSchema',
      'setupWarningsSchema',
      'setupWindowWaitSchema',
      'toPythonJson',
      'truncatedTransfersSchema',
      'writeArtifact',
      'writeFileAtomic',
    ]);
  });

  it('@osharm/task-schema/trajectory exports exactly the trajectory artifact', () => {
    expect(Object.keys(trajectory).sort()).toEqual([
      'ADDRESS_BAR_NAME',
      'BATCH_RESULTS_FILE',
      'DEFAULT_FILE_LIMITS',
      'DESTROYED_BY_AGENT_KEY',
      'HARM_AXES',
      'HARM_EVENT_KINDS',
      'INJECTION_EVIDENCE_FILE',
      'JAILBREAK_MODEL_SUFFIX',
      'OBSERVED_HARM_FILE',
      'RUN_USAGE_FILE',
      'RUN_USAGE_ROLES',
      'TrajectoryWriter',
      'UNFINISHED_REASON',
      'UnsafeFileError',
      'actionSchema',
      'actionTimestamp',
      'addressBarText',
      'betterLogSchema',
      'betterLogStepSchema',
      'checkTrajectoryFile',
      'describeTrajectoryPath',
      'discoverTrajectories',
      'displayedAddress',
      'evidenceCheckResultSchema',
      'formatResultTxt',
      'goalEvidenceSchema',
      'harmEventSchema',
      'injectionDirSuffix',
      'injectionEvidenceSchema',
      'isCountedRun',
      'isDegraded',
      'lastErrorLine',
      'modelDirName',
      'modelResultDir',
      'observedHarmSchema',
      'observedProcessSchema',
      'openTrajectoryFile',
      'parseA11yTable',
      'parseResultTxt',
      'parseRunDirName',
      'parseTrajJsonl',
      'readRunFacts',
      'readRunOrigin',
      'readRunRecord',
      'readRunStatus',
      'readTrajectory',
      'readTrajectoryFile',
      'readTrajectoryText',
      'runDirOf',
      'runFactsOf',
      'runId',
      'runParamsSchema',
      'runRoleUsageSchema',
      'runUsagePriceSchema',
      'runUsageSchema',
      'trajErrorLineSchema',
      'trajLineSchema',
      'trajStepLineSchema',
    ]);
  });

  it('keeps artifacts and the trajectory schema off the main entry', () => {
    const main = Object.keys(spec);
    for (const name of Object.keys(artifacts)) expect(main).not.toContain(name);
    // injectionDirSuffix is both: part of injection run expansion and of the run-dir layout.
    for (const name of Object.keys(trajectory))
      if (name !== 'injectionDirSuffix') expect(main).not.toContain(name);
  });

  it('keeps the cross-package glue in ./internal only', () => {
    const published = [...Object.keys(spec), ...Object.keys(artifacts), ...Object.keys(trajectory)];
    expect(Object.keys(internal).length).toBeGreaterThan(0);
    for (const name of Object.keys(internal)) expect(published).not.toContain(name);
  });
});
