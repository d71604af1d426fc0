// The one list of finish reasons beside the loop stays true: each reason's file really returns it, and the docs name every one.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { FINISH_REASONS } from '../../src/agent/finish-reasons';

const AGENT = join(__dirname, '..', '..', 'src', 'agent');

/** Every .ts file under `directory`, as paths under src/agent/. */
const agentFiles = (directory: string): string[] =>
	readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
		const full = join(directory, entry.name);
		if (entry.isDirectory()) return agentFiles(full);
		return entry.name.endsWith('.ts') ? [relative(AGENT, full)] : [];
	});

/**
 * The finish reasons a source sets, by line: a literal in the value of `reason:` or `reason =`, or the first
 * argument of `finish(`. Comments and type declarations (`reason: 'a' | 'b';`, `Extract<…>`) set nothing.
 */
export function reasonsSetIn(source: string, known: ReadonlySet<string>): string[] {
	const found = new Set<string>();
	for (const line of source.split('\n')) {
		const code = line.replace(/\/\/.*$/, '');
		if (/^\s*\*|^\s*\/\*/.test(code) || /'\s*\|\s*'|Extract</.test(code)) continue;
		const setting =
			/\breason\s*[:=]\s*(.*)$/.exec(code)?.[1] ?? /\bfinish\(\s*('[a-z_]+')/.exec(code)?.[1];
		for (const [, literal] of (setting ?? '').matchAll(/'([a-z_]+)'/g))
			if (known.has(literal)) found.add(literal);
	}
	return [...found];
}

describe('where a run stops', () => {
	it('no file of src/agent/ sets a finish reason that the list says another file decides', () => {
		const known = new Set(Object.keys(FINISH_REASONS));
		const strays = agentFiles(AGENT).flatMap((file) =>
			reasonsSetIn(readFileSync(join(AGENT, file), 'utf8'), known)
				.filter(
					(reason) => FINISH_REASONS[reason as keyof typeof FINISH_REASONS].decidedIn !== file,
				)
				.map(
					(reason) =>
						`${file} sets '${reason}', which the list says ${FINISH_REASONS[reason as keyof typeof FINISH_REASONS].decidedIn} decides`,
				),
		);
		expect(strays).toEqual([]);
	});

	it('finds a reason set by an object, an assignment, a ternary and finish(), not by a type or a comment', () => {
		const known = new Set(['loop', 'timeout', 'cancelled', 'max_steps', 'llm_error']);
		const source = [
			"return { next: 'finish', reason: 'loop', detail };",
			"const reason = late ? 'timeout' : 'llm_error';",
			"return this.finish('max_steps', detail);",
			"\treason: 'cancelled' | 'timeout';",
			"// reason: 'cancelled'",
		].join('\n');
		expect(reasonsSetIn(source, known).sort()).toEqual([
			'llm_error',
			'loop',
			'max_steps',
			'timeout',
		]);
	});

	it.each(Object.entries(FINISH_REASONS))(
		'%s is decided in the file the list names',
		(reason, { decidedIn }) => {
			const source = readFileSync(join(AGENT, decidedIn), 'utf8');
			expect(source).toContain(`'${reason}'`);
		},
	);

	it('names every finish reason in the Finish reasons section of docs/output.md', () => {
		const docs = readFileSync(join(__dirname, '..', '..', 'docs', 'output.md'), 'utf8');
		const section = docs.slice(docs.indexOf('### Finish reasons'));
		expect(
			Object.keys(FINISH_REASONS).filter((reason) => !section.includes(`\`${reason}\``)),
		).toEqual([]);
	});
});
