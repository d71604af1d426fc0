// `--file` reads at most max_file_bytes + 1 bytes whatever `stat` says, and only regular files (issue #48).
import { execFileSync } from 'node:child_process';
import {
	mkdirSync,
	mkdtempSync,
	openSync,
	closeSync,
	ftruncateSync,
	rmSync,
	symlinkSync,
	writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { final, useScriptedServer } from '../support/agent';
import { runCli } from '../support/cli';

describe('--file refuses what it cannot read bounded, before any model call', () => {
	const server = useScriptedServer();
	let folder: string;
	const at = (name: string) => join(folder, name);
	beforeAll(() => {
		folder = mkdtempSync(join(tmpdir(), 'agent-core-file-flags-'));
		writeFileSync(
			at('config.json'),
			JSON.stringify({ model: 'm', allowed_tools: [], max_file_bytes: 1024 }),
		);
		symlinkSync('/proc/self/pagemap', at('pagemap.png'));
		symlinkSync('/dev/zero', at('zero.png'));
		execFileSync('mkfifo', [at('pipe.png')]);
		mkdirSync(at('folder.png'));
		writeFileSync(at('big.txt'), 'x'.repeat(4096));
		// A sparse file of 1 TiB: read whole, the run would never end.
		const sparse = openSync(at('huge.txt'), 'w');
		ftruncateSync(sparse, 2 ** 40);
		closeSync(sparse);
		writeFileSync(at('small.txt'), 'hello');
	});
	afterAll(() => rmSync(folder, { recursive: true, force: true }));

	const run = (file: string) =>
		runCli(['run', '--config', at('config.json'), '--prompt', 'q', '--file', at(file)], {
			OPENAI_API_KEY: 'k',
			OPENAI_BASE_URL: server().openaiBaseUrl,
		});

	it.each([
		[
			'a link to a procfs file that reports 0 bytes',
			'pagemap.png',
			'reports 0 bytes but holds data: a special file (procfs, sysfs or the like), not a regular file',
		],
		['a link to /dev/zero', 'zero.png', 'is a character device, not a regular file'],
		['a FIFO no one writes to', 'pipe.png', 'is a named pipe (FIFO), not a regular file'],
		['a directory', 'folder.png', 'is a directory, not a file'],
		[
			'a file over max_file_bytes',
			'big.txt',
			'over max_file_bytes (1024 bytes); send a smaller file or raise max_file_bytes in --config',
		],
		[
			'a sparse file of 1 TiB',
			'huge.txt',
			'over max_file_bytes (1024 bytes); send a smaller file or raise max_file_bytes in --config',
		],
	])('%s, in one line naming the file', async (_, file, problem) => {
		const result = await run(file);
		expect(result.code).toBe(2);
		expect(result.stderr).toBe(`agent-core: --file ${at(file)}: ${problem}\n`);
		expect(server().requests).toHaveLength(0);
	});

	it('a regular file within the limit is sent', async () => {
		server().setScript([final('read')]);
		const result = await run('small.txt');
		expect(result.code).toBe(0);
		expect(JSON.parse(result.stdout).trace[0].files).toEqual([
			expect.objectContaining({ name: 'small.txt', bytes: 5 }),
		]);
	});

	it('--config that is a FIFO or procfs file is refused too, naming it', async () => {
		const fifo = await runCli(['run', '--config', at('pipe.png'), '--prompt', 'q']);
		expect(fifo.stderr).toBe(
			`agent-core: --config: ${at('pipe.png')} is a named pipe (FIFO), not a regular file\n`,
		);
		const proc = await runCli(['run', '--config', at('pagemap.png'), '--prompt', 'q']);
		expect(proc.stderr).toContain('reports 0 bytes but holds data');
	});
});
