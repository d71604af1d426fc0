// Agent Context's Options collection: storage bounds, the archive, and what happens to a second message while a run is busy.
import type { INodeProperties } from 'n8n-workflow';
import {
	DEFAULT_ARCHIVE_TTL_SECONDS,
	DEFAULT_BUSY_TTL_SECONDS,
	DEFAULT_BUSY_WAIT_SECONDS,
	DEFAULT_KEY_PREFIX,
	DEFAULT_MAX_STORED_TURNS,
	DEFAULT_MAX_TURN_CHARACTERS,
	DEFAULT_TTL_SECONDS,
} from '../../src/panel';

/** The Options collection, in the panel's alphabetical order. */
export const agentContextOptions: INodeProperties = {
	displayName: 'Options',
	name: 'options',
	type: 'collection',
	placeholder: 'Add Option',
	default: {},
	options: [
		{
			displayName: 'Archive TTL (Seconds)',
			name: 'archiveTtlSeconds',
			type: 'number',
			typeOptions: { minValue: 0 },
			default: DEFAULT_ARCHIVE_TTL_SECONDS,
			description:
				'Turns a summary replaced or a rewind moved aside are kept this long after the archive last changed, for audit, fork and rewind; 0 = never expire',
		},
		{
			displayName: 'Busy Lock From Prepare',
			name: 'busyLock',
			type: 'string',
			default: '',
			description:
				"Persist: the busy_token field of prepare's output, for when persist cannot find " +
				'it itself (it reads it from the item of the Agent Context prepare node before ' +
				'it that this item is paired with)',
		},
		{
			displayName: 'Busy Lock TTL (Seconds)',
			name: 'busyTtlSeconds',
			type: 'number',
			typeOptions: { minValue: 1 },
			default: DEFAULT_BUSY_TTL_SECONDS,
			description:
				"Prepare: how long the session's lock lasts if persist never lets go of it (the run failed in between). Set it at least to Agent Core's timeout.",
		},
		{
			displayName: 'Busy Session',
			name: 'busyPolicy',
			type: 'options',
			options: [
				{
					name: 'Allow Overlapping Runs (No Lock)',
					value: 'off',
					description:
						"Version 1's behaviour: both runs answer and both turns are stored, neither seeing the other's",
				},
				{
					name: 'Latest Message Wins',
					value: 'latest',
					description:
						"The later message takes the session over; the earlier run's persist stores nothing and says so",
				},
				{
					name: 'Reject',
					value: 'reject',
					description:
						'Fail at once: "session … is busy with another run; try again when it answered"',
				},
				{
					name: 'Wait',
					value: 'wait',
					description:
						'Wait for the earlier run to be stored (at most Busy Wait), then go on with its turn in the history',
				},
			],
			default: 'reject',
			description:
				'Prepare: what a second message does while a run is still answering the session (new nodes: Reject; version 1 nodes: Allow Overlapping Runs)',
		},
		{
			displayName: 'Busy Wait (Seconds)',
			name: 'busyWaitSeconds',
			type: 'number',
			typeOptions: { minValue: 0 },
			default: DEFAULT_BUSY_WAIT_SECONDS,
			description: 'Prepare with Busy Session → Wait: the longest wait before the busy error',
		},
		{
			displayName: 'Key Prefix',
			name: 'keyPrefix',
			type: 'string',
			default: DEFAULT_KEY_PREFIX,
			description: 'Prefix of the Redis keys (and memory entries) of this history',
		},
		{
			displayName: 'Max Stored Turn Size',
			name: 'maxTurnCharacters',
			type: 'number',
			typeOptions: { minValue: 100 },
			default: DEFAULT_MAX_TURN_CHARACTERS,
			description:
				'Persist: characters one turn (question, answer and its tool results) keeps; longer messages are cut with a visible marker',
		},
		{
			displayName: 'Max Stored Turns',
			name: 'maxStoredTurns',
			type: 'number',
			typeOptions: { minValue: 1 },
			default: DEFAULT_MAX_STORED_TURNS,
			description: 'Persist keeps at most this many newest turns per session',
		},
		{
			displayName: 'Provider Formats',
			name: 'providerFormats',
			type: 'multiOptions',
			options: [
				{
					name: 'OpenAI',
					value: 'openai',
					description: 'Chat Completions messages (role, content)',
				},
				{
					name: 'Gemini',
					value: 'gemini',
					description: 'Gemini contents (role user or model, parts)',
				},
				{
					name: 'Anthropic',
					value: 'anthropic',
					description: 'Messages API messages, the system message apart',
				},
			],
			default: [],
			description: "Prepare: also emit the conversation in these providers' own formats",
		},
		{
			displayName: 'Store Steps',
			name: 'storeSteps',
			type: 'boolean',
			default: false,
			description:
				'Whether persist also keeps a compact record of the agent steps (tool names, errors, timings) from the "trace" field',
		},
		{
			displayName: 'Store Unanswered Question',
			name: 'storeUnanswered',
			type: 'boolean',
			default: false,
			description:
				'Whether persist also stores a run that ended without an answer (a limit, an ' +
				'error), marked as unanswered: kept for Get, never replayed to the model. Off: ' +
				'such a run stores nothing.',
		},
		{
			displayName: 'System Message',
			name: 'systemMessage',
			type: 'string',
			default: '',
			description:
				"Persist: store or replace the session's system message; it is always kept by prepare",
		},
		{
			displayName: 'TTL (Seconds)',
			name: 'ttlSeconds',
			type: 'number',
			typeOptions: { minValue: 0 },
			default: DEFAULT_TTL_SECONDS,
			description:
				'The session expires this long after its last persist (a fork: after it was made); 0 = never',
		},
	],
};
