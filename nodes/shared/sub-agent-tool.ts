// The contract between the Agent Core Tool node and Agent Core as its parent (issue #52): the sub-agent on its tool.
import type { SubAgentSpec } from '../../src/run-path';

/**
 * The field of the tool object an Agent Core Tool node supplies that holds its sub-agent (name, description, system
 * message, config, the models and tools of its own inputs). n8n hands a tool sub-node's supplyData response to the
 * parent as it is (n8n-core's getInputConnectionData), so Agent Core on the Tool input's other end finds it and runs
 * the node's agent as its own sub-agent (agentTool: inside the parent's budget and depth, its steps as `sub_run` under
 * the call) instead of calling the tool; any other parent (n8n's AI Agent) sees a tool and never reads the field. A
 * plain string key rather than the library's SUB_AGENT symbol: that symbol marks an engine Tool, this a LangChain one.
 */
export const SUB_AGENT_FIELD = 'agentCoreSubAgent';

/** A supplied tool that is an Agent Core Tool node's sub-agent. */
export type SuppliedSubAgent = { [SUB_AGENT_FIELD]: SubAgentSpec };

/** The sub-agent a connected tool carries, or undefined for any other tool. */
export function suppliedSubAgent(tool: unknown): SubAgentSpec | undefined {
	if (typeof tool !== 'object' || tool === null || !(SUB_AGENT_FIELD in tool)) return undefined;
	return (tool as SuppliedSubAgent)[SUB_AGENT_FIELD];
}
