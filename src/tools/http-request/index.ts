import type { AddressClassification } from './address-policy';
import type { HostResolver } from './connection-policy';
import {
	httpRequestParameters,
	checkHttpRequestSettings,
	httpRequestSettingsSchema,
	type HttpRequestArgs,
} from './settings';
import type { Tool, ToolContext } from '../tool';
import { httpRequestOnTheWire } from './wire-form';
import { loadOnce } from '../../core/load-once';

/**
 * The `http_request` tool: wires settings, the SSRF-hardened fetch and the observation together. The pieces live in
 * the files next to this one; their public names are re-exported here. A call's run (call.ts: the address policy,
 * ipaddr.js, the fetch) loads on the first call, as the node panels read only the card. The engine redacts the fixed
 * headers' values (secrets) from everything the tool returns or throws, then cuts it.
 */

export {
	DEFAULT_MAX_REDIRECTS,
	DEFAULT_MAX_RESPONSE_BYTES,
	DEFAULT_TIMEOUT_MS,
	HTTP_METHODS,
	httpRequestParameters,
	httpRequestSettingsSchema,
	readHttpRequestSettings,
} from './settings';
export type { HttpMethod, HttpRequestArgs, HttpRequestSettings } from './settings';
export type { HostResolver, ResolvedAddress } from './connection-policy';
export type { FetchedResponse } from './fetch';
export { renderObservation } from './observation';

/** Seams for tests; production uses the defaults (`httpRequestTool`). Neither is reachable from args or settings. */
export interface HttpRequestToolOptions {
	/** Defaults to the operating system's resolver (`dns.lookup`, so /etc/hosts applies). */
	resolveHost?: HostResolver;
	/**
	 * Defaults to `classifyAddress` from address-policy; a test may declare one loopback address public to stand in for a real server.
	 * Cloud metadata endpoints are refused whatever it answers.
	 */
	classifyAddress?: (address: string) => AddressClassification;
	/** PEM certificates trusted for https instead of Node's bundled authorities, so a test can serve https on loopback. */
	certificateAuthorities?: string[];
}

/** A call's run (call.ts), loaded on the first call or refusal check: the node panels read only the card below. */
const call = loadOnce(() => require('./call') as typeof import('./call'));

/** Builds the tool; `httpRequestTool` is this with the production defaults. */
export function createHttpRequestTool(options: HttpRequestToolOptions = {}): Tool<HttpRequestArgs> {
	const policy = loadOnce(() => call().connectionPolicy(options));
	return {
		name: 'http_request',
		description:
			'Call an HTTP(S) API or fetch a web page. Returns the status line, content type and size, then the body (JSON compacted). Non-2xx answers are returned too.',
		parameters: httpRequestParameters,
		// GET (the default) reads; POST, PUT, PATCH and DELETE may change the target.
		sideEffects: (args: HttpRequestArgs) => (args.method ?? 'GET') !== 'GET',
		canonicalCall: httpRequestOnTheWire,
		passesIdempotencyKey: true,
		settingsSchema: httpRequestSettingsSchema,
		checkSettings: checkHttpRequestSettings,
		refusalBeforeRun(args: HttpRequestArgs, context) {
			return call().refusalBeforeRun(args, context, policy());
		},
		async execute(args: HttpRequestArgs, context: ToolContext) {
			return call().execute(args, context, policy());
		},
	};
}

/** The `http_request` tool with the production resolver and address policy. */
export const httpRequestTool: Tool<HttpRequestArgs> = createHttpRequestTool();
