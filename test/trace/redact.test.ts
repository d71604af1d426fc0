import { runAgent } from '../../src/agent/run-agent';
import { REDACTED, Redactor, secretsInSettings } from '../../src/trace/redact';
import { secretSpellings } from '../../src/trace/secret-spellings';
import { action, final, modelFor, probeTool, useScriptedServer } from '../support/agent';

describe('Redactor', () => {
	const redactor = new Redactor(['fixed-token-123456']);

	it.each([
		['Authorization: Bearer abcdefghijklmnop', `Authorization: Bearer ${REDACTED}`],
		['key sk-proj-ABCDEFGHIJKLMNOPQRSTUV in text', `key ${REDACTED} in text`],
		['google AIzaSyA1234567890abcdefghijklmnopqrstuv', `google ${REDACTED}`],
		['gh ghp_abcdefghijklmnopqrstuvwxyz0123456789', `gh ${REDACTED}`],
		['aws AKIAABCDEFGHIJKLMNOP', `aws ${REDACTED}`],
		['jwt eyJhbGciOi.eyJzdWIiOiIx.c2lnbmF0dXJl', `jwt ${REDACTED}`],
		['https://x.test/a?api_key=s3cr3t&page=2', `https://x.test/a?api_key=${REDACTED}&page=2`],
		['{"password":"hunter2","user":"bob"}', `{"password":"${REDACTED}","user":"bob"}`],
		['the fixed-token-123456 leaked', `the ${REDACTED} leaked`],
		['prompt_tokens: 12, nothing secret here', 'prompt_tokens: 12, nothing secret here'],
	])('scrubs %j', (input, expected) => {
		expect(redactor.text(input)).toBe(expected);
	});

	it('blanks secret-named fields but keeps token counts and structure', () => {
		const input = {
			headers: { Authorization: 'x', 'X-Api-Key': 'y', accept: 'json' },
			usage: { total_tokens: 5, max_tokens: 9 },
			list: ['ok'],
		};
		expect(redactor.value(input)).toEqual({
			headers: { Authorization: REDACTED, 'X-Api-Key': REDACTED, accept: 'json' },
			usage: { total_tokens: 5, max_tokens: 9 },
			list: ['ok'],
		});
	});

	it('finds fixed header values and secret-named settings, leaving harmless headers alone', () => {
		const found = secretsInSettings({
			http_request: { headers: { 'X-Custom-Auth': 'abc123456', Accept: 'application/json' } },
			feishu_bot: {
				signing_secret: 'shh-secret',
				webhook_url: 'https://open.feishu.cn/open-apis/bot/v2/hook/tok',
			},
			redis_context: { redis_url: 'redis://:pw@127.0.0.1:6379', ttl_seconds: 60 },
		});
		expect(found.sort()).toEqual([
			'abc123456',
			'https://open.feishu.cn/open-apis/bot/v2/hook/tok',
			'redis://:pw@127.0.0.1:6379',
			'shh-secret',
		]);
	});
});

