// The settings table is the one declaration: engine defaults, checks, panel entries, node mapping and the docs' key table agree with it.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { INodeProperties } from 'n8n-workflow';
import {
	type AgentConfig,
	ConfigError,
	DEFAULT_CONFIG,
	resolveConfig,
} from '../../src/settings/config';
import { RUN_OPTION_SETTINGS, SETTINGS, settingEntries } from '../../src/settings/settings';
import { ToolRegistry, builtInTools } from '../../src/tools/registry';
import { agentCoreProperties } from '../../nodes/AgentCore/V1/description';
import { AgentCore } from '../../nodes/AgentCore/AgentCore.node';
import { panelCell, placeOf } from '../../nodes/AgentCore/panel/places';
import {
	collectionProperties,
	configFromCollections,
	configFromPanel,
} from '../../nodes/AgentCore/panel/settings';
import { integer } from '../../src/settings/setting-checks';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { settingsTableLines } = require('../../scripts/settings-table.js') as {
	settingsTableLines: (settings: unknown, runOptions: unknown, cell: typeof panelCell) => string[];
};

const registry = new ToolRegistry(builtInTools);

function problemOf(config: Record<string, unknown>): string {
	try {
		resolveConfig({ model: 'm', ...config }, registry);
	} catch (error) {
		if (error instanceof ConfigError) return `${error.key}: ${error.message}`;
		throw error;
	}
	throw new Error('the config was accepted');
}

