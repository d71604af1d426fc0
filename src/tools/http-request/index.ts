import { EgressRefusal } from './egress';
import {
	classifyAddress as defaultClassifyAddress,
	type AddressClassification,
} from './address-policy';
import {
	checkHop,
	resolveWithSystem,
	type ConnectionPolicy,
	type HostResolver,
} from './connection-policy';
import { Deadline } from './deadline';
import { fetchFollowingRedirects } from './fetch';
import { firstHop, type Hop } from './hop';
import { renderObservation } from './observation';
import { HttpRequestError } from './error';
import {
	DEFAULT_TIMEOUT_MS,
	httpRequestParameters,
	checkHttpRequestSettings,
	httpRequestSettingsSchema,
	readHttpRequestSettings,
	type HttpRequestArgs,
	type HttpRequestSettings,
} from './settings';
import { TruncatedText, type Tool, type ToolContext, type WithFiles } from '../tool';
import { fileAnswer } from './file-answer';
import { httpRequestOnTheWire } from './wire-form';

/**
 * The `http_request` tool: wires settings, the SSRF-hardened fetch and the observation together. The
 * pieces live in the files next to this one; their public names are re-exported here. The engine redacts
 * the fixed headers' values (secrets) from everything the tool returns or throws, then cuts it.
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

/** Builds the tool; `httpRequestTool` is this with the production defaults. */
export function createHttpRequestTool(options: HttpRequestToolOptions = {}): Tool<HttpRequestArgs> {
	const policy: ConnectionPolicy = {
		resolveHost: options.resolveHost ?? resolveWithSystem,
		classifyAddress: options.classifyAddress ?? defaultClassifyAddress,
		certificateAuthorities: options.certificateAuthorities,
	};
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
			// Misconfigured settings are execute's to report, as they are for one call.
			if (checkHttpRequestSettings(context.settings).length > 0) return undefined;
			const settings = readHttpRequestSettings(context.settings, context.trustedText);
			try {
				checkHop(firstHop(args, settings), settings, policy);
				return undefined;
			} catch (error) {
				if (error instanceof HttpRequestError) return error.message;
				throw error;
			}
		},
		async execute(
			args: HttpRequestArgs,
			context: ToolContext,
		): Promise<string | TruncatedText | WithFiles> {
			// Checked when the run is configured; again here for callers that hand settings to the tool directly.
			const problems = checkHttpRequestSettings(context.settings);
			if (problems.length > 0)
				throw new Error(`http_request is misconfigured: tool_settings.http_request.${problems[0]}`);
			const settings = readHttpRequestSettings(context.settings, context.trustedText);
			const deadline = new Deadline(args.timeout_ms ?? DEFAULT_TIMEOUT_MS, context.signal);
			try {
				const response = await fetchFollowingRedirects(
					withIdempotencyKey(firstHop(args, settings), settings, context.idempotencyKey),
					settings,
					policy,
					deadline,
				);
				const file = fileAnswer(response);
				if (file !== undefined) return file;
				// The body ends the observation, so a secret that max_response_bytes cut into is at its very end.
				const observation = renderObservation(response);
				return response.truncated ? new TruncatedText(observation) : observation;
			} catch (error) {
				// A host nobody named: the model reads why as the observation, like any answer it got.
				if (error instanceof EgressRefusal) return error.message;
				throw error instanceof HttpRequestError
					? error
					: new Error(`http_request failed: ${(error as Error).message}`);
			} finally {
				deadline.dispose();
			}
		},
	};
}

/**
 * A durable run's call carries `Idempotency-Key` (draft-ietf-httpapi-idempotency-key-header), the same each
 * time the call is sent again after the run was interrupted, so a target that honours it acts once. A key the
 * model or the settings already give is left as it is.
 */
function withIdempotencyKey(hop: Hop, settings: HttpRequestSettings, key: string | undefined): Hop {
	if (
		key === undefined ||
		'idempotency-key' in hop.headers ||
		Object.keys(settings.headers).some((name) => name.toLowerCase() === 'idempotency-key')
	)
		return hop;
	return { ...hop, headers: { ...hop.headers, 'idempotency-key': key } };
}

/** The `http_request` tool with the production resolver and address policy. */
export const httpRequestTool: Tool<HttpRequestArgs> = createHttpRequestTool();
