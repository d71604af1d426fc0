import { ToolRegistry } from '../../src/tools/registry';
import { DEFAULT_CONFIG, resolveConfig } from '../../src/settings/config';
import { nonFiniteNumberProblem } from '../../src/settings/setting-checks';
import { settingEntries } from '../../src/settings/settings';

describe('setting defaults', () => {
	it('every default passes its own check, so a config that leaves a key out needs no check of it', () => {
		const defaults = settingEntries().filter(([, setting]) => 'default' in setting);
		expect(defaults.length).toBeGreaterThan(20);
		for (const [key, setting] of defaults) {
			const value = (setting as { default: unknown }).default;
			expect([key, nonFiniteNumberProblem(value, key, setting.check)]).toEqual([key, undefined]);
			expect([key, setting.check(value, key)]).toEqual([key, undefined]);
		}
	});

	it('a key given with its default value is still checked as given, and one left out takes the default', () => {
		const registry = new ToolRegistry();
		const given = resolveConfig({ model: 'm', max_steps: DEFAULT_CONFIG.max_steps }, registry);
		expect(given).toEqual({ ...DEFAULT_CONFIG, model: 'm' });
		expect(() => resolveConfig({ model: 'm', max_steps: undefined }, registry)).toThrow(
			/max_steps/,
		);
	});
});
