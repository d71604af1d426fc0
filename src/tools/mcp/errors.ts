// The errors of MCP servers: one an operator fixes before a run (McpServerError), one the transport meets (McpTransportError).
import { AgentCoreError } from '../../core/agent-core-error';

/**
 * An MCP server that cannot be used as configured: unreachable, refused by the address policy, TLS that does not
 * check out, a tool that `allowed_tools` names and the server does not offer or offers with a schema the engine
 * refuses. Thrown before the run's first model call; `server` names the server, the message says what and the fix how.
 */
export class McpServerError extends AgentCoreError {
	override readonly name = 'McpServerError';
	constructor(
		readonly server: string,
		message: string,
		fix: string,
		cause?: unknown,
	) {
		super(message, { field: 'mcp_servers', fix, ...(cause === undefined ? {} : { cause }) });
	}
}

/** What went wrong on the way to a server, for the fix the operator is given (and whether a retry may help). */
export type TransportProblem =
	| 'refused'
	| 'tls'
	| 'unreachable'
	| 'reset'
	| 'too_large'
	| 'timeout'
	| 'origin'
	| 'unauthorized'
	| 'forbidden';

/** A request to an MCP server that failed in our own transport (the address policy, the network, a cap); the message is written for people. */
export class McpTransportError extends Error {
	override readonly name = 'McpTransportError';
	constructor(
		readonly problem: TransportProblem,
		message: string,
		/** The operator's fix, when only the transport knows it (which header a 401 wants); else the problem's usual one. */
		readonly fix?: string,
	) {
		super(message);
	}
}

/** The transport's own error in `error` or its causes (the SDK may wrap what our fetch threw), if any. */
export function transportErrorIn(error: unknown): McpTransportError | undefined {
	for (let current = error, depth = 0; current && depth < 8; depth++) {
		if (current instanceof McpTransportError) return current;
		current = (current as { cause?: unknown }).cause;
	}
	return undefined;
}
