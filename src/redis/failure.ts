// Redis failures in words: the errors of a deadline, an unconfirmed write and a client never ready, and one RedisError for any of them.
import { RedisError, type RedisFailure } from './errors';

/**
 * An operation as a whole (with a cluster client's retries during a failover) did not complete within its
 * deadline; a write may or may not have been applied (each write carries an id, so sending it again is safe).
 */
export class DeadlineError extends Error {
	override readonly name = 'DeadlineError';
	constructor(readonly deadlineMs: number) {
		super(`not completed within ${deadlineMs} ms`);
	}
}

/** A write was applied on a cluster master, but no replica confirmed it in time (see confirmWrite). */
export class ReplicaUnconfirmedError extends Error {
	override readonly name = 'ReplicaUnconfirmedError';
	constructor(readonly waitMs: number) {
		super(`no replica confirmed the write within ${waitMs} ms`);
	}
}

/** The client did not get ready within `timeoutMs` (see waitUntilReady); `lastError` is the failure seen meanwhile, if any. */
export class ReadyTimeoutError extends Error {
	override readonly name = 'ReadyTimeoutError';
	constructor(
		readonly timeoutMs: number,
		readonly socketNeverOpened: boolean,
		readonly lastError: unknown,
	) {
		super(`not ready within ${timeoutMs} ms`);
	}
}

/** Node's codes for a TLS peer whose certificate does not verify (tls.TLSSocket's authorizationError). */
const TLS_CERTIFICATE_CODES = new Set([
	'SELF_SIGNED_CERT_IN_CHAIN',
	'DEPTH_ZERO_SELF_SIGNED_CERT',
	'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
	'UNABLE_TO_GET_ISSUER_CERT',
	'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
	'CERT_HAS_EXPIRED',
	'CERT_NOT_YET_VALID',
	'ERR_TLS_CERT_ALTNAME_INVALID',
]);

/** What ioredis says (in the first line of its message) when the connection or the cluster is gone. */
const CONNECTION_GONE_PHRASES = [
	'Connection is closed',
	"Stream isn't writeable",
	'enableOfflineQueue',
	'None of startup nodes is available',
	'Failed to refresh slots cache',
	'Cluster is ended',
	"Cluster isn't ready",
];

/** Turns any ioredis failure into one sentence naming Redis, the address and what to check. */
export function describeRedisFailure(
	error: unknown,
	address: string,
	operation: string,
): RedisError {
	if (error instanceof RedisError) return error;
	const fail = (failure: RedisFailure, message: string): RedisError =>
		new RedisError(message, { failure, address, operation, cause: error });
	if (error instanceof ReadyTimeoutError) {
		if (error.lastError) return describeRedisFailure(error.lastError, address, operation);
		if (error.socketNeverOpened) {
			return fail(
				'unreachable',
				`Redis at ${address} is unreachable (no connection within ${error.timeoutMs} ms); check the Redis credential's host and port`,
			);
		}
		return fail(
			'timeout',
			`Redis at ${address} accepted the connection but was not ready within ${error.timeoutMs} ms; ` +
				`check the Redis credential's host, port and TLS setting`,
		);
	}
	if (error instanceof DeadlineError) {
		return new RedisError(
			`Redis at ${address} did not complete ${operation} within ${error.deadlineMs} ms ` +
				'(a cluster failover or an overloaded Redis); a write may or may not have been applied',
			{ failure: 'timeout', address, operation, cause: error },
			(connection) =>
				`Check that the Redis behind ${connection} is running and answering (a cluster: that each master has a replica to fail over to).`,
		);
	}
	if (error instanceof ReplicaUnconfirmedError) {
		return new RedisError(
			`Redis at ${address} applied ${operation}, but no replica confirmed it within ${error.waitMs} ms, so a failover now could lose it`,
			{ failure: 'timeout', address, operation, cause: error },
			(connection) =>
				`Check that each master of the Redis Cluster behind ${connection} has a replica that keeps up.`,
		);
	}
	const {
		code,
		syscall,
		message = String(error),
	} = (error ?? {}) as { code?: string; syscall?: string; message?: string };
	const firstLine = message.split('\n')[0];
	if (/WRONGPASS|NOAUTH|invalid password|invalid username-password|NOPERM/i.test(firstLine)) {
		return fail(
			'authentication',
			`Redis at ${address} refused the credentials (${firstLine}); check the Redis credential's user and password`,
		);
	}
	if (code && TLS_CERTIFICATE_CODES.has(code)) {
		return new RedisError(
			`Redis at ${address} refused over TLS: its certificate is not trusted here (${firstLine})`,
			{ failure: 'configuration', address, operation, cause: error },
			() =>
				'Nothing was written. Start n8n (or agent-core) with NODE_EXTRA_CA_CERTS set to the file of the CA ' +
				"that signed Redis's certificate, or give Redis a certificate for the name you connect to.",
		);
	}
	if (firstLine === 'Command timed out') {
		return fail(
			'timeout',
			`Redis at ${address} did not answer ${operation} in time (command timed out)`,
		);
	}
	if (code && (syscall === 'connect' || syscall === 'getaddrinfo' || /^E[A-Z]+$/.test(code))) {
		const reason = syscall ? `${syscall} ${code}` : code;
		// A server that speaks only TLS resets a plain connection at its first command.
		const tlsHint =
			code === 'ECONNRESET' ? ' and TLS setting (rediss:// for a server that speaks only TLS)' : '';
		return fail(
			'unreachable',
			`Redis at ${address} is unreachable (${reason}); check the Redis credential's host and port${tlsHint}`,
		);
	}
	if (CONNECTION_GONE_PHRASES.some((phrase) => firstLine.includes(phrase))) {
		return fail(
			'unreachable',
			`Redis at ${address} is unreachable (connection closed); check the Redis credential's host and port`,
		);
	}
	return fail('command', `Redis at ${address} failed during ${operation}: ${firstLine}`);
}
