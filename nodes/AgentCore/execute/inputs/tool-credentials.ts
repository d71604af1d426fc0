import type {
	ICredentialDataDecryptedObject,
	ICredentialsDecrypted,
	ICredentialTestFunctions,
	IExecuteFunctions,
	INodeCredentialTestResult,
} from 'n8n-workflow';
import {
	type AgentConfig,
	domainEntryProblem,
	HEADER_NAME_PATTERN,
} from '../../../../src/run-path';
import { nodeError } from '../../../shared/node-errors';
import type { OpenRedis } from '../governance/execution-redis';

type ToolSettings = AgentConfig['tool_settings'];

const HEADER_NAME = new RegExp(HEADER_NAME_PATTERN);
const HTTP_HEADER_CREDENTIAL = "the 'Agent Core: HTTP Request Tool API' credential";
const FEISHU_CREDENTIAL = "the 'Agent Core: Feishu / Lark Bot API' credential";
const capitalize = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/** A problem with a credential's values: what is wrong and how to fix it. */
interface CredentialProblem {
	message: string;
	fix: string;
}

/** The header credential read and checked; the same checks serve its Test button and every run. */
export function readHttpHeaderCredential(
	data: ICredentialDataDecryptedObject,
): { name: string; value: string; domains: string[] } | CredentialProblem {
	const name = String(data.headerName ?? '').trim();
	const value = String(data.headerSecret ?? '');
	const domains = String(data.allowedDomains ?? '')
		.split(/[\s,]+/)
		.filter((domain) => domain !== '');
	if (!HEADER_NAME.test(name)) {
		return {
			message: `The header name in ${HTTP_HEADER_CREDENTIAL} is not a valid HTTP header name: "${name}"`,
			fix: 'Use a name like Authorization or X-API-Key, without spaces or a colon.',
		};
	}
	if (value === '' || /[\r\n\0]/.test(value)) {
		return {
			message: `The header value in ${HTTP_HEADER_CREDENTIAL} is ${value === '' ? 'empty' : 'split over lines'}`,
			fix: 'Paste the value (e.g. "Bearer sk-…") again, as one line.',
		};
	}
	if (domains.length === 0)
		return {
			message: `${HTTP_HEADER_CREDENTIAL} lists no Allowed Domains`,
			fix: 'Add the hosts the header is for, e.g. api.example.com.',
		};
	// The same rule as allowed_domains in Tool Settings (JSON) and the CLI config, with the credential named.
	for (const domain of domains) {
		const problem = domainEntryProblem(domain);
		if (problem)
			return {
				message: `Allowed Domains in ${HTTP_HEADER_CREDENTIAL}: ${problem.reason}`,
				fix: `${capitalize(problem.fix)}.`,
			};
	}
	return { name, value, domains };
}

/** The Feishu credential read and checked, for its Test button and every run. */
export function readFeishuCredential(
	data: ICredentialDataDecryptedObject,
): { webhookUrl: string; signingSecret: string } | CredentialProblem {
	const webhookUrl = String(data.webhookUrlWithToken ?? '').trim();
	if (!/^https?:\/\//i.test(webhookUrl) || !URL.canParse(webhookUrl)) {
		return {
			message: `The Webhook URL in ${FEISHU_CREDENTIAL} is not an http(s) URL`,
			fix: "Copy it again from the group's bot settings: https://open.feishu.cn/open-apis/bot/v2/hook/…",
		};
	}
	return { webhookUrl, signingSecret: String(data.signingSecret ?? '') };
}

const isProblem = (value: object): value is CredentialProblem => 'fix' in value;

/** The Test button of the header credential: checks its values; nothing is sent. */
export async function testHttpHeaderCredential(
	this: ICredentialTestFunctions,
	credential: ICredentialsDecrypted,
): Promise<INodeCredentialTestResult> {
	const read = readHttpHeaderCredential(credential.data ?? {});
	if (isProblem(read)) return { status: 'Error', message: `${read.message}. ${read.fix}` };
	return {
		status: 'OK',
		message: `${read.name} will go to ${read.domains.join(', ')} only (checked here; nothing was sent)`,
	};
}

/** The Test button of the Feishu credential: checks its values; nothing is posted to the group. */
export async function testFeishuCredential(
	this: ICredentialTestFunctions,
	credential: ICredentialsDecrypted,
): Promise<INodeCredentialTestResult> {
	const read = readFeishuCredential(credential.data ?? {});
	if (isProblem(read)) return { status: 'Error', message: `${read.message}. ${read.fix}` };
	return {
		status: 'OK',
		message: `The webhook URL is well-formed${read.signingSecret ? ' and messages will be signed' : ''} (nothing was posted)`,
	};
}

