/**
 * `npm run demo`: one run of the CLI against the bundled scripted demo model, so a newcomer sees a full
 * trace — a tool call, its observation, the final answer — before configuring a provider.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEMO_PROMPT, demoModel } from './demo-model';
import { startScriptedServer } from './scripted-server';

async function main(): Promise<number> {
	const server = await startScriptedServer({ script: demoModel });
	const folder = mkdtempSync(join(tmpdir(), 'agent-core-demo-'));
	try {
		const configPath = join(folder, 'config.json');
		const config = {
			model: 'demo-model',
			max_steps: 4,
			allowed_tools: ['json_transform'],
			observation_max_len: 500,
		};
		writeFileSync(configPath, JSON.stringify(config, null, 2));
		process.stderr.write(
			`Demo: a scripted model on ${server.openaiBaseUrl} stands in for a provider (no API key needed).\n` +
				`$ agent-core run --config ${configPath} --base-url ${server.openaiBaseUrl} --api-key demo --prompt '…'\n` +
				`config: ${JSON.stringify(config)}\n\n`,
		);
		const cli = join(__dirname, '..', 'cli.js');
		const args = [
			cli,
			'run',
			'--config',
			configPath,
			'--base-url',
			server.openaiBaseUrl,
			'--api-key',
			'demo',
			'--prompt',
			DEMO_PROMPT,
		];
		const child = spawn(process.execPath, args, { stdio: 'inherit' });
		return await new Promise<number>((resolve) => child.on('exit', (code) => resolve(code ?? 1)));
	} finally {
		await server.close();
		rmSync(folder, { recursive: true, force: true });
	}
}

main().then(
	(code) => {
		process.exitCode = code;
	},
	(error: unknown) => {
		process.stderr.write(
			`demo failed: ${error instanceof Error ? error.message : String(error)}\n`,
		);
		process.exitCode = 1;
	},
);
