// Sub-agents (issue #52): another Agent Core run as a tool of this one, inside its budget, under its calls.
export {
	agentTool,
	subAgentOf,
	SUB_AGENT,
	TASK_SCHEMA,
	type AgentTool,
	type SubAgentCallLog,
	type SubAgentMemory,
	type SubAgentSpec,
} from './agent-tool';
export { childConfig, configAgentTools, configuredAgents } from './configure-agents';
export { rememberedRun } from './remembered-run';
export {
	AGENT_DEPTH,
	AGENT_RESUME,
	type ChildPause,
	type ChildResume,
	childLimits,
	depthOf,
	runSubAgent,
	type AgentDepth,
	type SubAgentOutcome,
	type SubAgentParent,
} from './run-sub-agent';
