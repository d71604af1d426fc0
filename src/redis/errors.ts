/** Errors of the Redis-backed stores and tools, and of their connection settings. */
import { AgentCoreError, correctValueFix } from '../core/agent-core-error';

/** Why a store operation against its backend failed; `configuration`: the settings cannot work with this Redis (nothing was sent). */
export type RedisFailure =
	| 'unreachable'
	| 'timeout'
	| 'authentication'
	| 'command'
	| 'configuration';

/** The fix of a failed Redis, naming the connection settings as a surface calls them (the node's credential, the CLI's --redis-url). */
const redisFix = (connection: string) =>
	`Nothing was written. Check ${connection} and that Redis is running.`;

/** The backend (Redis) failed or did not answer in time. Nothing was half-written. `field` is always `redis`. */
export class RedisError extends AgentCoreError {
	override readonly name = 'RedisError';
	/** `fix` names the connection settings as a surface calls them; by default: check them and that Redis runs. */
	constructor(
		message: string,
		readonly details: {
			failure: RedisFailure;
			/** `host:port` of the backend, never with credentials. */
			address: string;
			operation: string;
			cause?: unknown;
		},
		private readonly fixFor: (connection: string) => string = redisFix,
	) {
		super(message, {
			field: 'redis',
			fix: fixFor('the Redis connection settings'),
			cause: details.cause,
		});
	}

	/** The fix names the connection settings, not the field: `name` is what a surface calls them. */
	override fixNaming(name: string): string {
		return this.fixFor(name);
	}
}

/** A session key, turn or option given to the store is not acceptable; `field` names which, `issues` say why. */
export class InvalidContextInputError extends AgentCoreError {
	override readonly name = 'InvalidContextInputError';
	constructor(
		field: string,
		readonly issues: string[],
	) {
		super(`Invalid ${field}: ${issues.join('; ')}`, {
			field,
			fix: correctValueFix(field),
			fixInMessage: true,
		});
	}
}
