import { spawn } from 'node:child_process';
import { join } from 'node:path';

/** The built CLI (npm test builds first), run as a user would run it. */
const CLI = join(__dirname, '..', '..', 'dist', 'src', 'cli.js');

export interface CliRun {
	code: number | null;
	stdout: string;
	stderr: string;
}

/** Runs `agent-core` in a child process with only PATH (plus `environment`) set. */
export function runCli(args: string[], environment: Record<string, string> = {}): Promise<CliRun> {
	return new Promise((resolve) => {
		const child = spawn(process.execPath, [CLI, ...args], {
			env: { PATH: process.env.PATH ?? '', ...environment },
			stdio: ['ignore', 'pipe', 'pipe'],
		});
		let stdout = '';
		let stderr = '';
		child.stdout.on('data', (chunk) => (stdout += chunk));
		child.stderr.on('data', (chunk) => (stderr += chunk));
		child.on('close', (code) => resolve({ code, stdout, stderr }));
	});
}
