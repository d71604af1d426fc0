// What a sub-node on Agent Core's Memory input (version 2) gives one item's run: the conversation before it, the turn saved after.
import type { AgentResult, ChatMessage } from '../../src/run-path';

/**
 * One item's memory, opened from whatever the Memory input carries: an n8n chat memory sub-node (Simple Memory,
 * Redis Chat Memory, Postgres Chat Memory…, read as n8n's AI Agent reads them) or Agent Context's memory sub-node
 * (the Redis store, long memory, busy-session policy and branches of prepare/persist, without the two nodes).
 */
export interface MemoryInput {
	/** Shown in errors and notices: the sub-node's name on the canvas. */
	readonly label: string;
	/**
	 * The run's conversation: the earlier turns, then the user's new message `prompt`. Throws an error that names
	 * the sub-node and the fix (a busy session, an unreachable store) before any model call.
	 */
	load(turn: { prompt: string; itemIndex: number }): Promise<{ messages: ChatMessage[] }>;
	/**
	 * After a finished run: saves the turn (the final answer and the tool results Agent Core remembers, from
	 * `result.messages`). Called exactly once for every successful `load`, also when the run failed or
	 * paused (`result` then may be undefined), so a busy session is released; and once, without a `load`, when
	 * a run resumed after approval finishes (its conversation comes from the signed run state).
	 */
	save(turn: { itemIndex: number; result?: AgentResult; error?: unknown }): Promise<void>;
	/**
	 * For a sub-agent's Memory input (the Agent Core Tool, issue #52): this memory keeping the sub-agent's turns under
	 * its session plus `suffix` while its Session ID is at its default (the conversation's session, its parent's too),
	 * or itself when someone set the Session ID. Absent: the Agent Core Tool decides from the sub-node's parameters.
	 */
	forSubAgent?(suffix: string): MemoryInput;
}

/**
 * The brand Agent Context's memory sub-node puts on what its supplyData returns, so Agent Core uses it as a
 * MemoryInput (checked where a Memory input is read: isAgentContextMemory in
 * nodes/AgentCore/execute/inputs/connected-memory.ts). Its key keeps the name it was first published with.
 */
export const AGENT_CONTEXT_MEMORY = Symbol.for('n8n-nodes-agent-core.run-memory');
