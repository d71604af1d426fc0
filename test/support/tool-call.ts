import { observationOf, toolErrorOf, toolSecrets } from '../../src/agent/calls/execute-tool';
import type { Tool } from '../../src/tools/tool';
import { Redactor } from '../../src/trace/redact';

export interface ToolCallOptions {
	settings?: Record<string, unknown>;
	/** Handed to the tool as its call signal, as the engine hands it the per-call signal. */
	signal?: AbortSignal;
	/** The run's observation_max_len; 0 (the default here) = no cut. */
	observationMaxLength?: number;
	sessionId?: string;
}

/**
 * Calls a tool directly and turns its result into what the model reads, with the engine's own steps: the
 * run's redactor (the secrets of these settings), then the cut. A failure is thrown as the message the
 * model would read. Args are not validated: tests may hand a tool what its schema would refuse.
 */
export async function callTool(
	tool: Tool,
	args: unknown,
	options: ToolCallOptions = {},
): Promise<string> {
	const settings = options.settings ?? {};
	const redactor = new Redactor(
		toolSecrets(new Map([[tool.name, tool]]), { [tool.name]: settings }),
	);
	let result: unknown;
	try {
		result = await tool.execute(args, {
			signal: options.signal ?? new AbortController().signal,
			settings,
			sessionId: options.sessionId,
		});
	} catch (error) {
		throw new Error(toolErrorOf(tool.name, error, redactor));
	}
	return observationOf(result, redactor, options.observationMaxLength ?? 0);
}
