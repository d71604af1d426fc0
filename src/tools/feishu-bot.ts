/**
 * The `feishu_bot` tool: posts a text or rich-text message to a Feishu/Lark custom-bot webhook that
 * the workflow configures. The model writes only the content; the address and secret stay in settings.
 */
import { createHmac } from 'node:crypto';
import type { JsonSchema } from '../validation/validate';
import type { Tool, ToolContext } from './tool';

/** A plain text message. */
export interface FeishuTextArgs {
	text: string;
}

/** A rich-text ("post") message: an optional title and one paragraph per line. */
export interface FeishuPostArgs {
	title?: string;
	lines: string[];
}

/** Args of one feishu_bot call (already validated against `feishuBotParameters`). */
export type FeishuBotArgs = FeishuTextArgs | FeishuPostArgs;

/** `tool_settings.feishu_bot` after defaults are applied. */
export interface FeishuBotSettings {
	webhookUrl: string;
	signingSecret?: string;
	timeoutMs: number;
}

/** Seams for tests; production uses the defaults (`feishuBotTool`). */
export interface FeishuBotToolOptions {
	/** Current time in milliseconds; defaults to `Date.now`. */
	now?: () => number;
}

export const DEFAULT_FEISHU_TIMEOUT_MS = 10_000;
/** Feishu refuses custom-bot requests over 20 KB; checking first gives the model a clearer message. */
export const FEISHU_MAX_BODY_BYTES = 20 * 1024;
const MAX_RESPONSE_BYTES = 64 * 1024;
const WEBHOOK = 'the configured Feishu webhook';

/** JSON Schema of the args; the descriptions are what the model reads. */
export const feishuBotParameters: JsonSchema = {
	type: 'object',
	description:
		'Either {"text": …} for a plain message, or {"title": …, "lines": [...]} for a rich-text message; never both.',
	oneOf: [
		{
			type: 'object',
			properties: {
				text: { type: 'string', minLength: 1, maxLength: 4000, description: 'Plain text message.' },
			},
			required: ['text'],
			additionalProperties: false,
		},
		{
			type: 'object',
			properties: {
				title: {
					type: 'string',
					minLength: 1,
					maxLength: 200,
					description: 'Bold heading of a rich-text message.',
				},
				lines: {
					type: 'array',
					minItems: 1,
					maxItems: 100,
					items: { type: 'string', maxLength: 2000 },
					description: 'Paragraphs of a rich-text message, one per item.',
				},
			},
			required: ['lines'],
			additionalProperties: false,
		},
	],
};

/** JSON Schema of `tool_settings.feishu_bot`. */
export const feishuBotSettingsSchema: JsonSchema = {
	type: 'object',
	properties: {
		webhook_url: {
			type: 'string',
			pattern: '^[Hh][Tt][Tt][Pp][Ss]?://',
			maxLength: 2048,
			description: "The custom bot's webhook address; a secret, never shown to the model.",
		},
		signing_secret: {
			type: 'string',
			minLength: 1,
			description:
				'The bot\'s signature secret, when "signature verification" is on in its security settings.',
		},
		timeout_ms: {
			type: 'integer',
			minimum: 1,
			maximum: 120_000,
			description: `Give up after this many milliseconds; default ${DEFAULT_FEISHU_TIMEOUT_MS}.`,
		},
	},
	required: ['webhook_url'],
	additionalProperties: false,
};

/** What a Feishu error code usually means and what to do about it. */
const CODE_HINTS: Record<number, string> = {
	19021:
		'the signature did not match: check signing_secret in tool_settings.feishu_bot and the server clock',
	19022: "this server's IP address is not on the bot's IP allowlist",
	19024:
		"the message lacks the keyword the bot's security settings require: include one of the bot's keywords in the text",
	9499: 'Feishu could not read the request',
	11232: 'the bot is sending too often: wait, then send fewer messages',
};

/** A refusal or failure whose message is already written for the model. */
class FeishuBotError extends Error {
	override name = 'FeishuBotError';
}

/**
 * Feishu's custom-bot signature: HMAC-SHA256 keyed with `${timestamp}\n${secret}` over an empty message,
 * base64-encoded (the key, not the message, carries the data, as Feishu documents it).
 */
export function signFeishuRequest(timestampSeconds: string, secret: string): string {
	return createHmac('sha256', `${timestampSeconds}\n${secret}`).update('').digest('base64');
}

