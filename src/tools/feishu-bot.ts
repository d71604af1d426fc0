/**
 * The `feishu_bot` tool: posts a text or rich-text message to a Feishu/Lark custom-bot webhook that
 * the workflow configures. The model writes only the content; the address and secret stay in settings.
 */
import { createHmac } from 'node:crypto';
import { loadOnce } from '../core/load-once';
import type { JsonSchema } from '../validation/validate';
import type { FeishuBotSettings } from './feishu-webhook';
import type { Tool, ToolContext } from './tool';

/** The webhook's post and its error, loaded when settings are first read for a call: the node panels read only the card. */
const webhook = loadOnce(() => require('./feishu-webhook') as typeof import('./feishu-webhook'));

export type { FeishuBotSettings } from './feishu-webhook';

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

/** Seams for tests; production uses the defaults (`feishuBotTool`). */
export interface FeishuBotToolOptions {
	/** Current time in milliseconds; defaults to `Date.now`. */
	now?: () => number;
}

export const DEFAULT_FEISHU_TIMEOUT_MS = 10_000;
/** Feishu refuses custom-bot requests over 20 KB; checking first gives the model a clearer message. */
export const FEISHU_MAX_BODY_BYTES = 20 * 1024;

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

/**
 * Feishu's custom-bot signature: HMAC-SHA256 keyed with `${timestamp}\n${secret}` over an empty message,
 * base64-encoded (the key, not the message, carries the data, as Feishu documents it).
 */
export function signFeishuRequest(timestampSeconds: string, secret: string): string {
	return createHmac('sha256', `${timestampSeconds}\n${secret}`).update('').digest('base64');
}

/** Applies defaults to an (already schema-validated) settings entry. */
export function readFeishuBotSettings(raw: Record<string, unknown> = {}): FeishuBotSettings {
	const { FeishuBotError } = webhook();
	if (typeof raw.webhook_url !== 'string' || !/^https?:\/\//i.test(raw.webhook_url)) {
		throw new FeishuBotError(
			"feishu_bot is not configured: in n8n choose an 'Agent Core: Feishu / Lark Bot' credential on the node; " +
				"elsewhere set tool_settings.feishu_bot.webhook_url to the custom bot's webhook address (http or https)",
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
			'Send a message to the team\'s Feishu (Lark) group through its bot: {"text": "..."} for plain text, ' +
			'or {"title": "...", "lines": ["...", "..."]} for a formatted message.',
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
			const { FeishuBotError, postToWebhook, WEBHOOK } = webhook();
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
