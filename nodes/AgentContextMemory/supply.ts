// What the memory sub-node supplies: a MemoryInput whose load is Agent Context's prepare and whose save is its persist.
import {
	NodeOperationError,
	type IDataObject,
	type ISupplyDataFunctions,
	type SupplyData,
} from 'n8n-workflow';
import {
	compactSteps,
	type ContextStore,
	persistSession,
	prepareSession,
	releaseSession,
	type SessionAddress,
} from '../../src/context';
import {
	keyPrefixOf,
	optionsOf,
	persistRequestOf,
	prepareRequestOf,
} from '../AgentContext/session-requests';
import { SESSION_ID_DEFAULT } from '../AgentContext/description';
import { LAST_SHARED_MEMORY_VERSION } from '../AgentContext/scope';
import { scopeOf } from '../AgentContext/scope-of';
import { openContextStore } from '../shared/context-store';
import { readField } from '../shared/items';
import { toNodeError } from '../shared/node-errors';
import { AGENT_CONTEXT_MEMORY, type MemoryInput } from '../shared/memory-input';

/** A load not yet saved: where it was, what was asked, and the session's lock it holds. */
interface OpenTurn {
	address: SessionAddress;
	options: IDataObject;
	prompt: string;
	busyToken?: string;
}

const LANGCHAIN_MISUSE =
	"Agent Context Memory works only on Agent Core's Memory input (version 2); it is not a LangChain memory. " +
	"For n8n's AI Agent, connect Simple Memory or Redis Chat Memory instead.";

/** The MemoryInput of one supplyData call; `open` holds its unsaved loads, for the execution's end. */
export function agentContextMemoryInput(
	context: ISupplyDataFunctions,
	store: ContextStore,
	open = new Map<number, OpenTurn>(),
	sessionSuffix = '',
): MemoryInput & { [AGENT_CONTEXT_MEMORY]: true } {
	const fail = (error: unknown, itemIndex: number) => toNodeError(context, error, itemIndex);
	const turnOf = (itemIndex: number, prompt: string): OpenTurn => {
		const options = optionsOf(context, itemIndex);
		const session = readField(context, 'sessionId', itemIndex, '');
		// An empty Session ID stays empty, so prepare still says it is missing.
		const named = (typeof session === 'string' && session !== '') || typeof session === 'number';
		const address = {
			sessionId: named && sessionSuffix ? `${session}${sessionSuffix}` : session,
			keyPrefix: keyPrefixOf(options),
			...scopeOf(context, itemIndex, LAST_SHARED_MEMORY_VERSION),
		};
		return { address, options, prompt };
	};
	return {
		[AGENT_CONTEXT_MEMORY]: true,
		label: context.getNode().name,
		async load({ prompt, itemIndex }) {
			if (open.has(itemIndex)) {
				throw new NodeOperationError(
					context.getNode(),
					`item ${itemIndex} was loaded twice without a save`,
					{ itemIndex },
				);
			}
			try {
				const turn = turnOf(itemIndex, prompt);
				const prepared = await prepareSession(store, {
					...turn.address,
					...prepareRequestOf(context, itemIndex, turn.options, 'reject'),
					userMessage: prompt,
				});
				open.set(itemIndex, { ...turn, busyToken: prepared.busy_token });
				return { messages: prepared.messages_json };
			} catch (error) {
				throw fail(error, itemIndex);
			}
		},
		async save({ itemIndex, result }) {
			// A resumed run (approved after a pause) saves without a load: its paused run let go of the session.
			let turn: OpenTurn | undefined;
			try {
				turn = open.get(itemIndex) ?? (result ? turnOf(itemIndex, '') : undefined);
			} catch (error) {
				throw fail(error, itemIndex);
			}
			if (!turn) return;
			open.delete(itemIndex);
			// A run that failed before it had an output still asked its question: persist stores it only as unanswered.
			const messages = result?.messages?.length
				? result.messages
				: [{ role: 'user', content: turn.prompt }];
			try {
				await persistSession(store, {
					...persistRequestOf(turn.options),
					...turn.address,
					messages,
					...(turn.options.storeSteps && Array.isArray(result?.trace)
						? { steps: compactSteps(result.trace) }
						: {}),
					...(turn.busyToken ? { busyToken: turn.busyToken } : {}),
				});
			} catch (error) {
				throw fail(error, itemIndex);
			}
		},
		forSubAgent(suffix) {
			// A sub-agent supplies this memory to no one else: its turns keep the same open loads, let go at the end.
			const raw = context.getNodeParameter('sessionId', 0, SESSION_ID_DEFAULT, {
				rawExpressions: true,
			});
			return raw === SESSION_ID_DEFAULT
				? agentContextMemoryInput(context, store, open, sessionSuffix + suffix)
				: this;
		},
		// n8n's AI Agent and other LangChain readers call these: a sentence instead of "is not a function".
		...Object.fromEntries(
			['loadMemoryVariables', 'saveContext', 'clear'].map((name) => [
				name,
				async () => {
					throw new NodeOperationError(context.getNode(), LANGCHAIN_MISUSE);
				},
			]),
		),
	};
}

/**
 * supplyData for one item: opens the store (Redis: closed when the execution ends; In-Memory: refused in queue
 * mode) and returns the MemoryInput. A load whose save never came has its session's lock let go at the end.
 */
export async function supplyAgentContextMemory(
	context: ISupplyDataFunctions,
	itemIndex: number,
): Promise<SupplyData> {
	let opened: Awaited<ReturnType<typeof openContextStore>>;
	try {
		opened = await openContextStore(context);
	} catch (error) {
		throw toNodeError(context, error, itemIndex);
	}
	const { store, memory } = opened;
	const open = new Map<number, OpenTurn>();
	return {
		response: agentContextMemoryInput(context, store, open),
		closeFunction: async () => {
			for (const turn of open.values()) {
				if (turn.busyToken)
					await releaseSession(store, turn.address, turn.busyToken).catch(() => undefined);
			}
			open.clear();
			if (!memory) await store.close();
		},
	};
}
