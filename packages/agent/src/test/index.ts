// @osharm/agent/test: test doubles of the agent's specs.
export { MockAgentModel } from './mock-agent-model';
export type { MockAgentAnswer, MockAgentModelSettings } from './mock-agent-model';
export {
  findParityPython,
  parityPythonEnv,
  TIKTOKEN_CL100K_SHA256,
  upstreamAgentRequests,
  upstreamJailbreak,
  writeTiktokenRanks,
} from './upstream-oracle';
export type { OracleAgentSpec, OracleStep } from './upstream-oracle';
