import { ConfigError, resolveConfig, DEFAULT_CONFIG } from '../../src/settings/config';
import { InputError } from '../../src/core/input-error';
import { normaliseInput } from '../../src/agent/run-start';
import { ToolRegistry } from '../../src/tools/registry';

const registry = new ToolRegistry();

function configError(raw: unknown): ConfigError {
	try {
		resolveConfig(raw, registry);
	} catch (error) {
		if (error instanceof ConfigError) return error;
		throw error;
	}
	throw new Error('expected a ConfigError');
}

describe('resolveConfig', () => {
	it('fills the documented defaults around the required model', () => {
		expect(resolveConfig({ model: 'm' }, registry)).toEqual({ ...DEFAULT_CONFIG, model: 'm' });
	});

	it.each([
		[{ model: 'm', max_steps: 0 }, 'max_steps', 'max_steps must be an integer from 1 to 1000'],
		[{ model: 'm', max_steps: 2.5 }, 'max_steps', 'max_steps must be an integer'],
		[{ model: 'm', max_tool_calls: -1 }, 'max_tool_calls', 'max_tool_calls must be an integer'],
		[{ model: 'm', temperature: 3 }, 'temperature', 'temperature must be a number from 0 to 2'],
		[{ model: 'm', timeout: '10' }, 'timeout', 'timeout must be a number'],
		[
			{ model: 'm', total_token_budget: -5 },
			'total_token_budget',
			'total_token_budget must be an integer ≥ 0',
		],
		[{ model: '' }, 'model', 'model must be a non-empty string'],
		[{ max_steps: 3 }, 'model', 'model is required'],
		[{ model: 'm', max_step: 3 }, 'max_step', 'unknown config key "max_step"'],
		[
			{ model: 'm', allowed_tools: ['shell'] },
			'allowed_tools',
			'unknown tool "shell" (available: http_request, json_transform, redis_context, feishu_bot)',
		],
		[
			{ model: 'm', allowed_tools: 'json_transform' },
			'allowed_tools',
			'allowed_tools must be an array',
		],
		[
			{ model: 'm', tool_settings: { nope: {} } },
			'tool_settings',
			'tool_settings names unknown tool "nope"',
		],
		[{ model: 'm', json_mode: 'yes' }, 'json_mode', 'json_mode must be'],
		[
			{ model: 'm', prompt_examples: 'sometimes' },
			'prompt_examples',
			'prompt_examples must be "on_error" or "always"',
		],
		[
			{ model: 'm', tool_settings: { http_request: { headers: { 'x-api-key': 'k-123' } } } },
			'tool_settings.http_request',
			'tool_settings.http_request.headers: fixed headers (x-api-key) are sent only to allowed_domains, and allowed_domains is empty; list the hosts',
		],
		[
			{ model: 'm', primary_output: 'trace' },
			'primary_output',
			'primary_output must be "final_answer"',
		],
		[[1, 2], 'config', 'config must be a JSON object'],
	])('rejects %j naming %s', (raw, key, message) => {
		const error = configError(raw);
		expect(error.key).toBe(key);
		expect(error.message).toContain(message);
	});

	it('accepts json_mode true/false as json_object/off', () => {
		expect(resolveConfig({ model: 'm', json_mode: false }, registry).json_mode).toBe('off');
		expect(resolveConfig({ model: 'm', json_mode: true }, registry).json_mode).toBe('json_object');
	});
});

describe('normaliseInput', () => {
	it('appends the prompt to the history as the new user message', () => {
		const result = normaliseInput('new', [
			{ role: 'user', content: 'old' },
			{ role: 'assistant', content: 'reply' },
		]);
		expect(result.newUserMessage).toEqual({ role: 'user', content: 'new' });
		expect(result.history).toHaveLength(3);
	});

	it('takes messages_json as a JSON string too, answering its last user message', () => {
		const result = normaliseInput(
			undefined,
			'[{"role":"system","content":"s"},{"role":"user","content":"q"}]',
		);
		expect(result.newUserMessage).toEqual({ role: 'user', content: 'q' });
	});

	it.each([
		[undefined, undefined, 'prompt', 'no input'],
		['', [], 'prompt', 'no input'],
		[42, undefined, 'prompt', 'prompt must be text'],
		[undefined, '[{"role":"user"', 'messages_json', 'not valid JSON'],
		[undefined, { role: 'user', content: 'x' }, 'messages_json', 'must be an array'],
		[undefined, [{ role: 'bot', content: 'x' }], 'messages_json', 'messages_json[0].role must be'],
		[
			undefined,
			[{ role: 'user', content: 5 }],
			'messages_json',
			'messages_json[0].content must be a string',
		],
		[
			undefined,
			[
				{ role: 'user', content: 'q' },
				{ role: 'assistant', content: 'a' },
			],
			'messages_json',
			'must end with a user message',
		],
	])('rejects prompt %j / messages %j naming %s', (prompt, messages, field, message) => {
		expect(() => normaliseInput(prompt, messages)).toThrow(InputError);
		try {
			normaliseInput(prompt, messages);
		} catch (error) {
			expect((error as InputError).field).toBe(field);
			expect((error as InputError).message).toContain(message);
		}
	});
});
