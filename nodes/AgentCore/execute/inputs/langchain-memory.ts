// An n8n chat memory sub-node (Simple Memory, Redis / Postgres Chat Memory…) read as a MemoryInput, the way n8n's AI Agent reads it.
import type { AgentResult, ChatMessage } from '../../../../src/run-path';
import type { MemoryInput } from '../../../shared/memory-input';

/** One remembered tool call and what it returned, as Agent Core keeps it on an answer. */
type ToolResultMemory = NonNullable<ChatMessage['tool_results']>[number];

/**
 * What n8n's AI Agent calls on a memory (n8n 2.41.1, utils/agent-execution/memoryManagement.js): loadMemoryVariables
 * for `chat_history` before the run, saveContext({ input }, { output }) after it. Duck-typed, never `instanceof`:
 * the memory is built with n8n's own copy of LangChain, which this package does not ship.
 */
export interface LangChainChatMemory {
	loadMemoryVariables(values: Record<string, unknown>): Promise<Record<string, unknown>>;
	saveContext(input: Record<string, unknown>, output: Record<string, unknown>): Promise<void>;
	memoryKeys?: string[];
}

/** Whether a Memory input's value is a LangChain chat memory as n8n's memory sub-nodes supply it. */
export function isLangChainChatMemory(value: unknown): value is LangChainChatMemory {
	const memory = value as Partial<LangChainChatMemory> | null;
	return (
		typeof memory === 'object' &&
		memory !== null &&
		typeof memory.loadMemoryVariables === 'function' &&
		typeof memory.saveContext === 'function'
	);
}

/** A LangChain message as stored: its type from `_getType()`/`getType()`/`type`, its content and tool fields. */
interface LangChainMessage {
	_getType?: () => string;
	getType?: () => string;
	type?: string;
	content?: unknown;
	tool_calls?: Array<{ id?: string; name?: string; args?: unknown }>;
	tool_call_id?: string;
	name?: string;
}

const typeOf = (message: LangChainMessage): string =>
	(typeof message._getType === 'function'
		? message._getType()
		: typeof message.getType === 'function'
			? message.getType()
			: message.type) ?? '';

/** A message's text: a string as it is; of a part array the text parts, other parts (images…) named in brackets. */
function textOf(content: unknown): string {
	if (typeof content === 'string') return content;
	if (!Array.isArray(content))
		return content === undefined || content === null ? '' : JSON.stringify(content);
	return content
		.map((part: { type?: string; text?: unknown }) =>
			typeof part === 'string'
				? part
				: typeof part?.text === 'string'
					? part.text
					: `[${part?.type ?? 'part'}]`,
		)
		.join('\n');
}

const isObject = (value: unknown): value is Record<string, unknown> =>
	typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * LangChain messages as Agent Core's conversation: human → user, system → system, an AI answer → assistant.
 * The tool calls n8n's AI Agent saves (an AI message with `tool_calls`, then ToolMessages) become the next
 * answer's `tool_results`, so Agent Core replays them as data, never as the assistant's words; a tool call
 * with no answer after it (a turn cut by the memory's window) is left out, as n8n's cleanupOrphanedMessages does.
 */
export function chatMessagesFromLangChain(history: readonly unknown[]): ChatMessage[] {
	const messages: ChatMessage[] = [];
	let pending: ToolResultMemory[] = [];
	const calls = new Map<string, { tool: string; args: Record<string, unknown> }>();
	for (const raw of history) {
		if (!isObject(raw)) continue;
		const message = raw as LangChainMessage;
		const type = typeOf(message);
		if (type === 'human' || type === 'system') {
			pending = [];
			messages.push({
				role: type === 'human' ? 'user' : 'system',
				content: textOf(message.content),
			});
		} else if (type === 'ai' && message.tool_calls?.length) {
			for (const call of message.tool_calls)
				calls.set(String(call.id), {
					tool: String(call.name),
					args: isObject(call.args) ? call.args : {},
				});
		} else if (type === 'tool') {
			const call = calls.get(String(message.tool_call_id));
			pending.push({
				step: pending.length + 1,
				tool: call?.tool ?? String(message.name ?? 'tool'),
				args: call?.args ?? {},
				observation: textOf(message.content),
			});
		} else if (type === 'ai') {
			const { answer, used } = splitUsedTools(textOf(message.content));
			if (used)
				pending.push({ step: pending.length + 1, tool: 'used tools', args: {}, observation: used });
			messages.push({
				role: 'assistant',
				content: answer,
				...(pending.length ? { tool_results: pending } : {}),
			});
			pending = [];
		}
	}
	return messages;
}

const USED_TOOLS = '[Used tools: ';

/**
 * An answer saved in n8n's `[Used tools: …] answer` form, split so the tool results are replayed as data. The
 * split is at the last "] ": a tool result holding "] " can only move answer text into the data, never tool
 * output into the assistant's words.
 */
function splitUsedTools(content: string): { answer: string; used?: string } {
	const end = content.lastIndexOf('] ');
	if (!content.startsWith(USED_TOOLS) || end < USED_TOOLS.length) return { answer: content };
	return { answer: content.slice(end + 2), used: content.slice(USED_TOOLS.length, end) };
}

/**
 * The answer as saved with the turn's tool results: n8n's AI Agent's own form for a memory it cannot hand tool
 * messages to (`[Used tools: Tool: …, Input: …, Result: …] answer`), so the AI Agent reading the same memory
 * understands it. (Tool messages would need LangChain's classes of n8n's copy, which a community node cannot import.)
 */
export function answerWithToolResults(
	answer: string,
	toolResults: readonly ToolResultMemory[],
): string {
	if (toolResults.length === 0) return answer;
	const used = toolResults
		.map(
			(result) =>
				`Tool: ${result.tool}, Input: ${JSON.stringify(result.args)}, Result: ${result.observation}`,
		)
		.join('; ');
	return `${USED_TOOLS}${used}] ${answer}`;
}

/**
 * A LangChain chat memory as one item's MemoryInput. load: the memory's `chat_history` (or its one memory key),
 * then the prompt. save: the user's message and the final answer (with its tool results) through saveContext,
 * as n8n's AI Agent saves; a run without an answer (failed, limited, awaiting approval) saves nothing, as n8n's.
 */
export function langChainMemoryInput(memory: LangChainChatMemory, label: string): MemoryInput {
	return {
		label,
		async load({ prompt }) {
			const variables = await memory.loadMemoryVariables({});
			const key = memory.memoryKeys?.length === 1 ? memory.memoryKeys[0] : 'chat_history';
			const history = variables[key] ?? [];
			if (!Array.isArray(history))
				throw new Error(
					`its "${key}" is text, not messages: set the memory to return messages (n8n's memory sub-nodes do)`,
				);
			return {
				messages: [...chatMessagesFromLangChain(history), { role: 'user', content: prompt }],
			};
		},
		async save({ result }) {
			const turn = savedTurn(result);
			if (turn) await memory.saveContext({ input: turn.input }, { output: turn.output });
		},
	};
}

/** The turn a finished run saves: its user message and its answer, or nothing when the run gave no answer. */
function savedTurn(result: AgentResult | undefined): { input: string; output: string } | undefined {
	if (!result || result.finish_reason !== 'final') return undefined;
	const user = [...result.messages].reverse().find((message) => message.role === 'user');
	const answer = result.messages[result.messages.length - 1];
	if (!user || answer?.role !== 'assistant') return undefined;
	return {
		input: user.content,
		output: answerWithToolResults(answer.content, answer.tool_results ?? []),
	};
}