/** Applies defaults to an (already schema-validated) settings entry. */
export function readFeishuBotSettings(raw: Record<string, unknown> = {}): FeishuBotSettings {
	if (typeof raw.webhook_url !== 'string' || !/^https?:\/\//i.test(raw.webhook_url)) {
		throw new FeishuBotError(
			"feishu_bot is not configured: in n8n choose an 'Agent Core: Feishu / Lark Bot' credential on the node; elsewhere set tool_settings.feishu_bot.webhook_url to the custom bot's webhook address (http or https)",
		);
	}
	if (!URL.canParse(raw.webhook_url)) {
		throw new FeishuBotError(
			"feishu_bot is misconfigured: tool_settings.feishu_bot.webhook_url is not a valid URL; copy it again from the bot's settings",
		);
	}
	return {
		webhookUrl: raw.webhook_url,
		signingSecret:
			typeof raw.signing_secret === 'string' && raw.signing_secret !== ''
				? raw.signing_secret
				: undefined,
		timeoutMs:
			Number.isInteger(raw.timeout_ms) && (raw.timeout_ms as number) > 0
				? (raw.timeout_ms as number)
				: DEFAULT_FEISHU_TIMEOUT_MS,
	};
}

/** The JSON body Feishu expects, signed when a secret is configured. */
export function buildFeishuBody(
	args: FeishuBotArgs,
	signingSecret: string | undefined,
	nowMs: number,
): Record<string, unknown> {
	const signature: Record<string, string> = {};
	if (signingSecret) {
		const timestamp = String(Math.floor(nowMs / 1000));
		signature.timestamp = timestamp;
		signature.sign = signFeishuRequest(timestamp, signingSecret);
	}
	if ('text' in args) return { ...signature, msg_type: 'text', content: { text: args.text } };
	const paragraphs = args.lines.map((line) => [{ tag: 'text', text: line }]);
	const post =
		args.title === undefined ? { content: paragraphs } : { title: args.title, content: paragraphs };
	return { ...signature, msg_type: 'post', content: { post: { zh_cn: post } } };
}

/**
 * The message's text in Unicode NFC. A chat message is read by people, and text in NFC and in NFD (say
 * "é" as one code point or as "e" + a combining accent) shows the same; sending NFC makes one message one
 * send, so the loop breaker, which compares this form, never posts the same text twice in two spellings.
 */
export function feishuTextInNfc(args: FeishuBotArgs): FeishuBotArgs {
	if ('text' in args) return { text: args.text.normalize('NFC') };
	return {
		...(args.title === undefined ? {} : { title: args.title.normalize('NFC') }),
		lines: args.lines.map((line) => line.normalize('NFC')),
	};
}

/** Builds the tool; `feishuBotTool` is this with the real clock. */
export function createFeishuBotTool(options: FeishuBotToolOptions = {}): Tool<FeishuBotArgs> {
	const now = options.now ?? Date.now;
	return {
		name: 'feishu_bot',
		description:
			'Send a message to the team\'s Feishu (Lark) group through its bot: {"text": "..."} for plain text, or {"title": "...", "lines": ["...", "..."]} for a formatted message.',
		parameters: feishuBotParameters,
		// Every call posts a message.
		sideEffects: true,
		// The message as posted, without the signature and timestamp (which change every second).
		canonicalCall: (args: FeishuBotArgs) => ({
			message: buildFeishuBody(feishuTextInNfc(args), undefined, 0),
		}),
		settingsSchema: feishuBotSettingsSchema,
		secretsIn: webhookTokens,
		async execute(modelArgs: FeishuBotArgs, context: ToolContext): Promise<string> {
			const settings = readFeishuBotSettings(context.settings);
			const args = feishuTextInNfc(modelArgs);
			try {
				const body = Buffer.from(
					JSON.stringify(buildFeishuBody(args, settings.signingSecret, now())),
					'utf8',
				);
				if (body.length > FEISHU_MAX_BODY_BYTES) {
					throw new FeishuBotError(
						`feishu_bot refused: the message is ${body.length} bytes as JSON, over Feishu's ${FEISHU_MAX_BODY_BYTES} byte limit; shorten it or send it in parts`,
					);
				}
				await postToWebhook(settings, body, context.signal);
				return 'text' in args
					? `sent a text message (${args.text.length} characters) to ${WEBHOOK}`
					: `sent a rich-text message${args.title ? ` titled ${JSON.stringify(args.title)}` : ''} (${args.lines.length} lines) to ${WEBHOOK}`;
			} catch (error) {
				throw error instanceof FeishuBotError
					? error
					: new Error(`feishu_bot failed: ${(error as Error).message}`);
			}
		},
	};
}

/** The `feishu_bot` tool. */
export const feishuBotTool: Tool<FeishuBotArgs> = createFeishuBotTool();