/** An optional credential is read only when the node has one chosen; getCredentials throws otherwise. */
function hasCredential(context: IExecuteFunctions, type: string): boolean {
	return Boolean(context.getNode().credentials?.[type]);
}

/** redis_context uses the node's Redis credential unless its tool settings name a Redis themselves. */
async function injectRedisConnection(
	redis: OpenRedis,
	settings: ToolSettings,
	itemIndex: number,
): Promise<void> {
	const own = settings.redis_context ?? {};
	if (own.redis_url !== undefined || own.connection !== undefined) return;
	settings.redis_context = {
		...own,
		connection: await redis().connectionFor(itemIndex, 'The Redis Context tool'),
	};
}

/**
 * The header credential binds its secret to its hosts: they become http_request's allowed_domains, so a
 * list in Tool Settings (JSON) as well would leave it unclear where the secret may go, and is refused.
 */
async function injectHttpHeader(
	context: IExecuteFunctions,
	settings: ToolSettings,
	itemIndex: number,
): Promise<void> {
	if (!hasCredential(context, 'agentCoreHttpHeaderApi')) return;
	const read = readHttpHeaderCredential(
		await context.getCredentials('agentCoreHttpHeaderApi', itemIndex),
	);
	if (isProblem(read)) throw nodeError(context, read.message, itemIndex, read.fix);
	const { name, value, domains } = read;
	const own = settings.http_request ?? {};
	if (own.allowed_domains !== undefined) {
		throw nodeError(
			context,
			`http_request gets its allowed domains from ${HTTP_HEADER_CREDENTIAL}, and Tool Settings (JSON) lists allowed_domains too`,
			itemIndex,
			'Keep one list: remove http_request.allowed_domains from Tool Settings (JSON), or clear the credential.',
		);
	}
	const headers = { ...((own.headers as Record<string, string> | undefined) ?? {}) };
	if (Object.keys(headers).some((existing) => existing.toLowerCase() === name.toLowerCase())) {
		throw nodeError(
			context,
			`The header ${name} is set both in ${HTTP_HEADER_CREDENTIAL} and in Tool Settings (JSON)`,
			itemIndex,
			`Remove http_request.headers["${name}"] from Tool Settings (JSON).`,
		);
	}
	headers[name] = value;
	settings.http_request = { ...own, headers, allowed_domains: domains };
}

/** feishu_bot posts to the credential's bot; naming a webhook in Tool Settings (JSON) as well is refused. */
async function injectFeishuBot(
	context: IExecuteFunctions,
	settings: ToolSettings,
	itemIndex: number,
): Promise<void> {
	if (!hasCredential(context, 'agentCoreFeishuBotApi')) return;
	const own = settings.feishu_bot ?? {};
	if (own.webhook_url !== undefined || own.signing_secret !== undefined) {
		throw nodeError(
			context,
			`feishu_bot has a bot in both ${FEISHU_CREDENTIAL} and Tool Settings (JSON)`,
			itemIndex,
			'Keep one: remove webhook_url and signing_secret from feishu_bot in Tool Settings (JSON), or clear the credential.',
		);
	}
	const read = readFeishuCredential(
		await context.getCredentials('agentCoreFeishuBotApi', itemIndex),
	);
	if (isProblem(read)) throw nodeError(context, read.message, itemIndex, read.fix);
	settings.feishu_bot = {
		...own,
		webhook_url: read.webhookUrl,
		...(read.signingSecret ? { signing_secret: read.signingSecret } : {}),
	};
}

/** Per built-in tool a credential of the node serves, how that credential becomes its settings. */
const INJECTIONS: Record<
	string,
	(
		context: IExecuteFunctions,
		settings: ToolSettings,
		itemIndex: number,
		redis: OpenRedis,
	) => Promise<void>
> = {
	redis_context: (_context, settings, itemIndex, redis) =>
		injectRedisConnection(redis, settings, itemIndex),
	http_request: injectHttpHeader,
	feishu_bot: injectFeishuBot,
};

/** The built-in tools a credential of the node serves: with none of them allowed, withToolCredentials has no work. */
export const CREDENTIAL_TOOLS: readonly string[] = Object.keys(INJECTIONS);

/**
 * Credentials chosen on the node become the settings of the built-in tools they serve, for allowed tools
 * only. Their values then count as secrets like every secret in tool settings: redacted from all output.
 * Returns the settings with them; the settings given are not changed.
 */
export async function withToolCredentials(
	context: IExecuteFunctions,
	toolSettings: ToolSettings,
	allowed: readonly string[],
	itemIndex: number,
	redis: OpenRedis,
): Promise<ToolSettings> {
	const settings = { ...toolSettings };
	for (const tool of CREDENTIAL_TOOLS)
		if (allowed.includes(tool)) await INJECTIONS[tool](context, settings, itemIndex, redis);
	return settings;
}
