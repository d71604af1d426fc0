// The Agent Core Tool's Memory input (issue #52): the sub-agent's own conversation, kept apart from its parent's.
import type { IExecuteFunctions, INodeParameters, ISupplyDataFunctions } from 'n8n-workflow';
import type { ChatMessage, SubAgentMemory } from '../../../src/run-path';
import { connectedMemory, memoryInputOf } from '../../AgentCore/execute/inputs/connected-memory';
import { isLangChainChatMemory } from '../../AgentCore/execute/inputs/langchain-memory';
import { nodeError } from '../../shared/node-errors';
import type { MemoryInput } from '../../shared/memory-input';
import { inProcessTurns } from './in-process-turns';

/** An object whose session key is a string field `sessionId`, read at each call (LangChain's stored chat histories). */
type Keyed = { sessionId: string };
const isKeyed = (value: unknown): value is Keyed =>
	typeof value === 'object' && value !== null && typeof (value as Keyed).sessionId === 'string';

/**
 * The sub-agent `name`'s conversation from the item's Memory input, or undefined when nothing is connected. n8n's
 * chat memory sub-nodes take their session from their own Session ID: at its default (Connected Chat Trigger Node) it
 * is the conversation's session, the parent's too, so the sub-agent's turns are kept under `<session>:<name>`; a
 * Session ID set to Define below is used as it is. Agent Context's memory decides the same from its own Session ID.
 */
export async function openSubAgentMemory(
	context: IExecuteFunctions | ISupplyDataFunctions,
	itemIndex: number,
	name: string,
): Promise<SubAgentMemory | undefined> {
	const reader = context as IExecuteFunctions;
	const connected = await connectedMemory(reader, itemIndex);
	if (!connected) return undefined;
	const { value, node } = connected;
	const input = memoryInputOf(reader, itemIndex, value, node.name);
	const suffix = `:${name}`;
	if (input.forSubAgent) return asSubAgentMemory(input.forSubAgent(suffix), itemIndex, name);
	if (!isLangChainChatMemory(value) || sessionDefined(node.parameters))
		return asSubAgentMemory(input, itemIndex, name);
	const history = (value as { chatHistory?: unknown }).chatHistory;
	// n8n builds a new history for each supplyData call (Redis, Postgres, MongoDB…): re-keying it touches no one else's.
	const keyed = isKeyed(history) ? history : isKeyed(value) ? value : undefined;
	if (keyed) {
		keyed.sessionId = `${keyed.sessionId}${suffix}`;
		return asSubAgentMemory(input, itemIndex, name);
	}
	// Simple Memory: one buffer per session in this n8n process, its key out of reach; the turns are kept beside it.
	if (typeof history === 'object' && history !== null) {
		const window = (value as { k?: unknown }).k;
		const turns = inProcessTurns(history, name, typeof window === 'number' ? window : 5);
		return asSubAgentMemory({ ...turns, label: node.name }, itemIndex, name);
	}
	// The fix in the message as well: n8n reports a sub-node's error to its parent with the message alone.
	const fix = `set its Session ID to "Define below" with a key of its own, e.g. {{ $json.sessionId }}:${name}`;
	throw nodeError(
		reader,
		`"${node.name}" on ${name}'s Memory input cannot keep ${name}'s conversation apart from its parent's: ${fix}`,
		itemIndex,
		`${fix[0].toUpperCase()}${fix.slice(1)}.`,
	);
}

/** Whether someone set the memory sub-node's Session ID (n8n's "Define below"), rather than leaving it at the conversation's. */
const sessionDefined = (parameters: INodeParameters | undefined) =>
	parameters?.sessionIdType === 'customKey';

/** A MemoryInput as a sub-agent's memory: the history before the task, and one save per load naming the memory on failure. */
function asSubAgentMemory(input: MemoryInput, itemIndex: number, name: string): SubAgentMemory {
	const where = `"${input.label}" on ${name}'s Memory input`;
	const named = (what: string) => (error: unknown) => {
		throw new Error(`${where} could not ${what}: ${(error as Error).message}`);
	};
	return {
		async load(task) {
			const { messages } = await input
				.load({ prompt: task, itemIndex })
				.catch(named('load the history'));
			const last: ChatMessage | undefined = messages[messages.length - 1];
			return last?.role === 'user' && last.content === task ? messages.slice(0, -1) : messages;
		},
		async save(_turns, ending) {
			await input.save({ itemIndex, ...ending }).catch(named('save the turn'));
		},
	};
}
