// Version 2's Memory input: the sub-node connected to it, opened as one item's MemoryInput, and the run's conversation from it.
import {
	NodeConnectionTypes,
	type IDataObject,
	type IExecuteFunctions,
	type INodeParameters,
} from 'n8n-workflow';
import type { AgentResult, ChatMessage } from '../../../../src/run-path';
import { nodeError } from '../../../shared/node-errors';
import { AGENT_CONTEXT_MEMORY, type MemoryInput } from '../../../shared/memory-input';
import { isLangChainChatMemory, langChainMemoryInput } from './langchain-memory';

/** What reads a Memory input: Agent Core's execute, or the Agent Core Tool's supplyData and execute. */
type MemoryReader = Pick<
	IExecuteFunctions,
	'getInputConnectionData' | 'getNode' | 'getParentNodes'
>;

/** The sub-node on the Memory input, with its parameters, for its name in errors ("Memory" when n8n does not say). */
function memoryNode(context: MemoryReader): { name: string; parameters?: INodeParameters } {
	const parents =
		context.getParentNodes?.(context.getNode().name, {
			connectionType: NodeConnectionTypes.AiMemory,
			depth: 1,
			includeNodeParameters: true,
		}) ?? [];
	return parents[0] ?? { name: 'Memory' };
}

/** What a value is, in a few words, for the error of a Memory input carrying something unknown. */
function describeValue(value: unknown): string {
	if (value === null || typeof value !== 'object')
		return `a ${value === null ? 'null' : typeof value}`;
	const name = (value as object).constructor?.name;
	return name && name !== 'Object'
		? `a ${name}`
		: `an object with ${Object.keys(value).slice(0, 5).join(', ') || 'no fields'}`;
}

/**
 * The item's memory: undefined when nothing is connected (or on version 1, which has no Memory input); Agent
 * Context's memory sub-node as it is; an n8n chat memory (LangChain) wrapped as n8n's AI Agent reads it.
 * Simple Memory keeps its turns in this n8n process: n8n does not refuse it in queue mode either (its panel
 * warns), so neither does Agent Core; docs/memory.md says to use Redis or Postgres Chat Memory there.
 */
export async function openConnectedMemory(
	context: IExecuteFunctions,
	itemIndex: number,
	version: 1 | 2,
): Promise<MemoryInput | undefined> {
	if (version < 2) return undefined;
	const connected = await connectedMemory(context, itemIndex);
	return connected && memoryInputOf(context, itemIndex, connected.value, connected.node.name);
}

/**
 * What the Memory input carries for the item, with the sub-node it comes from (its name and parameters), or undefined
 * when nothing is connected.
 */
export async function connectedMemory(
	context: MemoryReader,
	itemIndex: number,
): Promise<{ value: unknown; node: ReturnType<typeof memoryNode> } | undefined> {
	const connected = await context
		.getInputConnectionData(NodeConnectionTypes.AiMemory, itemIndex)
		.catch((error: Error) => {
			// Nothing connected: the input is optional; used as a tool, the node has no Memory input at all.
			if (
				/no (input|node).*connected|is not connected|does not have input of type/i.test(
					error.message,
				)
			)
				return undefined;
			throw error;
		});
	const value = Array.isArray(connected) ? connected[0] : connected;
	if (value === undefined || value === null) return undefined;
	return { value, node: memoryNode(context) };
}

/**
 * Whether a Memory input's value is Agent Context's memory sub-node rather than a LangChain memory: its supplyData
 * (called for the item, so it resolves its own Session ID) returns a MemoryInput carrying the brand.
 */
export function isAgentContextMemory(
	value: unknown,
): value is MemoryInput & { [AGENT_CONTEXT_MEMORY]: true } {
	return typeof value === 'object' && value !== null && AGENT_CONTEXT_MEMORY in value;
}

/** A Memory input's value as a MemoryInput, or an error naming the sub-node when it is no chat memory. */
export function memoryInputOf(
	context: MemoryReader,
	itemIndex: number,
	value: unknown,
	label: string,
): MemoryInput {
	if (isAgentContextMemory(value)) return value;
	if (isLangChainChatMemory(value)) return langChainMemoryInput(value, label);
	throw nodeError(
		context,
		`The Memory input carries ${describeValue(value)} from "${label}", which is not a chat memory`,
		itemIndex,
		"Connect one of n8n's chat memory sub-nodes (Simple Memory, Redis Chat Memory, Postgres Chat Memory…) or Agent Context's memory.",
	);
}

/**
 * The run's conversation from the memory: the earlier turns and the prompt. Input = Messages brings its own
 * conversation, and an item from Agent Context's prepare its `messages_json`: with a memory too, the history
 * would come from two places, so the node says which to remove instead of dropping one silently.
 */
export async function loadMemoryInput(
	context: IExecuteFunctions,
	itemIndex: number,
	memory: MemoryInput,
	input: { inputMode: string; prompt: string | undefined; json: IDataObject | undefined },
): Promise<{ messages: ChatMessage[] }> {
	if (input.inputMode !== 'prompt')
		throw nodeError(
			context,
			`Input is "Messages" and "${memory.label}" is connected to the Memory input: the history would come from both`,
			itemIndex,
			'Set Input to "Prompt" so the memory supplies the history, or disconnect the memory.',
		);
	if (Array.isArray(input.json?.messages_json))
		throw nodeError(
			context,
			`The item carries Agent Context prepare's messages_json and "${memory.label}" is connected to the Memory input: the history would come from both`,
			itemIndex,
			'Remove Agent Context prepare/persist around this node (the memory loads and saves the turns), or disconnect the memory.',
		);
	const prompt = input.prompt ?? '';
	if (prompt.trim() === '')
		throw nodeError(
			context,
			'Prompt is empty',
			itemIndex,
			'Map the chat message (e.g. {{ $json.chatInput }}) into Prompt.',
		);
	try {
		return await memory.load({ prompt, itemIndex });
	} catch (error) {
		// A memory that says how to fix it (Agent Context's: a busy session, a missing credential) keeps its words.
		const fix = (error as { description?: unknown }).description;
		throw nodeError(
			context,
			`"${memory.label}" on the Memory input could not load the history: ${(error as Error).message}`,
			itemIndex,
			typeof fix === 'string' && fix
				? fix
				: `Fix "${memory.label}" (its connection or Session ID) or disconnect it from the Memory input; no model was called.`,
		);
	}
}

/**
 * Runs the item's agent and saves its turn exactly once: after the run, whatever it ended with (an answer, a limit,
 * a failure, a pause for approval; the memory decides what of it to keep). A resumed run saves when it finishes:
 * its paused run saved no answer, so the turn is written once. A save that fails after a run fails the item, naming
 * the memory; after a failed run, the run's error is the one reported.
 */
export async function runSavingTurn(
	context: IExecuteFunctions,
	itemIndex: number,
	memory: MemoryInput | undefined,
	run: () => Promise<AgentResult>,
): Promise<AgentResult> {
	if (!memory) return await run();
	const result = await run().catch(async (error: unknown) => {
		await memory.save({ itemIndex, error }).catch(() => undefined);
		throw error;
	});
	try {
		await memory.save({ itemIndex, result });
	} catch (error) {
		throw nodeError(
			context,
			`"${memory.label}" on the Memory input could not save the turn: ${(error as Error).message}`,
			itemIndex,
			`The run finished but its turn is not in "${memory.label}": fix its connection and run the item again.`,
		);
	}
	return result;
}
