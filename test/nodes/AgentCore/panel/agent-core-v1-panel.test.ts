// Version 1's panel stays what users' workflows were built on, now that its entries are derived from the settings table.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AgentCore } from '../../../../nodes/AgentCore/AgentCore.node';

// Written from the code at commit 56df465, before any panel entry was derived from src/agent/settings.ts.
const FIXTURE = join(__dirname, '..', '..', '..', 'fixtures', 'agent-core-v1-properties.json');

describe('Agent Core version 1 panel', () => {
	it('has exactly the properties it had before the settings table, in the same order and with the same facts', () => {
		const published = JSON.parse(readFileSync(FIXTURE, 'utf8')) as unknown;
		expect(new AgentCore().nodeVersions[1].description.properties).toStrictEqual(published);
	});

	it('prints the same JSON as before, key order included', () => {
		expect(
			`${JSON.stringify(new AgentCore().nodeVersions[1].description.properties, null, 2)}\n`,
		).toBe(readFileSync(FIXTURE, 'utf8'));
	});
});
