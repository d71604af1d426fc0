// Agent Context's operations for one item: panel values → the conversation functions of src/context → the output item.
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { InputError, type TraceStep } from '../../src';
import {
	type BusyPolicy,
	compactSteps,
	type ContextStore,
	DEFAULT_KEY_PREFIX,
	DEFAULT_MAX_STORED_TURNS,
	DEFAULT_MAX_TURNS,
	DEFAULT_TTL_SECONDS,
	forkSession,
	listSession,
	persistSession,
	prepareSession,
	type ProviderFormats,
	resolveCharacterBudget,
	rewindSession,
	sessionStoreKey,
	toProviderFormats,
} from '../../src/context';
import { readField } from '../shared/default-expressions';
import { busyTokenOf } from './busy-token';

export type Operation = 'prepare' | 'persist' | 'clear' | 'get' | 'list' | 'fork' | 'rewind';

const numberOption = (options: IDataObject, name: string): number | undefined =>
	typeof options[name] === 'number' ? (options[name] as number) : undefined;

/** The busy policy of this node: Options → Busy Session, else version 2's default (reject) or version 1's (no lock). */
function busyPolicyOf(context: IExecuteFunctions, options: IDataObject): BusyPolicy {
	if (typeof options.busyPolicy === 'string') return options.busyPolicy as BusyPolicy;
	return context.getNode().typeVersion >= 2 ? 'reject' : 'off';
}

async function prepare(
	context: IExecuteFunctions,
	store: ContextStore,
	itemIndex: number,
	address: { sessionId: unknown; keyPrefix: string },
	options: IDataObject,
): Promise<IDataObject> {
	const level = context.getNodeParameter('historySize', itemIndex, 'full') as string;
	const budget = resolveCharacterBudget(
		level === 'custom'
			? (context.getNodeParameter('maxCharacters', itemIndex, 0) as number)
			: level,
	);
	if (!budget.ok) throw new InputError('maxCharacters', budget.issues.join('; '));
	const window = context.getNodeParameter('window', itemIndex, 'lastTurns') as string;
	const prepared = await prepareSession(store, {
		...address,
		window: {
			maxTurns: context.getNodeParameter('maxTurns', itemIndex, DEFAULT_MAX_TURNS) as number,
			maxCharacters: budget.value,
			maxScannedTurns: numberOption(options, 'maxStoredTurns') || undefined,
			allLiveTurns: window === 'allLiveTurns',
		},
		userMessage: readField(context, 'userMessage', itemIndex, '') as string | undefined,
		busy: {
			policy: busyPolicyOf(context, options),
			ttlSeconds: numberOption(options, 'busyTtlSeconds'),
			waitSeconds: numberOption(options, 'busyWaitSeconds'),
		},
	});
	const formats = (options.providerFormats as Array<keyof ProviderFormats> | undefined) ?? [];
	const all = formats.length ? toProviderFormats(prepared.messages_json) : undefined;
	return {
		...context.getInputData()[itemIndex].json,
		...prepared,
		...(all ? { formats: Object.fromEntries(formats.map((name) => [name, all[name]])) } : {}),
	} as unknown as IDataObject;
}

async function persist(
	context: IExecuteFunctions,
	store: ContextStore,
	itemIndex: number,
	address: { sessionId: unknown; keyPrefix: string },
	options: IDataObject,
): Promise<IDataObject> {
	const item = context.getInputData()[itemIndex];
	const trace = item.json.trace as TraceStep[] | undefined;
	const busyToken = busyTokenOf(context, itemIndex, options);
	const result = await persistSession(store, {
		...address,
		messages: readField(context, 'messages', itemIndex),
		maxStoredTurns: numberOption(options, 'maxStoredTurns') ?? DEFAULT_MAX_STORED_TURNS,
		...(typeof options.maxTurnCharacters === 'number'
			? { maxTurnCharacters: options.maxTurnCharacters }
			: {}),
		storeUnanswered: options.storeUnanswered === true,
		ttlSeconds: numberOption(options, 'ttlSeconds') ?? DEFAULT_TTL_SECONDS,
		...(typeof options.archiveTtlSeconds === 'number'
			? { archiveTtlSeconds: options.archiveTtlSeconds }
			: {}),
		...(typeof options.systemMessage === 'string' && options.systemMessage !== ''
			? { systemMessage: options.systemMessage }
			: {}),
		...(options.storeSteps && Array.isArray(trace) ? { steps: compactSteps(trace) } : {}),
		...(busyToken ? { busyToken } : {}),
	});
	// The agent's output passes through, so a Respond to Webhook node after persist still sees final_answer.
	return { ...item.json, context: result } as unknown as IDataObject;
}

/** One item of `operation`: its output item's json. */
export async function runOperation(
	context: IExecuteFunctions,
	store: ContextStore,
	operation: Operation,
	itemIndex: number,
): Promise<IDataObject> {
	const options = context.getNodeParameter('options', itemIndex, {}) as IDataObject;
	const address = {
		sessionId: readField(context, 'sessionId', itemIndex, ''),
		keyPrefix: typeof options.keyPrefix === 'string' ? options.keyPrefix : DEFAULT_KEY_PREFIX,
	};
	const archive =
		typeof options.archiveTtlSeconds === 'number'
			? { archiveTtlSeconds: options.archiveTtlSeconds }
			: {};
	switch (operation) {
		case 'prepare':
			return await prepare(context, store, itemIndex, address, options);
		case 'persist':
			return await persist(context, store, itemIndex, address, options);
		case 'list':
			return (await listSession(store, address)) as unknown as IDataObject;
		case 'fork': {
			const toSessionId = context.getNodeParameter('toSessionId', itemIndex, '');
			const atTurn = context.getNodeParameter('turn', itemIndex, 1);
			return (await forkSession(store, {
				...address,
				...archive,
				toSessionId,
				atTurn,
				ttlSeconds: numberOption(options, 'ttlSeconds') ?? DEFAULT_TTL_SECONDS,
			})) as unknown as IDataObject;
		}
		case 'rewind':
			return (await rewindSession(store, {
				...address,
				...archive,
				toTurn: context.getNodeParameter('turn', itemIndex, 0),
			})) as unknown as IDataObject;
		case 'clear': {
			const { sessionId, key } = sessionStoreKey(address);
			return { session_id: sessionId, ...(await store.clear(key)) };
		}
		case 'get': {
			const { sessionId, key } = sessionStoreKey(address);
			const snapshot = await store.get(key);
			return {
				session_id: sessionId,
				turns: snapshot.turns,
				stored_turns: snapshot.turns.length,
				skipped_corrupt: snapshot.skippedCorrupt,
				system_message: snapshot.systemMessage ?? null,
				ttl_seconds: snapshot.ttlSeconds,
			} as unknown as IDataObject;
		}
	}
}
