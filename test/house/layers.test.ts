// The project's layering as a test: every folder of src/ has a declared layer and imports only from layers below it.
import * as fs from 'node:fs';
import * as path from 'node:path';

/**
 * The layers of src/, bottom to top, as the real imports stand (issue #28). A folder may import from any
 * lower layer, never from its own layer's other folders nor from a higher one: folders of one layer stay
 * independent. `core` holds the shared words (messages, roles, usage, loadOnce) every layer may use; the
 * files directly in src/ (cli.ts, index.ts and the nodes' doors) are the top. A new folder must be given a layer here.
 */
const LAYERS: readonly (readonly string[])[] = [
	['core'], // ChatMessage, roles, TokenUsage and its arithmetic, message parsing, InputError, loadOnce
	['files'], // a run's files: their type read from the bytes, their checks, the RunFile that holds the bytes
	['validation', 'providers'], // schemas and checks; the ChatModel contract and its adapters
	['redis'], // connections, scripts, shared clients (uses canonical JSON from validation)
	['tools', 'budget', 'run-state'], // the Tool type and built-ins; the token ledger; signed run state
	['trace'], // steps, digests (names tools and model finish reasons), the redactor and its secret shapes
	['guardrails'], // the built-in guardrails' checks (use the redactor's secret shapes and the pattern engine)
	['settings'], // the settings table and the config checked against it (the guardrails row checks its entries)
	['context', 'audit', 'telemetry'], // the conversation store; the audit record; spans — each reads the trace
	['agent'], // the run loop, which uses everything below
	['replay'], // replay, counterfactual replay and fork of audited runs: the loop run again from the audit record
	['cli', 'demo'], // the CLI's commands; the demo and scripted model servers
];
const TOP = LAYERS.length; // src/cli.ts, src/index.ts, src/run-path.ts, src/panel.ts
/**
 * The rooms of src/agent/, bottom to top (issue #49), ranked as LAYERS ranks src/: the protocol and the loop's
 * shared words at the bottom, the loop itself (the files directly in src/agent/) at the top.
 */
const AGENT_ROOMS: readonly (readonly string[])[] = [
	['protocol', 'base'], // the Action/Final protocol and its prompt; the loop's shared words (outcome, options, events, ledger, clock, hooks' words)
	['hooks', 'subagent'], // the hook chain: library hooks, then the built-in guardrails; sub-agents as tools, their limits and their run (issue #52)
	['setup'], // what a run starts from: its config, tools, MCP servers, input and files
	['model'], // one model turn: the call with failover, model choice, cost, the reply read, the answer streamed
	['memory', 'pause'], // long memory (compaction asks the model); paused and checkpointed state
	['calls'], // the one tool-call path
	['plan'], // Plan Mode (issue #51): the plan read and checked, its steps run through the call path, its approval
	['result'], // the run's result, the audit and spans after it
];
/** What nodes/ may import from src/: the doors made for them (the run path, the conversation store, the panels), not the library's index. */
const ENTRY_POINTS = new Set(['src/run-path.ts', 'src/context/index.ts', 'src/panel.ts']);

const ROOT = path.join(__dirname, '..', '..');
const layerOf = new Map(
	LAYERS.flatMap((folders, rank) => folders.map((folder) => [folder, rank] as const)),
);

function sourceFiles(directory: string): string[] {
	if (!fs.existsSync(path.join(ROOT, directory))) return [];
	return fs.readdirSync(path.join(ROOT, directory), { withFileTypes: true }).flatMap((entry) => {
		const relative = `${directory}/${entry.name}`;
		if (entry.isDirectory()) return sourceFiles(relative);
		return /\.ts$/.test(entry.name) && !/\.d\.ts$/.test(entry.name) ? [relative] : [];
	});
}

