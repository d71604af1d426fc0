// The CLI's setting flags come from the settings table: --system is the panel's Instructions and the library's developerText.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SETTINGS } from '../../src/settings/settings';
import type { ScriptedRequest } from '../../src/demo/scripted-server';
import { final, useScriptedServer } from '../support/agent';
import { runCli } from '../support/cli';

describe('agent-core run setting flags', () => {
	const server = useScriptedServer();
	let folder: string;
	beforeAll(() => {
		folder = mkdtempSync(join(tmpdir(), 'agent-core-cli-settings-'));
	});
	afterAll(() => rmSync(folder, { recursive: true, force: true }));

	it('puts --system text into the system message the model receives', async () => {
		const seen: ScriptedRequest[] = [];
		server().setScript((request) => {
			seen.push(request);
			return final('ok');
		});
		const config = join(folder, 'config.json');
		writeFileSync(config, JSON.stringify({ model: 'scripted-model' }));
		const run = await runCli([
			'run',
			'--config',
			config,
			'--prompt',
			'hi',
			'--system',
			'Answer in haiku only.',
			'--base-url',
			server().openaiBaseUrl,
			'--api-key',
			'k',
		]);
		expect(run.stderr).toBe('');
		expect(run.code).toBe(0);
		const system = seen[0].messages.find((message) => message.role === 'system');
		expect(system?.content).toContain('Answer in haiku only.');
	});

	it('lists every config key of the settings table in --help', async () => {
		const run = await runCli(['--help']);
		const help = run.stdout.replace(/\s+/g, ' ');
		expect(help).toContain('model (required)');
		for (const key of Object.keys(SETTINGS)) expect(help).toMatch(new RegExp(`[ :]${key}[ ,(]`));
	});
});
