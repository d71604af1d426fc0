/**
 * The `redis_context` tool: small string values the model keeps between runs of one session
 * (get / set / append / delete / list), confined to that session's own key namespace in Redis.
 */
import { loadOnce } from '../core/load-once';
import type { RedisConnectionOptions } from '../redis/connection';
import { RedisContextError } from './redis-context-error';
import { legacySessionNamespace, sessionNamespace } from './redis-context-keys';
import type { JsonSchema } from '../validation/validate';
import type { Tool, ToolContext } from './tool';

export { legacySessionNamespace, sessionNamespace } from './redis-context-keys';

/** The call's way to Redis (its script, the shared client), loaded on the first call: the node panels read only the card. */
const call = loadOnce(
	() => require('./redis-context-call') as typeof import('./redis-context-call'),
);

export const REDIS_CONTEXT_OPERATIONS = ['get', 'set', 'append', 'delete', 'list'] as const;
export type RedisContextOperation = (typeof REDIS_CONTEXT_OPERATIONS)[number];

/** Args of one redis_context call (already validated against `redisContextParameters`). */
export interface RedisContextArgs {
	operation: RedisContextOperation;
	key?: string;
	value?: string;
}

/** `tool_settings.redis_context` after defaults are applied. */
export interface RedisContextSettings {
	connection: RedisConnectionOptions;
	keyPrefix: string;
	ttlSeconds: number;
	maxValueBytes: number;
	maxKeys: number;
}

export const DEFAULT_REDIS_CONTEXT_URL = 'redis://127.0.0.1:6379';
export const DEFAULT_REDIS_CONTEXT_KEY_PREFIX = 'agent_core:kv:';
export const DEFAULT_REDIS_CONTEXT_TTL_SECONDS = 86_400;
export const DEFAULT_REDIS_CONTEXT_MAX_VALUE_BYTES = 4096;
export const DEFAULT_REDIS_CONTEXT_MAX_KEYS = 100;
const KEY_PATTERN = '^[A-Za-z0-9_.:-]+$';
/** JSON Schema of the args; the descriptions are what the model reads. */
export const redisContextParameters: JsonSchema = {
	type: 'object',
	properties: {
		operation: {
			type: 'string',
			enum: [...REDIS_CONTEXT_OPERATIONS],
			description: "get, set (replace), append, delete one key, or list this session's keys.",
		},
		key: {
			type: 'string',
			minLength: 1,
			maxLength: 128,
			pattern: KEY_PATTERN,
			description: 'Key name (letters, digits, _ . : -); required except for list.',
		},
		value: {
			type: 'string',
			description: 'Text to store (set) or add to the end (append); only for set and append.',
		},
	},
	required: ['operation'],
	additionalProperties: false,
	allOf: [
		{
			if: {
				properties: { operation: { enum: ['get', 'set', 'append', 'delete'] } },
				required: ['operation'],
			},
			then: { required: ['key'] },
		},
		{
			if: { properties: { operation: { enum: ['set', 'append'] } }, required: ['operation'] },
			then: { required: ['value'] },
		},
	],
};

/** JSON Schema of `tool_settings.redis_context`. */
export const redisContextSettingsSchema: JsonSchema = {
	type: 'object',
	properties: {
		redis_url: {
			type: 'string',
			pattern: '^[Rr][Ee][Dd][Ii][Ss][Ss]?://',
			description: `redis://[user:password@]host[:port][/db] or rediss:// for TLS; default ${DEFAULT_REDIS_CONTEXT_URL}. Give this or connection, not both.`,
		},
		connection: {
			type: 'object',
			description:
				"Redis address as the node's Redis credential gives it; give this or redis_url, not both.",
			properties: {
				host: { type: 'string', minLength: 1 },
				port: { type: 'integer', minimum: 1, maximum: 65535 },
				username: { type: 'string' },
				password: { type: 'string' },
				db: { type: 'integer', minimum: 0 },
				tls: { type: 'boolean' },
			},
			additionalProperties: false,
		},
		key_prefix: {
			type: 'string',
			minLength: 1,
			maxLength: 200,
			description: `Prefix of every key this tool writes; default ${DEFAULT_REDIS_CONTEXT_KEY_PREFIX}.`,
		},
		ttl_seconds: {
			type: 'integer',
			minimum: 1,
			maximum: 31_536_000,
			description: `A session's values expire together this long after its last write; default ${DEFAULT_REDIS_CONTEXT_TTL_SECONDS}.`,
		},
		max_value_bytes: {
			type: 'integer',
			minimum: 1,
			maximum: 1_048_576,
			description: `Largest value in UTF-8 bytes (after an append too); default ${DEFAULT_REDIS_CONTEXT_MAX_VALUE_BYTES}.`,
		},
		max_keys: {
			type: 'integer',
			minimum: 1,
			maximum: 10_000,
			description: `Keys one session may hold; default ${DEFAULT_REDIS_CONTEXT_MAX_KEYS}.`,
		},
	},
	additionalProperties: false,
};

