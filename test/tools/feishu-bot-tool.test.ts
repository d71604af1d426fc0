import { createFeishuBotTool, feishuBotTool, type FeishuBotArgs } from '../../src/tools/feishu-bot';
import { validateAgainst } from '../../src/validation/validate';
import {
	HOOK_PATH,
	SECRET,
	startFakeFeishu,
	TOKEN,
	type FakeFeishu,
} from '../support/servers/feishu';
import { freeLoopbackPort } from '../support/redis';
import { callTool } from '../support/tool-call';

let feishu: FakeFeishu;

beforeAll(async () => {
	feishu = await startFakeFeishu();
});

beforeEach(() => {
	feishu.secret = SECRET;
	feishu.behaviour = 'feishu';
	feishu.bodies = [];
});

afterAll(async () => {
	await feishu.close();
});

interface CallOptions {
	settings?: Record<string, unknown>;
	signal?: AbortSignal;
	tool?: typeof feishuBotTool;
}

/** Validates the args like the engine does, then sends through the fake webhook; what comes back is what the model reads. */
async function send(args: Record<string, unknown>, options: CallOptions = {}): Promise<string> {
	const validation = validateAgainst<FeishuBotArgs>(feishuBotTool.parameters, args);
	if (!validation.ok) throw new Error(`invalid args: ${validation.issues.join('; ')}`);
	return callTool(options.tool ?? feishuBotTool, validation.value, {
		signal: options.signal,
		settings: options.settings ?? { webhook_url: feishu.url, signing_secret: SECRET },
	});
}

/** The error message of a failing send, checked to leak neither the webhook token nor the secret. */
async function failureOf(promise: Promise<unknown>): Promise<string> {
	const error = await promise.then(
		() => {
			throw new Error('expected the call to fail');
		},
		(caught: Error) => caught,
	);
	expect(error.message).not.toContain(TOKEN);
	expect(error.message).not.toContain(SECRET);
	expect(error.message).not.toContain('127.0.0.1');
	return error.message;
}

describe('feishu_bot sending', () => {
	it('sends a signed text message that Feishu accepts', async () => {
		expect(await send({ text: 'Deploy finished ✅' })).toBe(
			'sent a text message (17 characters) to the configured Feishu webhook',
		);
		const [body] = feishu.bodies;
		expect(Object.keys(body).sort()).toEqual(['content', 'msg_type', 'sign', 'timestamp']);
		expect(body).toMatchObject({ msg_type: 'text', content: { text: 'Deploy finished ✅' } });
		expect(body.timestamp).toMatch(/^\d{10}$/);
		expect(Math.abs(Number(body.timestamp) - Date.now() / 1000)).toBeLessThan(5);
	});

	it('sends a rich-text post with a title and one paragraph per line', async () => {
		const observation = await send({
			title: 'Daily report',
			lines: ['3 orders shipped', '', '1 refund'],
		});
		expect(observation).toBe(
			'sent a rich-text message titled "Daily report" (3 lines) to the configured Feishu webhook',
		);
		expect(feishu.bodies[0]).toMatchObject({
			msg_type: 'post',
			content: {
				post: {
					zh_cn: {
						title: 'Daily report',
						content: [
							[{ tag: 'text', text: '3 orders shipped' }],
							[{ tag: 'text', text: '' }],
							[{ tag: 'text', text: '1 refund' }],
						],
					},
				},
			},
		});
	});

	it('sends no timestamp or sign when no secret is configured', async () => {
		feishu.secret = undefined;
		await send({ lines: ['no title'] }, { settings: { webhook_url: feishu.url } });
		expect(feishu.bodies[0]).toEqual({
			msg_type: 'post',
			content: { post: { zh_cn: { content: [[{ tag: 'text', text: 'no title' }]] } } },
		});
	});

	it('accepts the older StatusCode/StatusMessage success reply', async () => {
		feishu.behaviour = 'legacy-success';
		expect(await send({ text: 'hi' })).toContain('sent a text message');
	});
});

