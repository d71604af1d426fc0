// A sub-agent as its parent sees it (issue #52): a tool named after it, args {"task": string}, run by the parent's loop.
import type { ChatModel } from '../../providers/chat-model';
import type { Tool } from '../../tools/tool';
import type { ChatMessage } from '../../core/messages';
import type { AgentResult } from '../../trace/types';
import type { JsonSchema } from '../../validation/validate';
import { AGENT_NAME_PATTERN } from '../../settings/agent-settings';

/**
 * What marks a tool as a sub-agent: the loop runs it as a run of its own, never through `execute`. The run's setup
 * and its call path read it off the tool, so that a run without sub-agents calls nothing here (issue #49).
 */
export const SUB_AGENT = Symbol.for('agent-core.sub-agent');

/**
 * A sub-agent: its name (the tool's), what the parent's model reads, its own instructions and run config (the keys of
 * a run's config; `model` defaults to the parent's), and, from the library, its own model client and tools (absent:
 * the parent's client, and the parent's tools, of which its config's `allowed_tools` says which it may call).
 */
export interface SubAgentSpec {
	name: string;
	description: string;
	system?: string;
	config: Record<string, unknown>;
	model?: ChatModel;
	fallbackModel?: ChatModel;
	tools?: readonly Tool[];
	/** Its own conversation: loaded before each call, this call's turns saved after it (absent: each call starts fresh). */
	memory?: SubAgentMemory;
	/** Told of each call as it starts and ends, for a host's own log of calls (see SubAgentCallLog). */
	onCall?: SubAgentCallLog;
}

/**
 * A host's log of a sub-agent's calls (issue #52: n8n's Logs view nests the sub-agent's model and tool calls under a
 * run of the Agent Core Tool node, which only the node can make). Called with the task as each call starts; `end`
 * once as it ends: with what the parent reads (its answer, or that it waits for a person), or the error the parent
 * reads. It only listens: nothing it returns or throws changes the call.
 */
export type SubAgentCallLog = (task: string) => {
	end(ending: { response: string } | { error: string }): void;
};

/**
 * A sub-agent's own conversation (issue #52). `load(task)`: the conversation before this call (the run adds the task
 * after it). `save(turns, ending)`: exactly once for each `load`, once the call ended (never while it waits for a
 * person: a resumed call saves when it ends): its new turns, the run's `messages` (the task and, with an answer, the
 * answer with the turn's tool results) and its result; when the run could not run at all, the task alone and the error.
 */
export interface SubAgentMemory {
	load(task: string): Promise<ChatMessage[]>;
	save(
		turns: readonly ChatMessage[],
		ending: { result: AgentResult } | { error: unknown },
	): Promise<void>;
}

/** The one argument a sub-agent takes: the task, in words. */
export const TASK_SCHEMA: JsonSchema = {
	type: 'object',
	properties: {
		task: {
			type: 'string',
			minLength: 1,
			maxLength: 100_000,
			description:
				'The whole task for this agent, in words: it sees only this, not your conversation',
		},
	},
	required: ['task'],
	additionalProperties: false,
};

/** A tool that is a sub-agent: what the loop reads to run it. */
export type AgentTool = Tool<{ task: string }> & { readonly [SUB_AGENT]: SubAgentSpec };

/**
 * A sub-agent as a tool for `runAgent`'s `tools` (`extraTools`): it runs only when the run's `allowed_tools` names it,
 * as its own loop with its own tools and model, inside the parent's budget, and its final answer is the parent's
 * observation. Counts as read-only only when every tool it may call is (decided when the parent's config is checked).
 */
export function agentTool(spec: {
	name: string;
	description: string;
	config?: Record<string, unknown>;
	system?: string;
	model?: ChatModel;
	fallbackModel?: ChatModel;
	tools?: readonly Tool[];
	memory?: SubAgentMemory;
	onCall?: SubAgentCallLog;
}): AgentTool {
	if (typeof spec?.name !== 'string' || !new RegExp(AGENT_NAME_PATTERN).test(spec.name))
		throw new TypeError(
			`agentTool: name must be a tool name (a letter, then letters, digits, "_" or "-", at most 64), not ${JSON.stringify(spec?.name)}`,
		);
	if (typeof spec.description !== 'string' || spec.description.trim() === '')
		throw new TypeError(
			`agentTool ${spec.name}: description is required: what the parent model reads to decide when to call it`,
		);
	const { name, description } = spec;
	return {
		name,
		description,
		parameters: TASK_SCHEMA,
		// Until the parent's config is checked (configuredAgents), a sub-agent counts as changing things.
		sideEffects: true,
		async execute() {
			throw new Error(`${name} is a sub-agent: it runs only as a tool of an Agent Core run`);
		},
		[SUB_AGENT]: { ...spec, config: spec.config ?? {} },
	};
}

/** The sub-agent a tool is, or undefined for any other tool. */
export const subAgentOf = (tool: Tool | undefined): SubAgentSpec | undefined =>
	tool === undefined ? undefined : (tool as Partial<AgentTool>)[SUB_AGENT];