/** Applies defaults to an (already schema-validated) settings entry. */
export function readRedisContextSettings(raw: Record<string, unknown> = {}): RedisContextSettings {
	if (raw.redis_url !== undefined && raw.connection !== undefined) {
		throw new RedisContextError(
			'redis_context is misconfigured: tool_settings.redis_context gives both redis_url and connection; keep only one',
		);
	}
	const integer = (value: unknown, fallback: number) =>
		Number.isInteger(value) && (value as number) >= 1 ? (value as number) : fallback;
	const connection: RedisConnectionOptions =
		raw.connection && typeof raw.connection === 'object'
			? { ...(raw.connection as RedisConnectionOptions) }
			: { url: typeof raw.redis_url === 'string' ? raw.redis_url : DEFAULT_REDIS_CONTEXT_URL };
	return {
		connection,
		keyPrefix:
			typeof raw.key_prefix === 'string' && raw.key_prefix !== ''
				? raw.key_prefix
				: DEFAULT_REDIS_CONTEXT_KEY_PREFIX,
		ttlSeconds: integer(raw.ttl_seconds, DEFAULT_REDIS_CONTEXT_TTL_SECONDS),
		maxValueBytes: integer(raw.max_value_bytes, DEFAULT_REDIS_CONTEXT_MAX_VALUE_BYTES),
		maxKeys: integer(raw.max_keys, DEFAULT_REDIS_CONTEXT_MAX_KEYS),
	};
}

/** The `redis_context` tool. */
export const redisContextTool: Tool<RedisContextArgs> = {
	name: 'redis_context',
	description:
		'Remember small text values across runs of this conversation: set/append/get/delete a key, ' +
		'or list your keys. Values are private to this session and expire after a while.',
	parameters: redisContextParameters,
	// get and list read; set, append and delete write.
	sideEffects: (args: RedisContextArgs) => args.operation !== 'get' && args.operation !== 'list',
	settingsSchema: redisContextSettingsSchema,
	async execute(args: RedisContextArgs, context: ToolContext): Promise<string> {
		const settings = readRedisContextSettings(context.settings);
		const sessionId = context.sessionId;
		if (!sessionId)
			throw new RedisContextError(
				'redis_context needs a session: set Session ID on the Agent Core node (or --session in the CLI)',
			);
		checkArgs(args);
		const key = args.key ?? '';
		if (
			args.operation === 'set' &&
			Buffer.byteLength(args.value ?? '', 'utf8') > settings.maxValueBytes
		) {
			throw tooLarge(
				key,
				Buffer.byteLength(args.value ?? '', 'utf8'),
				settings.maxValueBytes,
				'set',
			);
		}
		const namespace = sessionNamespace(settings.keyPrefix, sessionId);
		const legacy = legacySessionNamespace(settings.keyPrefix, sessionId);
		const reply = await call().runSessionOperation(
			settings,
			{ operation: args.operation, namespace, legacy, key, value: args.value ?? '' },
			context.signal,
		);
		return renderReply(args, reply, settings);
	},
};

/** The schema requires key and value where needed; this refuses the leftovers it can not express clearly. */
function checkArgs(args: RedisContextArgs): void {
	if (args.operation === 'list' && args.key !== undefined) {
		throw new RedisContextError(
			'redis_context refused: list takes no key; remove "key" (list returns all keys of this session)',
		);
	}
	if (
		(args.operation === 'get' || args.operation === 'delete' || args.operation === 'list') &&
		args.value !== undefined
	) {
		throw new RedisContextError(
			`redis_context refused: ${args.operation} takes no value; remove "value" (only set and append store one)`,
		);
	}
}

function renderReply(
	args: RedisContextArgs,
	reply: unknown,
	settings: RedisContextSettings,
): string {
	const key = args.key ?? '';
	switch (args.operation) {
		case 'get':
			return typeof reply === 'string' ? reply : `(no value for key ${JSON.stringify(key)})`;
		case 'list':
			return JSON.stringify((Array.isArray(reply) ? reply.map(String) : []).sort());
		case 'delete':
			return Number(reply) > 0
				? `deleted ${JSON.stringify(key)}`
				: `(no value for key ${JSON.stringify(key)}; nothing deleted)`;
		default: {
			const [status, size] = Array.isArray(reply) ? [String(reply[0]), Number(reply[1])] : ['', 0];
			if (status === 'too_large') throw tooLarge(key, size, settings.maxValueBytes, args.operation);
			if (status === 'too_many_keys') {
				throw new RedisContextError(
					`redis_context refused: this session already holds ${size} keys (max_keys ${settings.maxKeys}); ` +
						'delete a key you no longer need, or overwrite an existing one',
				);
			}
			const verb = args.operation === 'append' ? 'appended to' : 'stored';
			const bytes = args.operation === 'append' ? `now ${size} bytes` : `${size} bytes`;
			return `${verb} ${JSON.stringify(key)} (${bytes}, expires in ${settings.ttlSeconds} s)`;
		}
	}
}

function tooLarge(
	key: string,
	size: number,
	maxBytes: number,
	operation: RedisContextOperation,
): RedisContextError {
	const what =
		operation === 'append'
			? `appending would make ${JSON.stringify(key)} ${size} bytes`
			: `the value is ${size} bytes`;
	return new RedisContextError(
		`redis_context refused: ${what}, over max_value_bytes (${maxBytes}); store less text, or split it over several keys`,
	);
}