describe('feishu_bot failures', () => {
	it("surfaces Feishu's 19021 when the secret is wrong, without showing either secret", async () => {
		const message = await failureOf(
			send(
				{ text: 'hi' },
				{ settings: { webhook_url: feishu.url, signing_secret: 'wrong-secret-value' } },
			),
		);
		expect(message).toBe(
			'feishu_bot failed: Feishu refused the message: code 19021 (sign match fail or timestamp is not within one hour from current time); ' +
				'the signature did not match: check signing_secret in tool_settings.feishu_bot and the server clock',
		);
	});

	it('is refused with 19021 when its clock is more than an hour off', async () => {
		const slowClock = createFeishuBotTool({ now: () => Date.now() - 2 * 60 * 60 * 1000 });
		expect(await failureOf(send({ text: 'hi' }, { tool: slowClock }))).toContain('code 19021');
	});

	it('turns any non-zero Feishu code into a tool failure with the code and message', async () => {
		feishu.behaviour = { code: 19024, msg: 'Key Words Not Found' };
		const message = await failureOf(send({ text: 'hi' }));
		expect(message).toMatch(
			/^feishu_bot failed: Feishu refused the message: code 19024 \(Key Words Not Found\); the message lacks the keyword/,
		);
		feishu.behaviour = { code: 12345, msg: 'something new' };
		expect(await failureOf(send({ text: 'hi' }))).toBe(
			'feishu_bot failed: Feishu refused the message: code 12345 (something new)',
		);
	});

	it('reports an HTTP error status, keeping the webhook token out of the echoed body', async () => {
		feishu.behaviour = 'http-500';
		const message = await failureOf(send({ text: 'hi' }));
		expect(message).toMatch(
			/^feishu_bot failed: the configured Feishu webhook answered HTTP 500 Internal Server Error: "internal error handling /,
		);
		expect(message).toContain('[REDACTED]');
	});

	it('fails on a 200 answer that is not Feishu JSON, and does not follow redirects', async () => {
		feishu.behaviour = 'not-json';
		expect(await failureOf(send({ text: 'hi' }))).toContain(
			"answered HTTP 200 OK but not with Feishu's JSON",
		);
		feishu.behaviour = 'redirect';
		expect(await failureOf(send({ text: 'hi' }))).toContain(
			'answered HTTP 302 Found (a redirect, which is not followed; check webhook_url)',
		);
	});

	it('gives up after timeout_ms when the webhook does not answer', async () => {
		feishu.behaviour = 'hang';
		const started = Date.now();
		const message = await failureOf(
			send({ text: 'hi' }, { settings: { webhook_url: feishu.url, timeout_ms: 200 } }),
		);
		expect(message).toBe(
			'feishu_bot failed: the configured Feishu webhook did not answer within 200 ms (timeout_ms); the message may or may not have been sent',
		);
		expect(Date.now() - started).toBeLessThan(1500);
	});

	it('stops when the engine aborts the call', async () => {
		feishu.behaviour = 'hang';
		const controller = new AbortController();
		setTimeout(() => controller.abort(), 100);
		expect(await failureOf(send({ text: 'hi' }, { signal: controller.signal }))).toMatch(
			/^feishu_bot stopped: the call was cancelled/,
		);
	});

	it('names the configured webhook, not its address, when nothing listens there', async () => {
		const port = await freeLoopbackPort();
		const message = await failureOf(
			send({ text: 'hi' }, { settings: { webhook_url: `http://127.0.0.1:${port}${HOOK_PATH}` } }),
		);
		expect(message).toBe(
			'feishu_bot failed: could not reach the configured Feishu webhook (ECONNREFUSED); check webhook_url and the network',
		);
	});

	it("refuses a message over Feishu's 20 KB limit without sending it", async () => {
		const message = await failureOf(
			send({ lines: Array.from({ length: 20 }, () => 'x'.repeat(1500)) }),
		);
		expect(message).toMatch(
			/^feishu_bot refused: the message is \d+ bytes as JSON, over Feishu's 20480 byte limit/,
		);
		expect(feishu.bodies).toHaveLength(0);
	});

	it('says how to configure it when webhook_url is missing', async () => {
		await expect(send({ text: 'hi' }, { settings: {} })).rejects.toThrow(
			"feishu_bot is not configured: in n8n choose an 'Agent Core: Feishu / Lark Bot' credential on the node; elsewhere set tool_settings.feishu_bot.webhook_url to the custom bot's webhook address (http or https)",
		);
	});
});

describe('feishu_bot args and settings validation', () => {
	const check = (args: unknown) => validateAgainst(feishuBotTool.parameters, args);

	it('accepts a text message or a post, and nothing in between', () => {
		expect(check({ text: 'hello' }).ok).toBe(true);
		expect(check({ lines: ['a'] }).ok).toBe(true);
		expect(check({ title: 'T', lines: ['a', 'b'] }).ok).toBe(true);
		for (const invalid of [
			{},
			{ text: '' },
			{ text: 'x'.repeat(4001) },
			{ lines: [] },
			{ title: 'T' },
			{ title: 'T', text: 'a' },
			{ lines: 'a' },
			{ text: 'a', url: 'http://x' },
		]) {
			expect(check(invalid).ok).toBe(false);
		}
	});

	it('rejects text and lines together, naming the property that does not belong', () => {
		const result = check({ text: 'a', lines: ['b'] });
		expect(result.ok).toBe(false);
		expect(result.ok === false && result.issues).toEqual(
			expect.arrayContaining([
				'args: unknown property "lines" is not allowed',
				'args: unknown property "text" is not allowed',
			]),
		);
	});

	it('requires an http(s) webhook_url and allows only known settings', () => {
		const settings = (value: unknown) =>
			validateAgainst(feishuBotTool.settingsSchema!, value, 'tool_settings.feishu_bot');
		expect(
			settings({
				webhook_url: 'https://open.feishu.cn/open-apis/bot/v2/hook/x',
				signing_secret: 's',
				timeout_ms: 5000,
			}).ok,
		).toBe(true);
		expect(settings({})).toEqual({
			ok: false,
			issues: ['tool_settings.feishu_bot: missing required property "webhook_url"'],
		});
		expect(settings({ webhook_url: 'ftp://x' }).ok).toBe(false);
		expect(settings({ webhook_url: 'https://x', timeout_ms: 0 }).ok).toBe(false);
		expect(settings({ webhook_url: 'https://x', url: 'https://y' }).ok).toBe(false);
	});
});
