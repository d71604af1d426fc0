// Max Parallel Tool Calls says which tools run together (issue #48), and each tool it names runs so in the engine.
import { AgentCore } from '../../nodes/AgentCore/AgentCore.node';
import { hasSideEffects } from '../../src/agent/base/streaks';
import { builtInTools } from '../../src/tools/registry';
import type { INodeProperties } from 'n8n-workflow';

/** The field as version 2's panel shows it, under Options. */
function panelField(): INodeProperties {
	const options = new AgentCore().nodeVersions[2].description.properties.find(
		(property) => property.name === 'options',
	)!;
	return (options.options as INodeProperties[]).find(
		(option) => option.name === 'maxParallelToolCalls',
	)!;
}

const tool = (name: string) => builtInTools.find((candidate) => candidate.name === name)!;

describe('Max Parallel Tool Calls in the panel', () => {
	it('its tooltip names the tools that run together, Read-Only Tools for the others, and 1', () => {
		const tooltip = panelField().description!;
		for (const words of [
			'1 = one call per reply',
			'JSON Transform, HTTP Request GET, Redis Context get and list',
			'the workflow tools, tool sub-nodes and MCP tools named in Read-Only Tools',
			'runs alone, in order',
			"one step of the output's trace",
			'Intermediate Steps entry each',
		])
			expect(tooltip).toContain(words);
	});

	it('the built-in calls it names run together in a batch, and the others alone', () => {
		// run-batch.ts groups consecutive calls for which hasSideEffects is false.
		expect(hasSideEffects(tool('json_transform'), { data: {}, expression: '$' })).toBe(false);
		expect(hasSideEffects(tool('http_request'), { url: 'https://a.example', method: 'GET' })).toBe(
			false,
		);
		expect(hasSideEffects(tool('http_request'), { url: 'https://a.example' })).toBe(false);
		expect(hasSideEffects(tool('http_request'), { url: 'https://a.example', method: 'POST' })).toBe(
			true,
		);
		for (const operation of ['get', 'list'])
			expect(hasSideEffects(tool('redis_context'), { operation, key: 'k' })).toBe(false);
		expect(hasSideEffects(tool('redis_context'), { operation: 'set', key: 'k', value: 'v' })).toBe(
			true,
		);
		expect(hasSideEffects(tool('feishu_bot'), { text: 'hi' })).toBe(true);
		expect(panelField().description).not.toMatch(/Feishu/);
	});
});
