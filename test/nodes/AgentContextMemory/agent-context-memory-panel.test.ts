// Agent Context Memory's panel is Agent Context's fields, declared once there: shown without their operation conditions.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { INodeProperties } from 'n8n-workflow';
import { agentContextProperties } from '../../../nodes/AgentContext/description';
import { agentContextOptions } from '../../../nodes/AgentContext/options';
import { AgentContextMemory } from '../../../nodes/AgentContextMemory/AgentContextMemory.node';

const { description } = new AgentContextMemory();
const optionsOf = (property: INodeProperties) => (property.options ?? []) as INodeProperties[];

describe('Agent Context Memory’s panel', () => {
	it('is a sub-node with one ai_memory output and no input, as n8n’s memory nodes are', () => {
		expect(description.inputs).toEqual([]);
		expect(description.outputs).toEqual(['ai_memory']);
		expect(description.description).toMatch(/Agent Core's Memory input \(not n8n's AI Agent\)/);
	});

	it('shows Agent Context’s own fields, each unchanged but for the Operation and version conditions it has no use for', () => {
		const names = description.properties.map((property) => property.name);
		expect(names).toEqual([
			'agentCoreNotice',
			'storage',
			'memoryNotice',
			'sessionId',
			'contextScope',
			'contextScope',
			'window',
			'maxTurns',
			'historySize',
			'maxCharacters',
			'options',
		]);
		// Conversation Scope is the sub-node's own, per its own versions (see the test of its defaults).
		for (const property of description.properties.filter(
			(p) => !['agentCoreNotice', 'options', 'contextScope'].includes(p.name),
		)) {
			const own = agentContextProperties.filter((p) => p.name === property.name).at(-1)!;
			const { displayOptions: _ignored, ...rest } = own;
			expect(property).toMatchObject(rest);
			// A condition on a field the sub-node lacks would hide the field for good.
			expect(JSON.stringify(property.displayOptions ?? {})).not.toMatch(/operation|@version/);
		}
		expect(description.properties.find((p) => p.name === 'window')?.default).toBe('allLiveTurns');
		expect(description.properties.find((p) => p.name === 'maxTurns')?.displayOptions).toEqual({
			show: { window: ['lastTurns'] },
		});
	});

	it('offers the Options that matter around one run, as Agent Context declares them', () => {
		const options = optionsOf(description.properties.find((p) => p.name === 'options')!);
		const own = optionsOf(agentContextOptions);
		expect(options.map((o) => o.name)).not.toContain('busyLock');
		expect(options.map((o) => o.name)).not.toContain('providerFormats');
		for (const option of options) expect(option).toBe(own.find((o) => o.name === option.name));
		expect(options.map((o) => o.name)).toEqual(
			expect.arrayContaining(['busyPolicy', 'storeUnanswered', 'keyPrefix']),
		);
	});

	it('is listed in package.json and filed under AI → Memory in n8n’s node list', () => {
		const root = join(__dirname, '..', '..', '..');
		const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
			n8n: { nodes: string[] };
		};
		expect(pkg.n8n.nodes).toContain('dist/nodes/AgentContextMemory/AgentContextMemory.node.js');
		const codex = JSON.parse(
			readFileSync(join(root, 'nodes/AgentContextMemory/AgentContextMemory.node.json'), 'utf8'),
		) as { node: string; subcategories: Record<string, string[]> };
		expect(codex.node).toBe('n8n-nodes-agent-core.agentContextMemory');
		expect(codex.subcategories.AI).toEqual(['Memory']);
	});
});
