// MCP servers as governed tools (issue #32): the public names of src/tools/mcp.
export {
	DEFAULT_MCP_TIMEOUT_SECONDS,
	MAX_SERVER_NAME_LENGTH,
	MCP_SERVERS_SCHEMA,
	mcpServersProblem,
	type McpServerConfig,
} from './config';
export { MAX_MCP_RESPONSE_BYTES } from './connection';
export { McpServerError } from './errors';
export { toolFingerprint, type McpToolDefinition } from './fingerprint';
export { mcpSetUp, mcpToolInfo, type McpToolInfo, type McpToolRecord } from './mcp-tool';
export { openMcpTools, type McpToolSet, type OpenMcpToolsOptions } from './open-tools';
export {
	DEFAULT_MCP_PIN_PREFIX,
	MemoryMcpPins,
	RedisMcpPins,
	mcpPinKey,
	type McpPinStore,
	type PinStatus,
} from './pins';
export {
	MAX_MCP_FILE_BYTES,
	MAX_MCP_RESULT_CHARACTERS,
	MAX_MCP_RESULT_FILES,
	observeCallResult,
	renderCallResult,
} from './result';