/** A Markdown table under a heading, as rows of cells keyed by the header's names. */
function tableUnder(markdown: string, heading: string): Array<Record<string, string>> {
	if (!markdown.includes(`\n${heading}\n`))
		throw new Error(`no "${heading}" heading: point this test at the table's page`);
	const start = markdown.indexOf(`\n${heading}\n`) + heading.length + 2;
	const section = markdown.slice(start).split(/\n#{2,3} /)[0];
	const lines = section.split('\n').filter((line) => line.startsWith('|'));
	const cells = (line: string) =>
		line
			.slice(1, -1)
			.split(' | ')
			.map((cell) => cell.trim());
	const header = cells(lines[0]);
	return lines
		.slice(2)
		.map((line) => Object.fromEntries(cells(line).map((cell, index) => [header[index], cell])));
}

const panelEntries = (
	properties: INodeProperties[],
): Array<INodeProperties & { collection: string }> =>
	properties.flatMap((property) => [
		{ ...property, collection: 'top' },
		...(property.type === 'collection'
			? ((property.options ?? []) as INodeProperties[]).map((entry) => ({
					...entry,
					collection: property.name,
				}))
			: []),
	]);

describe('the settings table', () => {
	it('gives the engine the same defaults as before it existed', () => {
		expect(DEFAULT_CONFIG).toMatchObject({
			timeout: 120,
			max_steps: 5,
			max_tool_calls: 10,
			loop_limit: 3,
			allowed_tools: [],
			approval_required: [],
			run_state_max_age_days: 7,
			single_call_timeout: 30,
			total_token_budget: 0,
			observation_max_len: 2000,
			primary_output: 'final_answer',
			tool_settings: {},
			json_mode: 'json_object',
			prompt_examples: 'on_error',
		});
	});

	it('has each default pass its own check', () => {
		for (const [key, setting] of settingEntries())
			if ('default' in setting)
				expect([key, setting.check(setting.default, key)]).toEqual([key, undefined]);
	});

	it('types every config key as its check accepts, optional where it has no default (tsc holds these lines)', () => {
		const config: AgentConfig = { ...DEFAULT_CONFIG, model: 'm' };
		// @ts-expect-error json_mode takes only its three modes
		config.json_mode = 'yaml';
		// @ts-expect-error max_steps is a number
		config.max_steps = '5';
		// @ts-expect-error primary_output has one value
		config.primary_output = 'trace';
		// @ts-expect-error model is required
		const withoutModel: AgentConfig = { ...DEFAULT_CONFIG };
		const optional: Array<
			AgentConfig['temperature'] | AgentConfig['shared_budget'] | AgentConfig['output_schema']
		> = [undefined, undefined, undefined];
		expect([withoutModel.model, optional.length]).toEqual([undefined, 3]);
	});

	it('refuses bad values with the messages it always gave, naming the key', () => {
		expect(problemOf({ max_steps: 0 })).toBe(
			'max_steps: max_steps must be an integer from 1 to 1000',
		);
		expect(problemOf({ timeout: 0 })).toBe('timeout: timeout must be a number from 0.001 to 86400');
		expect(problemOf({ total_token_budget: -1 })).toBe(
			'total_token_budget: total_token_budget must be an integer ≥ 0',
		);
		expect(problemOf({ reasoning_effort: 'max' })).toBe(
			'reasoning_effort: reasoning_effort must be one of "minimal", "low", "medium", "high"',
		);
		expect(problemOf({ json_mode: 'yaml' })).toBe(
			'json_mode: json_mode must be "json_object", "json_schema" or "off"',
		);
		expect(problemOf({ prompt_examples: 'never' })).toBe(
			'prompt_examples: prompt_examples must be "on_error" or "always"',
		);
		expect(problemOf({ primary_output: 'trace' })).toBe(
			'primary_output: primary_output must be "final_answer"',
		);
		expect(problemOf({ model: ' ' })).toBe(
			'model: model must be a non-empty string (the model id)',
		);
		expect(problemOf({ allowed_tools: 'x' })).toBe(
			'allowed_tools: allowed_tools must be an array of tool names',
		);
		expect(problemOf({ run_state_max_age_days: 31 })).toBe(
			'run_state_max_age_days: run_state_max_age_days must be a number of days from 0.001 to 30: a used state is remembered 30 days, so an older one could be resumed again',
		);
		// The keys of before, in their order (a later setting may sit among them), then exactly the table's keys.
		const before =
			'model, temperature, max_output_tokens, reasoning_effort, timeout, max_steps, max_tool_calls, loop_limit, allowed_tools, approval_required, run_state_max_age_days, single_call_timeout, total_token_budget, observation_max_len, primary_output, tool_settings, json_mode, prompt_examples, shared_budget, prices, output_schema'.split(
				', ',
			);
		const listed = /^nope: unknown config key "nope" \(known keys: (.*)\)$/
			.exec(problemOf({ nope: 1 }))![1]
			.split(', ');
		expect(listed.filter((key) => before.includes(key))).toEqual(before);
		expect(listed).toEqual(Object.keys(SETTINGS));
	});

	it("names for every panel setting the version 1 field it is, with that field's display name, place and engine default", () => {
		const entries = panelEntries(agentCoreProperties);
		const panelled = [
			...settingEntries().map(([, setting]) => setting),
			...Object.values(RUN_OPTION_SETTINGS),
		].filter(
			(setting) => setting.panel && (('since' in setting.panel && setting.panel.since) || 1) === 1,
		);
		expect(panelled.length).toBeGreaterThan(15);
		for (const { panel } of panelled) {
			const entry = entries.find(
				(candidate) => candidate.name === panel!.name && candidate.collection === panel!.collection,
			);
			expect({ name: panel!.name, displayName: entry?.displayName }).toEqual({
				name: panel!.name,
				displayName: panel!.displayName,
			});
		}
		for (const [key, setting] of settingEntries()) {
			const entry = entries.find((candidate) => candidate.name === setting.panel?.name);
			if (
				entry &&
				'default' in setting &&
				setting.panel?.default === undefined &&
				!setting.panel?.builtByNode
			)
				expect([key, entry.default]).toEqual([key, setting.default]);
		}
	});

	it('places every panel setting in version 2 where its panel has it: the collection and the field by parameter name and display name', () => {
		const properties = new AgentCore().nodeVersions[2].description.properties;
		const rows = [...settingEntries(), ...Object.entries(RUN_OPTION_SETTINGS)];
		const panelled = rows.filter(
			([, setting]) =>
				setting.panel && (('since' in setting.panel && setting.panel.since) || 1) <= 2,
		);
		expect(panelled.length).toBeGreaterThan(20);
		for (const [key, setting] of panelled) {
			const place = placeOf(setting.panel!, 2)!;
			const collection =
				place.path.length === 2
					? properties.find((property) => property.name === place.path[0])
					: undefined;
			const fields = collection ? ((collection.options ?? []) as INodeProperties[]) : properties;
			const field = fields.find(
				(candidate) => candidate.name === place.path[place.path.length - 1],
			);
			const found = { key, collection: collection?.displayName ?? '', field: field?.displayName };
			expect(found).toEqual({ key, collection: place.collection, field: place.displayName });
		}
	});

	it('names no field a version lacks: a setting added in version 2 has no version 1 place, and Max Cost is under Budgets', () => {
		expect(panelCell('max_cost', SETTINGS.max_cost, 1)).toBe('—');
		expect(panelCell('max_cost', SETTINGS.max_cost, 2)).toBe(
			'Governance → Budgets → Max Cost per Run (USD)',
		);
		for (const [key, setting] of settingEntries())
			if (setting.panel?.since === 2) expect([key, panelCell(key, setting, 1)]).toEqual([key, '—']);
	});

	it('maps each Limits and Options field onto its config key, and leaves a field at its unset value out', () => {
		const limits = { maxSteps: 9, loopLimit: 0, timeout: 60, sharedBudgetTokens: 5 };
		const options = {
			temperature: 0.4,
			maxOutputTokens: 0,
			reasoningEffort: '',
			jsonMode: 'off',
			batchSize: 3,
		};
		// Version 1 is frozen: a setting that arrived later with another default runs as version 1 always did.
		expect(configFromCollections({ limits, options })).toStrictEqual({
			temperature: 0.4,
			timeout: 60,
			max_steps: 9,
			loop_limit: 0,
			json_mode: 'off',
			max_parallel_calls: 1,
		});
		expect(
			configFromCollections({
				limits: {},
				options: { maxOutputTokens: 500, reasoningEffort: 'low' },
			}),
		).toStrictEqual({ max_output_tokens: 500, reasoning_effort: 'low', max_parallel_calls: 1 });
	});

	it('Max Parallel Tool Calls: version 2 sends what its Options say (else the engine default, 4); version 1 always runs 1', () => {
		expect(configFromPanel(2, { options: {}, budgets: {} })).not.toHaveProperty(
			'max_parallel_calls',
		);
		expect(configFromPanel(2, { options: { maxParallelToolCalls: 2 }, budgets: {} })).toMatchObject(
			{
				max_parallel_calls: 2,
			},
		);
		// A version 1 workflow cannot carry the field; even one edited by hand to hold it runs one call per reply.
		expect(configFromPanel(1, { limits: {}, options: { maxParallelToolCalls: 8 } })).toMatchObject({
			max_parallel_calls: 1,
		});
		expect(SETTINGS.max_parallel_calls.default).toBe(4);
	});

	it('shows a limit added for a later node version only in that version, sorted among the others', () => {
		const added = {
			default: 5,
			check: integer(1, 100),
			meaning: 'm',
			panel: {
				collection: 'limits' as const,
				name: 'maxRetries',
				displayName: 'Max Retries',
				type: 'number' as const,
				since: 2,
			},
		};
		const entries = [...settingEntries(), ['max_retries', added] as never];
		const names = (version: number) =>
			collectionProperties('limits', [], version, entries).map((entry) => entry.name);
		expect(names(1)).toEqual(collectionProperties('limits', []).map((entry) => entry.name));
		expect(names(1)).not.toContain('maxRetries');
		const displayNames = (version: number) =>
			collectionProperties('limits', [], version, entries).map((entry) => entry.displayName);
		expect(names(2)).toContain('maxRetries');
		expect(displayNames(2)).toEqual(
			[...displayNames(2)].sort((first, second) => first.localeCompare(second)),
		);
		expect(
			collectionProperties('limits', [], 2, entries).find((entry) => entry.name === 'maxRetries'),
		).toStrictEqual({
			displayName: 'Max Retries',
			name: 'maxRetries',
			type: 'number',
			// An integer check: version 2 shows it without decimals (issue #41).
			typeOptions: { minValue: 1, numberPrecision: 0 },
			default: 5,
		});
	});

	it('shows whole-number settings without decimals in version 2 only, and every number of version 2 whose check is an integer so (issue #41)', () => {
		for (const [, setting] of settingEntries()) {
			const panel = setting.panel;
			if (!panel || panel.type !== 'number' || panel.builtByNode) continue;
			const integer = setting.check.range?.integer === true;
			const inVersion = (version: number) =>
				collectionProperties(panel.collection as 'limits' | 'options', [], version).find(
					(entry) => entry.name === panel.name,
				);
			if (panel.collection !== 'top' && (panel.since ?? 1) <= 1)
				expect([panel.name, inVersion(1)?.typeOptions?.numberPrecision]).toEqual([
					panel.name,
					panel.typeOptions?.numberPrecision,
				]);
			if (panel.collection !== 'top' && integer)
				expect([panel.name, inVersion(2)?.typeOptions?.numberPrecision]).toEqual([panel.name, 0]);
		}
	});

	it('matches the configuration table in docs/node-panel.md in every column the page has', () => {
		const page = tableUnder(
			readFileSync(join(__dirname, '..', '..', 'docs', 'node-panel.md'), 'utf8'),
			'## Configuration keys',
		);
		const table = settingsTableLines(SETTINGS, RUN_OPTION_SETTINGS, panelCell).join('\n');
		const generated = tableUnder(`\n## Configuration keys\n${table}\n`, '## Configuration keys');
		const columns = Object.keys(page[0]);
		expect(columns).toEqual(expect.arrayContaining(['key', 'default', 'meaning']));
		const pick = (row: Record<string, string>) =>
			Object.fromEntries(columns.map((column) => [column, row[column]]));
		const configRows = generated.filter((row) => !row.key.includes('(library option)'));
		expect(configRows.map(pick).sort((a, b) => a.key.localeCompare(b.key))).toEqual(
			page
				.filter((row) => !row.key.includes('(library option)'))
				.map(pick)
				.sort((a, b) => a.key.localeCompare(b.key)),
		);
		// Once the page has the CLI column, the run options (Instructions / developerText / --system) are in it too.
		if (columns.includes('CLI')) expect(page.map(pick)).toEqual(generated.map(pick));
	});
});

/** A number-typed place in a setting's schema: the path to it (a map's key as "model-x", an array's first item) and its declaration. */
type NumberPlace = { segments: Array<string | number>; declared: Record<string, unknown> };

function numberPlaces(schema: unknown, segments: Array<string | number> = []): NumberPlace[] {
	if (typeof schema !== 'object' || schema === null) return [];
	const node = schema as Record<string, unknown>;
	if (node.type === 'number' || node.type === 'integer') return [{ segments, declared: node }];
	const properties = Object.entries((node.properties ?? {}) as Record<string, unknown>).flatMap(
		([name, child]) => numberPlaces(child, [...segments, name]),
	);
	return [
		...properties,
		...numberPlaces(node.additionalProperties, [...segments, 'model-x']),
		...numberPlaces(node.items, [...segments, 0]),
	];
}

/** The value with `leaf` placed at the path, and the path as a refusal names it. */
function placed(
	key: string,
	segments: Array<string | number>,
	leaf: unknown,
): { value: unknown; path: string } {
	const value = segments.reduceRight<unknown>(
		(inner, segment) => (typeof segment === 'number' ? [inner] : { [segment]: inner }),
		leaf,
	);
	const path =
		key +
		segments
			.map((segment) =>
				typeof segment === 'number'
					? `[${segment}]`
					: /^[A-Za-z_]\w*$/.test(segment)
						? `.${segment}`
						: `[${JSON.stringify(segment)}]`,
			)
			.join('');
	return { value, path };
}

describe('every number in the settings table', () => {
	const refusalOf = (config: Record<string, unknown>): ConfigError => {
		try {
			resolveConfig({ model: 'm', ...config }, registry);
		} catch (error) {
			if (error instanceof ConfigError) return error;
			throw error;
		}
		throw new Error(`accepted ${JSON.stringify(config)}`);
	};
	const nonFinite = [Infinity, -Infinity, Number.NaN];

	// Read from the table itself: a numeric row added later is swept without a line here.
	const numericRows = settingEntries().filter(([, setting]) => setting.check.range);
	const nestedPlaces = settingEntries().flatMap(([key, setting]) =>
		numberPlaces(setting.check.schema).map((place) => ({ key, ...place })),
	);
	const toolPlaces = builtInTools.flatMap((tool) =>
		numberPlaces(tool.settingsSchema, [tool.name]).map((place) => ({
			key: 'tool_settings',
			...place,
		})),
	);

	it('finds the numbers to sweep: the rows with a range, and those nested in prices, shared_budget, mcp_servers and tool_settings', () => {
		expect(numericRows.map(([key]) => key)).toEqual(
			expect.arrayContaining([
				'max_steps',
				'max_cost',
				'timeout',
				'temperature',
				'context_window_tokens',
			]),
		);
		expect(nestedPlaces.map((place) => placed(place.key, place.segments, 0).path)).toEqual(
			expect.arrayContaining([
				'prices["model-x"].input_per_million',
				'shared_budget.cost',
				'shared_budget.tokens',
				'mcp_servers[0].timeout',
			]),
		);
		expect(toolPlaces.map((place) => placed(place.key, place.segments, 0).path)).toEqual(
			expect.arrayContaining(['tool_settings.http_request.max_response_bytes']),
		);
	});

	it.each(numericRows.map(([key]) => [key]))(
		'refuses %s = Infinity, -Infinity, NaN and a value out of its range, naming it',
		(key) => {
			const { minimum, maximum, integer: whole } = SETTINGS[key].check.range!;
			for (const value of nonFinite) {
				const error = refusalOf({ [key]: value });
				expect([error.key, error.message]).toEqual([
					key,
					expect.stringMatching(
						new RegExp(`^${key}: ${value} is not a finite number.*; give .*${minimum}`),
					),
				]);
			}
			const outside = [
				minimum - 1,
				...(maximum < Number.MAX_SAFE_INTEGER ? [maximum + 1] : [Number.MAX_SAFE_INTEGER + 2]),
				...(whole ? [minimum + 0.5] : []),
			];
			for (const value of outside)
				expect([value, refusalOf({ [key]: value }).key]).toEqual([value, key]);
		},
	);

	it.each(
		[...nestedPlaces, ...toolPlaces].map((place) => [
			placed(place.key, place.segments, 0).path,
			place,
		]),
	)(
		'refuses %s = Infinity, -Infinity, NaN and a value out of its range, naming the path',
		(path, place) => {
			for (const value of nonFinite) {
				const error = refusalOf({ [place.key]: placed(place.key, place.segments, value).value });
				expect([error.key, error.message]).toEqual([
					place.key,
					expect.stringContaining(`${path}: ${value} is not a finite number`),
				]);
			}
			const { minimum, exclusiveMinimum, maximum } = place.declared as {
				minimum?: number;
				exclusiveMinimum?: number;
				maximum?: number;
			};
			const outside = [
				...(typeof minimum === 'number' ? [minimum - 1] : []),
				...(typeof exclusiveMinimum === 'number' ? [exclusiveMinimum] : []),
				...(typeof maximum === 'number' ? [maximum * 2 + 1] : []),
			];
			for (const value of outside) {
				const error = refusalOf({ [place.key]: placed(place.key, place.segments, value).value });
				// A tool's own settings are named down to the tool (tool_settings.http_request), as its schema check names them.
				expect([error.key, error.message]).toEqual([
					expect.stringMatching(new RegExp(`^${place.key}`)),
					expect.stringContaining(path.replace(/\["(.*?)"\]/g, '.$1')),
				]);
			}
		},
	);

	it('tells a price of 1e999 in a config file what to give instead', () => {
		const error = refusalOf(
			JSON.parse('{"prices":{"gpt-4.1":{"input_per_million":1e999,"output_per_million":10}}}'),
		);
		expect([error.key, error.message]).toEqual([
			'prices',
			'prices["gpt-4.1"].input_per_million: Infinity is not a finite number (JSON reads a number too large for it, such as 1e999, as Infinity); give a price in USD per million tokens from 0 to 1000000, e.g. 2.5',
		]);
	});
});
