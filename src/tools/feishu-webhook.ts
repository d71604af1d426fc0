// Posting a message body to a Feishu custom-bot webhook and reading Feishu's reply into words for the model.

/** `tool_settings.feishu_bot` after defaults are applied. */
export interface FeishuBotSettings {
	webhookUrl: string;
	signingSecret?: string;
	timeoutMs: number;
}

const MAX_RESPONSE_BYTES = 64 * 1024;
/** How messages name the webhook (never its address, which is a secret). */
export const WEBHOOK = 'the configured Feishu webhook';

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
export class FeishuBotError extends Error {
	override name = 'FeishuBotError';
}

/** Posts the body once, following no redirect; throws a FeishuBotError unless Feishu answers with code 0. */
export async function postToWebhook(
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