/** Relative module specifiers of a file: static imports and re-exports, side-effect imports, import() and require(). */
function importsOf(source: string): string[] {
	const pattern =
		/(?:\bfrom\s+|^\s*import\s+|\bimport\(\s*|\brequire\(\s*)['"](\.{1,2}\/[^'"]+)['"]/gm;
	return [...source.matchAll(pattern)].map((match) => match[1]);
}

/** The src/ file (or folder) a specifier points at, in / form, resolved as TypeScript does for .ts and index.ts. */
function resolveImport(from: string, specifier: string, exists: (file: string) => boolean): string {
	const base = path.posix.normalize(path.posix.join(path.posix.dirname(from), specifier));
	return [`${base}.ts`, `${base}/index.ts`].find(exists) ?? base;
}

/** The folder of src/ a path belongs to, '' for a file directly in src/, undefined outside src/. */
function folderOf(file: string): string | undefined {
	const parts = file.split('/');
	if (parts[0] !== 'src') return undefined;
	return parts.length === 2 ? '' : parts[1];
}

const rankOf = (folder: string): number | undefined => (folder === '' ? TOP : layerOf.get(folder));

/** Every breach of the layering in `files` (path → source), one sentence each naming the file and the import. */
function layeringFindings(
	files: ReadonlyMap<string, string>,
	folders: readonly string[],
): string[] {
	const findings: string[] = [];
	for (const folder of folders)
		if (!layerOf.has(folder))
			findings.push(
				`src/${folder}/ has no layer: add it to LAYERS in test/house/layers.test.ts where its imports put it`,
			);
	for (const folder of layerOf.keys())
		if (!folders.includes(folder))
			findings.push(`LAYERS names src/${folder}/, which does not exist: remove it`);
	const exists = (file: string) => files.has(file);
	for (const [file, source] of files) {
		const own = folderOf(file);
		for (const specifier of importsOf(source)) {
			const target = resolveImport(file, specifier, exists);
			if (file.startsWith('nodes/')) {
				if (target.startsWith('src/') && !ENTRY_POINTS.has(target))
					findings.push(
						`${file} imports '${specifier}' (${target}): nodes/ use src/run-path.ts, src/context/index.ts or src/panel.ts`,
					);
				continue;
			}
			const theirs = folderOf(target);
			if (own === undefined || theirs === undefined || theirs === own) continue;
			const ownRank = rankOf(own);
			const theirRank = rankOf(theirs);
			if (ownRank === undefined || theirRank === undefined) continue; // reported above as a folder with no layer
			if (theirRank > ownRank)
				findings.push(
					`${file} imports '${specifier}': up from ${own || 'src/'} (layer ${ownRank}) to ${theirs} (layer ${theirRank})`,
				);
			else if (theirRank === ownRank)
				findings.push(
					`${file} imports '${specifier}': across layer ${ownRank}, from ${own} to ${theirs} (folders of one layer stay independent)`,
				);
		}
	}
	return findings;
}

function readTree(): { files: Map<string, string>; folders: string[] } {
	const files = new Map(
		[...sourceFiles('src'), ...sourceFiles('nodes')].map(
			(file) => [file, fs.readFileSync(path.join(ROOT, file), 'utf8')] as const,
		),
	);
	const folders = fs
		.readdirSync(path.join(ROOT, 'src'), { withFileTypes: true })
		.filter((entry) => entry.isDirectory())
		.map((entry) => entry.name);
	return { files, folders };
}

/** Every import cycle among the files of src/ (type-only imports count too: they tie files as much), each as its files in order. */
function importCycles(files: ReadonlyMap<string, string>): string[][] {
	const exists = (file: string) => files.has(file);
	const edges = new Map<string, string[]>();
	for (const [file, source] of files) {
		if (!file.startsWith('src/')) continue;
		edges.set(
			file,
			importsOf(source)
				.map((specifier) => resolveImport(file, specifier, exists))
				.filter(exists),
		);
	}
	// Tarjan's strongly connected components, iterative over the stack of files being visited.
	const index = new Map<string, number>();
	const low = new Map<string, number>();
	const stack: string[] = [];
	const onStack = new Set<string>();
	const cycles: string[][] = [];
	const visit = (root: string) => {
		const work: Array<{ file: string; next: number }> = [{ file: root, next: 0 }];
		index.set(root, index.size);
		low.set(root, index.get(root)!);
		stack.push(root);
		onStack.add(root);
		while (work.length > 0) {
			const frame = work[work.length - 1];
			const targets = edges.get(frame.file) ?? [];
			if (frame.next < targets.length) {
				const target = targets[frame.next++];
				if (!index.has(target)) {
					index.set(target, index.size);
					low.set(target, index.get(target)!);
					stack.push(target);
					onStack.add(target);
					work.push({ file: target, next: 0 });
				} else if (onStack.has(target))
					low.set(frame.file, Math.min(low.get(frame.file)!, index.get(target)!));
				continue;
			}
			work.pop();
			if (work.length > 0)
				low.set(
					work[work.length - 1].file,
					Math.min(low.get(work[work.length - 1].file)!, low.get(frame.file)!),
				);
			if (low.get(frame.file) === index.get(frame.file)) {
				const component: string[] = [];
				let member: string;
				do {
					member = stack.pop()!;
					onStack.delete(member);
					component.push(member);
				} while (member !== frame.file);
				if (component.length > 1 || (edges.get(frame.file) ?? []).includes(frame.file))
					cycles.push(component.sort());
			}
		}
	};
	for (const file of edges.keys()) if (!index.has(file)) visit(file);
	return cycles;
}

/** Every import of a room of src/agent/ that points up or across (a room of one rank importing another). */
function agentRoomFindings(files: ReadonlyMap<string, string>): string[] {
	const rank = new Map(
		AGENT_ROOMS.flatMap((rooms, at) => rooms.map((room) => [room, at] as const)),
	);
	const roomOf = (file: string) => {
		const parts = file.split('/');
		if (parts[0] !== 'src' || parts[1] !== 'agent') return undefined;
		return parts.length === 3 ? '' : parts[2];
	};
	const rankOfRoom = (room: string) => (room === '' ? AGENT_ROOMS.length : rank.get(room));
	const exists = (file: string) => files.has(file);
	const findings: string[] = [];
	for (const [file, source] of files) {
		const own = roomOf(file);
		if (own === undefined) continue;
		if (own !== '' && !rank.has(own))
			findings.push(
				`src/agent/${own}/ has no rank: add it to AGENT_ROOMS in test/house/layers.test.ts`,
			);
		for (const specifier of importsOf(source)) {
			const theirs = roomOf(resolveImport(file, specifier, exists));
			if (theirs === undefined || theirs === own) continue;
			const [ownRank, theirRank] = [rankOfRoom(own), rankOfRoom(theirs)];
			if (ownRank === undefined || theirRank === undefined || theirRank < ownRank) continue;
			findings.push(
				`${file} imports '${specifier}': ${theirRank > ownRank ? 'up' : 'across'} from ${own || 'the loop'} to ${theirs || 'the loop'}`,
			);
		}
	}
	return [...new Set(findings)];
}

describe('layers of src/', () => {
	it('every room of src/agent/ has a rank and imports only rooms below it (protocol below model and calls, below the loop)', () => {
		expect(agentRoomFindings(readTree().files)).toEqual([]);
	});

	it('names the file and the import when a room of src/agent/ imports one above or beside it', () => {
		const files = new Map([
			['src/agent/protocol/prompt.ts', "import { runCalls } from '../calls/run-calls';\n"],
			['src/agent/calls/run-calls.ts', "import { x } from '../protocol/prompt';\n"],
			['src/agent/memory/a.ts', "import { p } from '../pause/b';\n"],
			['src/agent/pause/b.ts', ''],
			['src/agent/newroom/c.ts', ''],
		]);
		expect(agentRoomFindings(files)).toEqual([
			"src/agent/protocol/prompt.ts imports '../calls/run-calls': up from protocol to calls",
			"src/agent/memory/a.ts imports '../pause/b': across from memory to pause",
			'src/agent/newroom/ has no rank: add it to AGENT_ROOMS in test/house/layers.test.ts',
		]);
	});

	it('no file of src/ imports, through any chain of imports, one that imports it back', () => {
		const { files } = readTree();
		expect(importCycles(files)).toEqual([]);
	});

	it('finds an import cycle of two files and one of three', () => {
		const files = new Map([
			['src/a/one.ts', "import { two } from './two';\n"],
			['src/a/two.ts', "import type { one } from './one';\n"],
			['src/b/x.ts', "export { y } from '../b/y';\n"],
			['src/b/y.ts', "import { z } from './z';\n"],
			['src/b/z.ts', "const x = require('./x');\n"],
			['src/b/free.ts', "import { x } from './x';\n"],
		]);
		expect(importCycles(files)).toEqual([
			['src/a/one.ts', 'src/a/two.ts'],
			['src/b/x.ts', 'src/b/y.ts', 'src/b/z.ts'],
		]);
	});

	it('every folder of src/ has a layer and every import points down (nodes/ use the entry points)', () => {
		const { files, folders } = readTree();
		expect(layeringFindings(files, folders)).toEqual([]);
	});

	it('nothing in src/context imports from src/agent: the shared words come from src/core', () => {
		const { files } = readTree();
		const borrowed = [...files].filter(
			([file, source]) =>
				file.startsWith('src/context/') &&
				importsOf(source).some((specifier) => specifier.startsWith('../agent')),
		);
		expect(borrowed.map(([file]) => file)).toEqual([]);
	});

	it('names the file and the import when a lower layer imports a higher one, a peer, or a folder has no layer', () => {
		const { files, folders } = readTree();
		const before = layeringFindings(files, folders);
		files.set('src/core/upward.ts', "import { runAgent } from '../agent/run-agent';\n");
		files.set('src/context/sideways.ts', "export type { AuditRecord } from '../audit/record';\n");
		files.set('nodes/Deep/deep.ts', "const x = require('../../src/agent/run-agent');\n");
		expect(
			layeringFindings(files, [...folders, 'unplaced']).filter(
				(finding) => !before.includes(finding),
			),
		).toEqual([
			'src/unplaced/ has no layer: add it to LAYERS in test/house/layers.test.ts where its imports put it',
			"src/core/upward.ts imports '../agent/run-agent': up from core (layer 0) to agent (layer 9)",
			"src/context/sideways.ts imports '../audit/record': across layer 8, from context to audit (folders of one layer stay independent)",
			"nodes/Deep/deep.ts imports '../../src/agent/run-agent' (src/agent/run-agent.ts): nodes/ use src/run-path.ts, src/context/index.ts or src/panel.ts",
		]);
	});

	it('no line of src/ or nodes/ is over 160 characters: a file stays small by being about one thing, not by widening lines', () => {
		const { files } = readTree();
		const wide = [...files].flatMap(([file, source]) =>
			source
				.split('\n')
				.flatMap((line, index) =>
					line.length > 160 ? [`${file}:${index + 1} (${line.length})`] : [],
				),
		);
		expect(wide).toEqual([]);
	});

	it('src/ never imports n8n: the engine stands alone and the node translates', () => {
		const { files } = readTree();
		const n8nImports = [...files].filter(
			([file, source]) =>
				file.startsWith('src/') &&
				/(?:from\s+|require\(\s*|import\(\s*)['"](?:n8n-workflow|n8n-core|@n8n\/)/.test(source),
		);
		expect(n8nImports.map(([file]) => file)).toEqual([]);
	});
});
