// A refused `--file` never writes its path raw: secrets redacted, controls and bidi characters escaped (issue #48).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { useScriptedServer } from '../support/agent';
import { runCli } from '../support/cli';
import { png } from '../support/files';

const KEY = 'sk-proj-' + 'Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z';
/** Nothing a terminal acts on: no escape, no line break but the last, no right-to-left override. */
const RAW = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

describe('names of refused --file paths on stderr', () => {
	const server = useScriptedServer();
	let folder: string;
	const at = (name: string) => join(folder, name);
	beforeAll(() => {
		folder = mkdtempSync(join(tmpdir(), 'agent-core-file-names-'));
		writeFileSync(
			at('config.json'),
			JSON.stringify({ model: 'm', allowed_tools: [], max_file_bytes: 1024 }),
		);
		writeFileSync(at(`${KEY}.png`), '<!-- saved from x --><html></html>');
		writeFileSync(at(`big-${KEY}.png`), Buffer.alloc(4096, 0x61));
		writeFileSync(at('a\nb\u001b[31mred.png'), png());
		writeFileSync(at('invoice\u202egnp.exe'), png());
	});
	afterAll(() => rmSync(folder, { recursive: true, force: true }));
	const run = (file: string) =>
		runCli(['run', '--config', at('config.json'), '--prompt', 'q', '--file', at(file)], {
			OPENAI_API_KEY: 'k',
			OPENAI_BASE_URL: server().openaiBaseUrl,
		});
	const oneSafeLine = (stderr: string) => {
		expect(stderr.split('\n')).toHaveLength(2);
		expect(stderr.endsWith('\n')).toBe(true);
		expect(stderr.slice(0, -1)).not.toMatch(RAW);
		expect(stderr).not.toContain(KEY);
	};

	it('a key-shaped path refused for its bytes is redacted in the label and the name', async () => {
		const { code, stderr } = await run(`${KEY}.png`);
		expect(code).toBe(2);
		oneSafeLine(stderr);
		expect(stderr).toContain(`--file ${folder}/[REDACTED]`);
		expect(stderr).toContain('is an HTML page by its bytes');
	});

	it('a key-shaped path over max_file_bytes is redacted', async () => {
		const { stderr } = await run(`big-${KEY}.png`);
		oneSafeLine(stderr);
		expect(stderr).toContain('over max_file_bytes (1024 bytes)');
	});

	it('a name with a line break and an escape sequence is refused on one line, escaped', async () => {
		const { code, stderr } = await run('a\nb\u001b[31mred.png');
		expect(code).toBe(2);
		oneSafeLine(stderr);
		expect(stderr).toContain('"a\\nb\\x1b[31mred.png" holds a control or bidirectional character');
	});

	it('a name with a right-to-left override is refused, shown escaped (never reversed)', async () => {
		const { stderr } = await run('invoice\u202egnp.exe');
		oneSafeLine(stderr);
		expect(stderr).toContain('"invoice\\u202egnp.exe" holds a control or bidirectional character');
		expect(server().requests).toHaveLength(0);
	});
});
