import type { INodeProperties } from 'n8n-workflow';
import {
	DEFAULT_MAX_HISTORY_CHARACTERS,
	DEFAULT_MAX_TURNS,
	HISTORY_CHARACTER_LEVELS,
} from '../../src/panel';
import { agentContextOptions } from './options';
import { conversationScopeFields, LAST_SHARED_CONTEXT_VERSION } from './scope';

const onlyFor = (...operation: string[]) => ({ show: { operation } });

/** The window's choices; version 1 nodes start with the newest turns, version 2 with every live turn (Agent Core fits them by tokens). */
const WINDOW_CHOICES = [
	{
		name: 'All Live Turns (Agent Core Fits Them by Tokens)',
		value: 'allLiveTurns',
		description:
			"Every stored turn (up to Max Stored Turns and History Size), with the session's summary; Agent Core's History Over Budget fits them to the model",
	},
	{
		name: 'Newest Turns',
		value: 'lastTurns',
		description: 'The newest Max Turns turns, within History Size',
	},
];

/**
 * The description of "Agent Context Tool", the variant n8n makes of every usableAsTool node: an AI agent reads or
 * manages a stored conversation by itself. Prepare and Persist are the pair around Agent Core, not a model's calls.
 */
export const AGENT_CONTEXT_TOOL_DESCRIPTION =
	'Lets an AI agent look into or manage a stored conversation (Get, List Turns, Fork, Rewind, Clear); ' +
	"Agent Core's history goes through Prepare and Persist in the main flow";

/**
 * The operations, the pair everyone needs first (prepare before Agent Core, persist after it), then the others by name.
 * A named list, as WINDOW_CHOICES: n8n's lint sorts an inline options list by name, and its scanner ignores
 * eslint-disable comments. Each operation has one name, and its action and description start with that name's verb.
 */
const OPERATION_CHOICES = [
	{
		name: 'Prepare',
		value: 'prepare',
		action: 'Prepare the history for Agent Core',
		description:
			"Prepare (before Agent Core): load the session's history and the new message as messages_json",
	},
	{
		name: 'Persist',
		value: 'persist',
		action: 'Persist the agent turn',
		description:
			"Persist (after Agent Core): save this run's user message and answer to the session",
	},
	{
		name: 'Clear',
		value: 'clear',
		action: 'Clear a session',
		description: 'Clear the session: delete its history',
	},
	{
		name: 'Fork',
		value: 'fork',
		action: 'Fork a session at a turn',
		description:
			"Fork: a new session holding this session's turns up to Turn; this one is untouched",
	},
	{
		name: 'Get',
		value: 'get',
		action: 'Get a session',
		description: 'Get the stored history as it is, for inspection',
	},
	{
		name: 'List Turns',
		value: 'list',
		action: 'List the turns of a session',
		description:
			"List the session's turns in order: number, time, sizes, and whether each is live, summarised or rewound",
	},
	{
		name: 'Rewind',
		value: 'rewind',
		action: 'Rewind a session to a turn',
		description:
			'Rewind: later turns move to the archive (kept until its TTL); the conversation goes on from Turn',
	},
];

/**
 * Session ID's default: session_id from a webhook body or an earlier Agent Context node; sessionId from the Chat
 * Trigger and Chat Hub.
 */
export const SESSION_ID_DEFAULT =
	'={{ $json.session_id ?? $json.body?.session_id ?? $json.sessionId }}';

