// @osharm/agent/test: test doubles of the agent's specs.
export { MockAgentModel } from './mock-agent-model';
export type { MockAgentAnswer, MockAgentModelSettings } from './mock-agent-model';
