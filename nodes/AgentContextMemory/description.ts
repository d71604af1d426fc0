// The memory sub-node's panel: Agent Context's own fields for prepare and persist, taken from its panel, not declared again.
import type { INodeProperties } from 'n8n-workflow';
import { agentContextProperties } from '../AgentContext/description';
import { agentContextOptions } from '../AgentContext/options';
import { conversationScopeFields, LAST_SHARED_MEMORY_VERSION } from '../AgentContext/scope';

/** Agent Context's fields the sub-node shows: where the history is, which session, and prepare's window. */
const FIELDS = [
	'storage',
	'memoryNotice',
	'sessionId',
	'window',
	'maxTurns',
	'historySize',
	'maxCharacters',
];

/** The Options that matter when prepare and persist run around one Agent Core run (no busy token to wire, no formats). */
const OPTIONS = [
	'archiveTtlSeconds',
	'busyTtlSeconds',
	'busyPolicy',
	'busyWaitSeconds',
	'keyPrefix',
	'maxTurnCharacters',
	'maxStoredTurns',
	'storeSteps',
	'storeUnanswered',
	'systemMessage',
	'ttlSeconds',
];

/** A field without its Operation and node-version conditions: the sub-node has no operation, and its own versions. */
function withoutOperation(property: INodeProperties): INodeProperties {
	const show = { ...(property.displayOptions?.show ?? {}) };
	delete show.operation;
	delete show['@version'];
	const rest = { ...property };
	delete rest.displayOptions;
	return Object.keys(show).length > 0 ? { ...rest, displayOptions: { show } } : rest;
}

/** Agent Context version 2's Window (every live turn; Agent Core fits them by tokens), not version 1's. */
const isVersionOneOnly = (property: INodeProperties): boolean =>
	JSON.stringify(property.displayOptions?.show?.['@version']) === '[1]';

export const agentContextMemoryProperties: INodeProperties[] = [
	{
		displayName:
			"Connect this to Agent Core's Memory input (version 2): it loads the session before the run and stores the turn after it. n8n's AI Agent cannot use it.",
		name: 'agentCoreNotice',
		type: 'notice',
		default: '',
	},
	...agentContextProperties
		.filter((property) => FIELDS.includes(property.name) && !isVersionOneOnly(property))
		.map(withoutOperation)
		// Conversation Scope after Session ID, with the sub-node's own versions (version 2: This Workflow).
		.flatMap((property) =>
			property.name === 'sessionId'
				? [property, ...conversationScopeFields(LAST_SHARED_MEMORY_VERSION)]
				: [property],
		),
	{
		...agentContextOptions,
		options: (agentContextOptions.options as INodeProperties[]).filter((option) =>
			OPTIONS.includes(option.name),
		),
	},
];
