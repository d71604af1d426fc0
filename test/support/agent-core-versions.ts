// Agent Core's parameters between node versions 1 and 2, as a user sets the same settings on each (issue #28):
// the examples ship as version 2 (issue #41), and tests compare them with version 1.
import type { INodeParameters, INodeProperties } from 'n8n-workflow';
import { agentCoreProperties } from '../../nodes/AgentCore/V1/description';

const LIMIT_TO_BUDGETS = [
	'totalTokenBudget',
	'sharedBudgetTokens',
	'sharedBudgetScope',
	'sharedBudgetPeriod',
];
const VERSION_ONE_LIMITS = new Set(
	(
		agentCoreProperties.find((property) => property.name === 'limits')!.options as INodeProperties[]
	).map((property) => property.name),
);
/** Version 1's top-level fields that version 2 keeps under Options. */
const MOVED_INTO_OPTIONS = [
	'developerText',
	'sessionId',
	'toolSettingsJson',
	'workflowTools',
] as const;

const defined = (entries: Record<string, unknown>) =>
	Object.fromEntries(Object.entries(entries).filter(([, value]) => value !== undefined));

/**
 * Version 1's parameters as a user sets the same settings on version 2: the fields Options now holds moved
 * into it, Limits split into Options and Budgets, the batch fields into Batch Processing, Output Format → JSON
 * as Require Specific Output Format, Governance on when approval or audit is; what version 1 left at its
 * default stays explicit where version 2's default differs (Provider, Model).
 */
export function asVersionTwo(parameters: INodeParameters): INodeParameters {
	const { limits = {}, options = {}, operation, ...rest } = parameters as Record<string, any>;
	const moved = defined(Object.fromEntries(MOVED_INTO_OPTIONS.map((name) => [name, rest[name]])));
	const top = Object.fromEntries(
		Object.entries(rest).filter(
			([name]) => !(MOVED_INTO_OPTIONS as readonly string[]).includes(name),
		),
	);
	const { batchSize, delayBetweenBatches, outputFormat, ...otherOptions } = options;
	const budgets = Object.fromEntries(
		Object.entries(limits).filter(([name]) => LIMIT_TO_BUDGETS.includes(name)),
	);
	const limitOptions = Object.fromEntries(
		Object.entries(limits).filter(([name]) => !LIMIT_TO_BUDGETS.includes(name)),
	);
	const batching = defined({ batchSize, delayBetweenBatches });
	return {
		provider: 'openai',
		// A connected chat model needs no Model field.
		...(top.provider === 'connected' ? {} : { model: { __rl: true, mode: 'list', value: '' } }),
		...top,
		...(operation !== undefined ? { runOrResume: operation } : {}),
		...(top.needsApproval || top.auditTrail ? { governance: true } : {}),
		...(Object.keys(budgets).length ? { budgets } : {}),
		options: {
			...limitOptions,
			...otherOptions,
			...moved,
			...(Object.keys(batching).length ? { batching } : {}),
			...(outputFormat === 'json' ? { requireOutputFormat: true } : {}),
		},
	} as INodeParameters;
}

/** The reverse of asVersionTwo: a version 2 node's settings as version 1 takes them. */
export function asVersionOne(parameters: INodeParameters): INodeParameters {
	const {
		budgets = {},
		options = {},
		governance,
		runOrResume,
		...top
	} = parameters as Record<string, any>;
	const { batching = {}, requireOutputFormat, ...otherOptions } = options;
	const moved = defined(
		Object.fromEntries(MOVED_INTO_OPTIONS.map((name) => [name, otherOptions[name]])),
	);
	const rest = Object.entries(otherOptions).filter(
		([name]) => !(MOVED_INTO_OPTIONS as readonly string[]).includes(name),
	);
	const limits = {
		...Object.fromEntries(rest.filter(([name]) => VERSION_ONE_LIMITS.has(name))),
		...budgets,
	};
	void governance;
	return {
		...top,
		...moved,
		...(runOrResume !== undefined ? { operation: runOrResume } : {}),
		limits,
		options: {
			...Object.fromEntries(rest.filter(([name]) => !VERSION_ONE_LIMITS.has(name))),
			...batching,
			...(requireOutputFormat ? { outputFormat: 'json' } : {}),
		},
	} as INodeParameters;
}
