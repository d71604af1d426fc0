// Hostile inputs against the derived settings: prototype keys, values of the wrong kind, and panel values from expressions.
import { ConfigError, DEFAULT_CONFIG, resolveConfig } from '../../src/settings/config';
import { SETTINGS } from '../../src/settings/settings';
import { ToolRegistry, builtInTools } from '../../src/tools/registry';
import { configFromCollections, configFromPanel } from '../../nodes/AgentCore/panel/settings';
import { useEventLoopWatchdog } from '../support/watchdog';

const registry = new ToolRegistry(builtInTools);

function refusal(raw: unknown): ConfigError {
	try {
		resolveConfig(raw, registry);
	} catch (error) {
		if (error instanceof ConfigError) return error;
		throw error;
	}
	throw new Error('accepted');
}

describe('settings under hostile input', () => {
	useEventLoopWatchdog('settings');

	it.each(['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf'])(
		'refuses the prototype key %s as an unknown key, naming it',
		(key) => {
			const raw = JSON.parse(`{"model":"m",${JSON.stringify(key)}:{"max_steps":1000000}}`);
			const error = refusal(raw);
			expect(error.key).toBe(key);
			expect(error.message).toMatch(
				new RegExp(`^unknown config key "${key}" \\(known keys: model, `),
			);
			expect(({} as Record<string, unknown>).max_steps).toBeUndefined();
		},
	);

	it('leaves the table and the defaults untouched by a run that received a polluted config', () => {
		const before = JSON.stringify(DEFAULT_CONFIG);
		const config = resolveConfig({ model: 'm', allowed_tools: ['json_transform'] }, registry);
		config.allowed_tools.push('http_request');
		(config.tool_settings as Record<string, unknown>).x = {};
		expect(JSON.stringify(DEFAULT_CONFIG)).toBe(before);
		expect(SETTINGS.allowed_tools.default).toEqual([]);
	});

	it.each([
		['max_steps', 1e308, 'max_steps must be an integer from 1 to 1000'],
		[
			'max_steps',
			Number.NaN,
			'max_steps: NaN is not a finite number; give an integer from 1 to 1000',
		],
		['timeout', '120', 'timeout must be a number from 0.001 to 86400'],
		['temperature', { valueOf: () => 1 }, 'temperature must be a number from 0 to 2'],
		['json_mode', ['json_object'], 'json_mode must be "json_object", "json_schema" or "off"'],
		['allowed_tools', [1], 'allowed_tools must be an array of tool names'],
		[
			'tool_settings',
			{ http_request: [] },
			'tool_settings must be an object mapping tool names to settings objects',
		],
	])("refuses %s = %p with the check's own sentence", (key, value, message) => {
		const error = refusal({ model: 'm', [key]: value });
		expect([error.key, error.message]).toEqual([key, message]);
	});

	it.each([Infinity, Number.NaN])(
		'refuses a panel number an expression made %p (Max Cost, Context Window) naming its key',
		(value) => {
			// Max Cost is a version 2 field (Governance → Budgets); version 1 has none.
			const costly = configFromPanel(2, { budgets: { maxCost: value }, options: {} });
			expect(refusal({ model: 'm', ...costly }).message).toMatch(
				/^max_cost: (Infinity|NaN) is not a finite number/,
			);
			const windowed = configFromPanel(2, { options: { contextWindowTokens: value } });
			expect(refusal({ model: 'm', ...windowed }).key).toBe('context_window_tokens');
		},
	);

	it('passes a panel value an expression made hostile on to the engine checks, which refuse it naming the key', () => {
		const config = configFromCollections({
			limits: { maxSteps: '5; DROP' },
			options: { jsonMode: 'json_object\n', reasoningEffort: 'extreme' },
		});
		expect(refusal({ model: 'm', ...config }).key).toBe('reasoning_effort');
		expect(refusal({ model: 'm', ...config, reasoning_effort: 'low' }).message).toBe(
			'max_steps must be an integer from 1 to 1000',
		);
		expect(refusal({ model: 'm', ...config, reasoning_effort: 'low', max_steps: 5 }).message).toBe(
			'json_mode must be "json_object", "json_schema" or "off"',
		);
	});
});
