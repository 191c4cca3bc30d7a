export { makeScreenshots } from './screenshots';
export {
  copyRealTrajectory,
  twoStepRun,
  writeFixtureTrajectory,
  writeTrajectory,
  type FixtureJudgment,
  type FixtureStep,
  type FixtureTrajectory,
  type TrajectoryOptions,
} from './write-trajectory';
