// A tool definition's fingerprint: what pinning compares, so a changed description or schema is noticed.
import { createHash } from 'node:crypto';
import { canonicalJson } from '../../validation/canonical-json';

/** What an MCP server says a tool is, as far as the model reads it. */
export interface McpToolDefinition {
	/** The server's own name for it. */
	name: string;
	description?: string;
	inputSchema: Record<string, unknown>;
	/** Hints from the server (readOnlyHint, destructiveHint, idempotentHint, openWorldHint): shown, never trusted. */
	annotations?: Record<string, unknown>;
}

/**
 * The SHA-256 (hex) of the definition's canonical JSON: `{"description", "inputSchema", "name"}`, keys sorted at
 * every level, an absent description as "". The description and the schema are what the model reads and follows,
 * so a change to either is a change of the tool ("rug pull"); annotations are left out: they are not trusted anyway.
 */
export function toolFingerprint(definition: McpToolDefinition): string {
	const canonical = canonicalJson({
		name: definition.name,
		description: definition.description ?? '',
		inputSchema: definition.inputSchema,
	});
	return createHash('sha256').update(canonical).digest('hex');
}
