// Agent Context's operations for one item: panel values → the conversation functions of src/context → the output item.
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import type { TraceStep } from '../../src/run-path';
import {
	compactSteps,
	type ContextStore,
	forkSession,
	listSession,
	persistSession,
	prepareSession,
	type ProviderFormats,
	rewindSession,
	sessionStoreKey,
	type SessionAddress,
	toProviderFormats,
} from '../../src/context';
import { readField } from '../shared/items';
import { busyTokenOf } from './busy-token';
import { LAST_SHARED_CONTEXT_VERSION } from './scope';
import { scopeOf } from './scope-of';
import {
	archiveOf,
	keyPrefixOf,
	optionsOf,
	persistRequestOf,
	prepareRequestOf,
} from './session-requests';

export type Operation = 'prepare' | 'persist' | 'clear' | 'get' | 'list' | 'fork' | 'rewind';

async function prepare(
	context: IExecuteFunctions,
	store: ContextStore,
	itemIndex: number,
	address: SessionAddress,
	options: IDataObject,
): Promise<IDataObject> {
	const prepared = await prepareSession(store, {
		...address,
		...prepareRequestOf(
			context,
			itemIndex,
			options,
			context.getNode().typeVersion >= 2 ? 'reject' : 'off',
		),
		userMessage: readField(context, 'userMessage', itemIndex, '') as string | undefined,
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
	address: SessionAddress,
	options: IDataObject,
): Promise<IDataObject> {
	const item = context.getInputData()[itemIndex];
	const trace = item.json.trace as TraceStep[] | undefined;
	const busyToken = busyTokenOf(context, itemIndex, options);
	const result = await persistSession(store, {
		...persistRequestOf(options),
		...address,
		messages: readField(context, 'messages', itemIndex),
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
	const options = optionsOf(context, itemIndex);
	const address = {
		sessionId: readField(context, 'sessionId', itemIndex, ''),
		keyPrefix: keyPrefixOf(options),
		...scopeOf(context, itemIndex, LAST_SHARED_CONTEXT_VERSION),
	};
	const archive = archiveOf(options);
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
				ttlSeconds: persistRequestOf(options).ttlSeconds,
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