/** Panel of the Agent Context node: prepare → Agent Core → persist, plus clear, get, list, fork and rewind. */
export const agentContextProperties: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		options: OPERATION_CHOICES,
		default: 'prepare',
	},
	{
		displayName: 'Storage',
		name: 'storage',
		type: 'options',
		noDataExpression: true,
		options: [
			{
				name: 'Redis',
				value: 'redis',
				description: 'Shared by every n8n process and worker; survives restarts',
			},
			{
				name: 'In-Memory (This Process Only)',
				value: 'memory',
				description:
					'Kept in this n8n process: not shared between n8n instances or queue-mode workers; lost on restart',
			},
		],
		default: 'memory',
		description:
			'Where the history is kept: Redis in production; Prepare and Persist of one conversation must use the same',
	},
	{
		displayName:
			'In-memory history lives in this n8n process only: restarts lose it, and in queue mode it is refused (workers do not share it). Use Redis in production.',
		name: 'memoryNotice',
		type: 'notice',
		default: '',
		displayOptions: { show: { storage: ['memory'] } },
	},
	{
		displayName: 'Session ID',
		name: 'sessionId',
		type: 'string',
		default: SESSION_ID_DEFAULT,
		required: true,
		description:
			"The conversation this item belongs to: by default the session_id the webhook caller sends, or the Chat Trigger's sessionId",
	},
	...conversationScopeFields(LAST_SHARED_CONTEXT_VERSION),
	{
		displayName: 'User Message',
		name: 'userMessage',
		type: 'string',
		typeOptions: { rows: 2 },
		default: '={{ $json.chatInput ?? $json.body?.prompt ?? $json.prompt }}',
		description:
			"The new message to answer (by default the Chat Trigger's chatInput or a webhook " +
			"body's prompt); appended to messages_json after the history. Leave empty to " +
			'emit the history only.',
		displayOptions: onlyFor('prepare'),
	},
	{
		displayName: 'Messages',
		name: 'messages',
		type: 'json',
		default: '={{ $json.messages }}',
		required: true,
		description: 'The new turns to store: the "messages" field of the Agent Core output',
		displayOptions: onlyFor('persist'),
	},
	{
		displayName: 'New Session ID',
		name: 'toSessionId',
		type: 'string',
		default: '',
		required: true,
		description: 'The session the fork creates; refused if it exists',
		displayOptions: onlyFor('fork'),
	},
	{
		displayName: 'Turn',
		name: 'turn',
		type: 'number',
		typeOptions: { minValue: 0 },
		default: 1,
		required: true,
		description:
			'The last turn kept (its number, as List Turns shows it): Fork copies the turns up to it, Rewind moves the later ones to the archive (0: all)',
		displayOptions: onlyFor('fork', 'rewind'),
	},
	{
		displayName: 'Window',
		name: 'window',
		type: 'options',
		options: WINDOW_CHOICES,
		default: 'lastTurns',
		description: 'Which stored turns prepare hands to Agent Core',
		displayOptions: { show: { operation: ['prepare'], '@version': [1] } },
	},
	{
		displayName: 'Window',
		name: 'window',
		type: 'options',
		options: WINDOW_CHOICES,
		default: 'allLiveTurns',
		description: 'Which stored turns prepare hands to Agent Core',
		displayOptions: { show: { operation: ['prepare'], '@version': [{ _cnd: { gte: 2 } }] } },
	},
	{
		displayName: 'Max Turns',
		name: 'maxTurns',
		type: 'number',
		typeOptions: { minValue: 0 },
		default: DEFAULT_MAX_TURNS,
		description: 'Newest turns (one request and its answer) given to the agent; 0 = no turn limit',
		displayOptions: { show: { operation: ['prepare'], window: ['lastTurns'] } },
	},
	{
		displayName: 'History Size',
		name: 'historySize',
		type: 'options',
		options: [
			{
				name: 'Full',
				value: 'full',
				description: `Every turn within Max Turns, up to ${DEFAULT_MAX_HISTORY_CHARACTERS} characters (Custom sets more)`,
			},
			{
				name: 'Normal',
				value: 'normal',
				description: `${HISTORY_CHARACTER_LEVELS.normal} characters`,
			},
			{
				name: 'Compact',
				value: 'compact',
				description: `${HISTORY_CHARACTER_LEVELS.compact} characters`,
			},
			{
				name: 'Minimal',
				value: 'minimal',
				description: `${HISTORY_CHARACTER_LEVELS.minimal} characters`,
			},
			{ name: 'Custom', value: 'custom', description: 'Max Characters, set below' },
		],
		default: 'full',
		description:
			'Character budget of the history; whole turns are dropped from the oldest, never split',
		displayOptions: onlyFor('prepare'),
	},
	{
		displayName: 'Max Characters',
		name: 'maxCharacters',
		type: 'number',
		typeOptions: { minValue: 0 },
		default: 8000,
		description: `Character budget of the history (0: the default, ${DEFAULT_MAX_HISTORY_CHARACTERS})`,
		displayOptions: { show: { operation: ['prepare'], historySize: ['custom'] } },
	},
	agentContextOptions,
];
