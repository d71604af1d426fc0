// The redis_context tool's error for the model, apart from its call so that reading its settings loads no Redis client.

/** A refusal or failure whose message is already written for the model. */
export class RedisContextError extends Error {
	override name = 'RedisContextError';
}
