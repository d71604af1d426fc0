// One http_request call, loaded on the tool's first call or refusal check: the address policy, the fetch and the
// answer stay out of the node panels, which read only the tool's card (index.ts).
import { EgressRefusal } from './egress';
import { classifyAddress } from './address-policy';
import { checkHop, resolveWithSystem, type ConnectionPolicy } from './connection-policy';
import { Deadline } from './deadline';
import { fetchFollowingRedirects } from './fetch';
import { firstHop, type Hop } from './hop';
import { renderObservation } from './observation';
import { HttpRequestError } from './error';
import {
	DEFAULT_TIMEOUT_MS,
	checkHttpRequestSettings,
	readHttpRequestSettings,
	type HttpRequestArgs,
	type HttpRequestSettings,
} from './settings';
import { TruncatedText, type ToolContext, type WithFiles } from '../tool';
import { fileAnswer } from './file-answer';

/** The policy of a tool made with these seams: the operating system's resolver and classifyAddress where none is given. */
export function connectionPolicy(seams: Partial<ConnectionPolicy>): ConnectionPolicy {
	return {
		resolveHost: seams.resolveHost ?? resolveWithSystem,
		classifyAddress: seams.classifyAddress ?? classifyAddress,
		certificateAuthorities: seams.certificateAuthorities,
	};
}

/** `Tool.refusalBeforeRun` of http_request: why the first hop would be refused, from the URL and settings alone. */
export function refusalBeforeRun(
	args: HttpRequestArgs,
	context: Pick<ToolContext, 'settings' | 'trustedText'>,
	policy: ConnectionPolicy,
): string | undefined {
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
}

/** `Tool.execute` of http_request: the checked settings, the SSRF-hardened fetch and the observation. */
export async function execute(
	args: HttpRequestArgs,
	context: ToolContext,
	policy: ConnectionPolicy,
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
