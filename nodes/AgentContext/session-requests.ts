// Agent Context's panel values → the requests of prepareSession and persistSession, read once for the node and its memory sub-node.
import type { IDataObject, IExecuteFunctions, IWorkflowNodeContext } from 'n8n-workflow';
import { InputError } from '../../src/run-path';
import {
	type BusyPolicy,
	type BusyOptions,
	DEFAULT_KEY_PREFIX,
	DEFAULT_MAX_STORED_TURNS,
	DEFAULT_MAX_TURNS,
	DEFAULT_TTL_SECONDS,
	type HistoryWindow,
	type PersistSessionRequest,
	resolveCharacterBudget,
} from '../../src/context';

/** What reading the panel needs of n8n: an execute context or a sub-node's supply-data context. */
export type PanelContext = IWorkflowNodeContext & Pick<IExecuteFunctions, 'getInputData'>;

const numberOption = (options: IDataObject, name: string): number | undefined =>
	typeof options[name] === 'number' ? (options[name] as number) : undefined;

/** The item's Options collection. */
export const optionsOf = (context: PanelContext, itemIndex: number): IDataObject =>
	context.getNodeParameter('options', itemIndex, {}) as IDataObject;

/** Options → Key Prefix, else the default. */
export const keyPrefixOf = (options: IDataObject): string =>
	typeof options.keyPrefix === 'string' ? options.keyPrefix : DEFAULT_KEY_PREFIX;

/** Options → Archive TTL when set. */
export const archiveOf = (options: IDataObject): { archiveTtlSeconds?: number } =>
	typeof options.archiveTtlSeconds === 'number'
		? { archiveTtlSeconds: options.archiveTtlSeconds }
		: {};

/**
 * Prepare's window and busy policy, from Window, Max Turns, History Size and the Options; `defaultPolicy` when
 * Busy Session is not set (Agent Context version 1: no lock; its version 2 and the memory sub-node: reject).
 */
export function prepareRequestOf(
	context: PanelContext,
	itemIndex: number,
	options: IDataObject,
	defaultPolicy: BusyPolicy,
): { window: Partial<HistoryWindow>; busy: BusyOptions } {
	const level = context.getNodeParameter('historySize', itemIndex, 'full') as string;
	const budget = resolveCharacterBudget(
		level === 'custom'
			? (context.getNodeParameter('maxCharacters', itemIndex, 0) as number)
			: level,
	);
	if (!budget.ok) throw new InputError('maxCharacters', budget.issues.join('; '));
	const window = context.getNodeParameter('window', itemIndex, 'lastTurns') as string;
	return {
		window: {
			maxTurns: context.getNodeParameter('maxTurns', itemIndex, DEFAULT_MAX_TURNS) as number,
			maxCharacters: budget.value,
			maxScannedTurns: numberOption(options, 'maxStoredTurns') || undefined,
			allLiveTurns: window === 'allLiveTurns',
		},
		busy: {
			policy:
				typeof options.busyPolicy === 'string' ? (options.busyPolicy as BusyPolicy) : defaultPolicy,
			ttlSeconds: numberOption(options, 'busyTtlSeconds'),
			waitSeconds: numberOption(options, 'busyWaitSeconds'),
		},
	};
}

/** Persist's bounds from the Options: stored turns and their size, TTLs, the system message, unanswered runs. */
export function persistRequestOf(
	options: IDataObject,
): Omit<PersistSessionRequest, 'sessionId' | 'messages' | 'steps' | 'busyToken'> {
	return {
		keyPrefix: keyPrefixOf(options),
		maxStoredTurns: numberOption(options, 'maxStoredTurns') ?? DEFAULT_MAX_STORED_TURNS,
		...(typeof options.maxTurnCharacters === 'number'
			? { maxTurnCharacters: options.maxTurnCharacters }
			: {}),
		storeUnanswered: options.storeUnanswered === true,
		ttlSeconds: numberOption(options, 'ttlSeconds') ?? DEFAULT_TTL_SECONDS,
		...archiveOf(options),
		...(typeof options.systemMessage === 'string' && options.systemMessage !== ''
			? { systemMessage: options.systemMessage }
			: {}),
	};
}