async function postToWebhook(
	settings: FeishuBotSettings,
	body: Buffer,
	signal: AbortSignal,
): Promise<void> {
	const timeout = AbortSignal.timeout(settings.timeoutMs);
	let response: Response;
	try {
		response = await fetch(settings.webhookUrl, {
			method: 'POST',
			headers: { 'content-type': 'application/json; charset=utf-8' },
			body,
			// A redirect would carry the message somewhere nobody configured.
			redirect: 'manual',
			signal: AbortSignal.any([signal, timeout]),
		});
	} catch (error) {
		throw describeFetchFailure(error, signal, timeout, settings.timeoutMs);
	}
	let text: string;
	try {
		text = await readLimited(response, MAX_RESPONSE_BYTES);
	} catch (error) {
		throw describeFetchFailure(error, signal, timeout, settings.timeoutMs);
	}
	const reply = parseFeishuReply(text);
	const status = `HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''}`;
	if (response.status < 200 || response.status > 299) {
		const detail = reply
			? `: ${describeCode(reply)}`
			: text.trim()
				? `: ${JSON.stringify(text.trim().slice(0, 200))}`
				: '';
		const redirect =
			response.status >= 300 && response.status < 400
				? ' (a redirect, which is not followed; check webhook_url)'
				: '';
		throw new FeishuBotError(
			`feishu_bot failed: ${WEBHOOK} answered ${status}${redirect}${detail}`,
		);
	}
	if (!reply) {
		throw new FeishuBotError(
			`feishu_bot failed: ${WEBHOOK} answered ${status} but not with Feishu's JSON {code, msg}; check that webhook_url is a Feishu custom bot webhook`,
		);
	}
	if (reply.code !== 0)
		throw new FeishuBotError(
			`feishu_bot failed: Feishu refused the message: ${describeCode(reply)}`,
		);
}

interface FeishuReply {
	code: number;
	message: string;
}

/** Current replies carry `code`/`msg`; older webhooks answered `StatusCode`/`StatusMessage`. */
function parseFeishuReply(text: string): FeishuReply | undefined {
	try {
		const parsed = JSON.parse(text) as Record<string, unknown>;
		const code = parsed.code ?? parsed.StatusCode;
		if (typeof code !== 'number') return undefined;
		const message = parsed.msg ?? parsed.StatusMessage;
		return { code, message: typeof message === 'string' ? message : '' };
	} catch {
		return undefined;
	}
}

function describeCode(reply: FeishuReply): string {
	const hint = CODE_HINTS[reply.code];
	return `code ${reply.code}${reply.message ? ` (${reply.message})` : ''}${hint ? `; ${hint}` : ''}`;
}

function describeFetchFailure(
	error: unknown,
	signal: AbortSignal,
	timeout: AbortSignal,
	timeoutMs: number,
): FeishuBotError {
	if (signal.aborted)
		return new FeishuBotError(
			`feishu_bot stopped: the call was cancelled (time limit or cancel) before ${WEBHOOK} answered; the message may or may not have been sent`,
		);
	if (timeout.aborted) {
		return new FeishuBotError(
			`feishu_bot failed: ${WEBHOOK} did not answer within ${timeoutMs} ms (timeout_ms); the message may or may not have been sent`,
		);
	}
	// fetch hides the reason in `cause`; only its code is shown, as its message can name the address.
	const cause = (error as { cause?: { code?: unknown } })?.cause;
	const code =
		typeof cause?.code === 'string' ? cause.code : ((error as Error)?.name ?? 'network error');
	return new FeishuBotError(
		`feishu_bot failed: could not reach ${WEBHOOK} (${code}); check webhook_url and the network`,
	);
}

/** Reads at most `limit` bytes of the body and drops the rest; a webhook reply is a few dozen bytes. */
async function readLimited(response: Response, limit: number): Promise<string> {
	if (!response.body) return '';
	const reader = response.body.getReader();
	const chunks: Uint8Array[] = [];
	let size = 0;
	for (;;) {
		const { done, value } = await reader.read();
		if (done) break;
		chunks.push(value);
		size += value.length;
		if (size >= limit) {
			await reader.cancel().catch(() => undefined);
			break;
		}
	}
	return Buffer.concat(chunks).subarray(0, limit).toString('utf8');
}

/**
 * The token-like parts of the webhook URL (its path segments and query values), which a server may echo
 * on their own. The engine finds the whole URL and the signing secret by their field names; the parts are
 * not, and "open-apis" or "hook" are not secrets, so only parts of 16 characters or more count.
 */
function webhookTokens(raw: Record<string, unknown>): string[] {
	const webhookUrl = typeof raw.webhook_url === 'string' ? raw.webhook_url : '';
	if (!URL.canParse(webhookUrl)) return [];
	const url = new URL(webhookUrl);
	return [url.href, ...url.pathname.split('/'), ...url.searchParams.values()].filter(
		(part) => part.length >= 16,
	);
}