describe('Redactor with known secrets in the spellings servers echo them in', () => {
	const secret = 'p@ss/word+Key é "quoted" 2024';
	const redactor = new Redactor([secret]);
	const bytes = Buffer.from(secret, 'utf8');
	const base64 = bytes.toString('base64');

	it.each([
		['raw', secret],
		['JSON-escaped', JSON.stringify(secret).slice(1, -1)],
		[
			'JSON-escaped as Python writes it',
			JSON.stringify(secret).slice(1, -1).replace('é', '\\u00e9'),
		],
		[
			'JSON-escaped as PHP writes it',
			JSON.stringify(secret).slice(1, -1).replace(/\//g, '\\/').replace('é', '\\u00e9'),
		],
		['URL-encoded', encodeURIComponent(secret)],
		[
			'URL-encoded with lower-case escapes',
			encodeURIComponent(secret).replace(/%[0-9A-F]{2}/g, (escape) => escape.toLowerCase()),
		],
		['form-encoded', new URLSearchParams({ q: secret }).toString().slice(2)],
		['hex', bytes.toString('hex')],
		['upper-case hex', bytes.toString('hex').toUpperCase()],
		['base64', base64],
		['base64 without padding', base64.replace(/=+$/, '')],
		['URL-safe base64', bytes.toString('base64url')],
	])('replaces the %s spelling whole', (_name, spelling) => {
		expect(redactor.text(`echo ${spelling} end`)).toBe(`echo ${REDACTED} end`);
	});

	// Basic auth sends base64("user:password"): the secret starts at any byte offset of the encoded data.
	it.each(['', 'u:', 'us:', 'bob:', 'alice:', 'x'.repeat(20) + ':'])(
		'catches the secret base64-encoded after %j and before ":rest"',
		(prefix) => {
			for (const alphabet of ['base64', 'base64url'] as const) {
				const encoded = Buffer.from(`${prefix}${secret}:rest`, 'utf8').toString(alphabet);
				const result = redactor.text(`Header: ${encoded}`);
				const left = result.slice('Header: '.length).split(REDACTED);
				expect(left).toHaveLength(2);
				// What stays is the encoding of the prefix and suffix, plus at most two mixed characters at each edge.
				expect(left[0].length).toBeLessThanOrEqual(Math.ceil((prefix.length * 4) / 3) + 2);
				expect(left[1].length).toBeLessThanOrEqual(Math.ceil((':rest'.length * 4) / 3) + 2 + 2);
				expect(encoded.startsWith(left[0])).toBe(true);
			}
		},
	);

	it('leaves ordinary text alone, even text that shares a short piece of a spelling', () => {
		const shortSecret = 'abcdef';
		const text = `the YWJj base64 of "abc", 616263 in hex, and abcde are not ${shortSecret.slice(1)}x`;
		expect(new Redactor([shortSecret]).text(text)).toBe(text);
	});

	it('lists the raw secret among its spellings, each once, longest first', () => {
		const spellings = secretSpellings(secret);
		expect(spellings).toContain(secret);
		expect(new Set(spellings).size).toBe(spellings.length);
		expect(spellings.map((spelling) => spelling.length)).toEqual(
			[...spellings.map((spelling) => spelling.length)].sort((left, right) => right - left),
		);
	});
});

describe('runAgent keeps secrets out of its output', () => {
	const server = useScriptedServer();

	it('redacts args, observations and answers in trace and messages while the tool got the real value', async () => {
		const received: unknown[] = [];
		const probe = probeTool('probe', async (args) => {
			received.push(args);
			return { echoed: 'token=abc Bearer live-token-987654321 and sk-ABCDEFGHIJKLMNOPQRSTUVWX' };
		});
		probe.tool.parameters = {
			type: 'object',
			properties: { value: { type: 'integer' }, api_key: { type: 'string' } },
			required: ['value'],
		};
		server().setScript([
			action('probe', { value: 1, api_key: 'model-supplied-secret' }),
			final('Your key is sk-ABCDEFGHIJKLMNOPQRSTUVWX'),
		]);
		const result = await runAgent({
			model: modelFor(server()),
			config: { model: 'm', allowed_tools: ['probe'] },
			extraTools: [probe.tool],
			prompt: 'use key provider-key-abcdef',
			secrets: ['provider-key-abcdef'],
		});
		expect(received).toEqual([{ value: 1, api_key: 'model-supplied-secret' }]);
		const written = JSON.stringify(result);
		expect(written).not.toContain('model-supplied-secret');
		expect(written).not.toContain('live-token-987654321');
		expect(written).not.toContain('sk-ABCDEFGHIJKLMNOPQRSTUVWX');
		expect(written).not.toContain('provider-key-abcdef');
		expect(result.trace[0].action?.args).toEqual({ value: 1, api_key: REDACTED });
		expect(result.final_answer).toBe(`Your key is ${REDACTED}`);
	});
});
