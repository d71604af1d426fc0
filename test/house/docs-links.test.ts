// The docs hold together: every relative link and anchor resolves, headings are well-formed, README is a front door.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const ROOT = join(__dirname, '..', '..');
const README_MAX_LINES = 350;

/** The checked pages: README, CONTRIBUTING, CHANGELOG, every docs/*.md and bench's README (repository-relative). */
function documentationFiles(): string[] {
	const docs = readdirSync(join(ROOT, 'docs'))
		.filter((name) => name.endsWith('.md'))
		.sort();
	return [
		'README.md',
		'CONTRIBUTING.md',
		'CHANGELOG.md',
		...docs.map((name) => `docs/${name}`),
		'bench/README.md',
	];
}

/**
 * Which lines are inside a fenced code block (the fence lines included), by CommonMark's rules: a fence is three or
 * more backticks or tildes after at most three spaces; a backtick fence's info string holds no backtick (so a line
 * such as "```` ```json ````" is inline code, not a fence); it closes with the same character, at least as many.
 */
export function fencedLines(lines: string[]): boolean[] {
	const fenced: boolean[] = [];
	let open: { character: string; length: number } | undefined;
	for (const line of lines) {
		const fence = /^ {0,3}(`{3,}|~{3,})(.*)$/.exec(line);
		if (open) {
			fenced.push(true);
			const same = fence && fence[1][0] === open.character && fence[1].length >= open.length;
			const closes = same && fence[2].trim() === '';
			if (closes) open = undefined;
			continue;
		}
		if (fence && !(fence[1][0] === '`' && fence[2].includes('`'))) {
			open = { character: fence[1][0], length: fence[1].length };
			fenced.push(true);
			continue;
		}
		fenced.push(false);
	}
	return fenced;
}

/** A heading's text as GitHub renders it: links become their text, code spans lose their backticks. */
function renderedText(heading: string): string {
	return heading.replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/`/g, '');
}

/**
 * GitHub's anchor for a heading (github-slugger): lower case; every character that is not a letter, mark, number,
 * connector (`_`), hyphen or space is removed; spaces become hyphens. A repeated slug gets `-1`, `-2`, … in order.
 */
export function headingSlugs(markdown: string): string[] {
	const lines = markdown.split('\n');
	const fenced = fencedLines(lines);
	const seen = new Map<string, number>();
	const slugs: string[] = [];
	lines.forEach((line, index) => {
		const heading = /^ {0,3}#{1,6}[ \t]+(.*?)[ \t#]*$/.exec(line);
		if (!heading || fenced[index]) return;
		const base = renderedText(heading[1])
			.toLowerCase()
			.replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
			.replace(/ /g, '-');
		let slug = base;
		while (seen.has(slug)) {
			seen.set(base, seen.get(base)! + 1);
			slug = `${base}-${seen.get(base)}`;
		}
		seen.set(slug, 0);
		slugs.push(slug);
	});
	return slugs;
}

/** What is wrong with the headings of one page: a `#` line that is no heading, unbalanced code, a quoted heading. */
export function headingProblems(markdown: string): string[] {
	const lines = markdown.split('\n');
	const fenced = fencedLines(lines);
	const problems: string[] = [];
	lines.forEach((line, index) => {
		if (fenced[index] || !line.startsWith('#')) return;
		const where = `line ${index + 1}`;
		// "#29" at the start of a wrapped line is an issue number, not a heading; "##Foo" or "#Foo" is a broken one.
		if (/^#+[^\s#\d]|^#{2,}\d|^#{7,}/.test(line)) {
			return problems.push(`${where}: "${line}" is no heading (a space after the #s)`);
		}
		const text = line.replace(/^#+\s*/, '');
		if (text.trim() === '') return problems.push(`${where}: an empty heading`);
		const backticks = (text.match(/`/g) ?? []).length;
		if (backticks % 2 === 1) return problems.push(`${where}: "${line}" has an unbalanced backtick`);
		// A heading that quotes heading markup is a leftover of an edit note (e.g. "### Errors`, in `## Library`, …").
		if (/(^|[\s`])#{1,6} /.test(text))
			return problems.push(`${where}: "${line}" holds heading markup inside it`);
		return undefined;
	});
	return problems;
}

/** Every link and image target of a page outside code, with its line: `[text](target)`, text over lines included. */
export function linkTargets(markdown: string): Array<{ target: string; line: number }> {
	const lines = markdown.split('\n');
	const fenced = fencedLines(lines);
	// Code is blanked to spaces (newlines kept), so what is left keeps its line numbers.
	const blank = (text: string) => text.replace(/[^\n]/g, ' ');
	const outsideFences = lines.map((line, index) => (fenced[index] ? '' : line)).join('\n');
	const prose = outsideFences.replace(/(`+)(?!`)[\s\S]*?(?<!`)\1(?!`)/g, blank);
	const targets: Array<{ target: string; line: number }> = [];
	for (const match of prose.matchAll(
		/\[(?:[^[\]]|\[[^[\]]*\])*\]\(\s*<?([^)\s>]*)>?(?:\s+"[^"]*")?\s*\)/g,
	)) {
		targets.push({ target: match[1], line: prose.slice(0, match.index).split('\n').length });
	}
	return targets;
}

/** Each relative link of `file` (repository-relative) that does not resolve: a missing file, or no such heading. */
export function brokenLinks(file: string, read: (path: string) => string | undefined): string[] {
	const markdown = read(file) ?? '';
	const problems: string[] = [];
	for (const { target, line } of linkTargets(markdown)) {
		if (target === '' || /^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // http:, https:, mailto: are not files here
		const [path, anchor] = target.split('#', 2) as [string, string | undefined];
		const targetFile =
			path === '' ? file : relative(ROOT, resolve(ROOT, dirname(file), decodeURIComponent(path)));
		const where = `${file} line ${line}: (${target})`;
		if (targetFile.startsWith('..')) {
			problems.push(`${where} points outside the repository`);
			continue;
		}
		const content = read(targetFile);
		if (content === undefined && !existsSync(join(ROOT, targetFile))) {
			problems.push(`${where}: ${targetFile} does not exist`);
			continue;
		}
		if (anchor === undefined) continue;
		if (content === undefined || !targetFile.endsWith('.md')) {
			problems.push(`${where}: an anchor into ${targetFile}, which is no Markdown page`);
		} else if (!headingSlugs(content).includes(anchor)) {
			problems.push(`${where}: ${targetFile} has no heading with the anchor #${anchor}`);
		}
	}
	return problems;
}

/** Reads a repository file as text, or undefined when it is missing or a folder. */
function readRepositoryFile(path: string): string | undefined {
	try {
		return readFileSync(join(ROOT, path), 'utf8');
	} catch {
		return undefined;
	}
}

describe('the documentation', () => {
	const files = documentationFiles();

	it('has every relative link and anchor in README, CONTRIBUTING, CHANGELOG, docs/ and bench/README resolve', () => {
		expect(files.length).toBeGreaterThan(10);
		expect(files.flatMap((file) => brokenLinks(file, readRepositoryFile))).toEqual([]);
	});

	it('has only well-formed headings, none counted inside a code block', () => {
		const problemsOf = (file: string) =>
			headingProblems(readRepositoryFile(file)!).map((text) => `${file} ${text}`);
		const problems = files.flatMap(problemsOf);
		expect(problems).toEqual([]);
	});

	it(`keeps README a front door of at most ${README_MAX_LINES} lines that maps every docs page`, () => {
		const readme = readRepositoryFile('README.md')!;
		expect(readme.trimEnd().split('\n').length).toBeLessThanOrEqual(README_MAX_LINES);
		const linked = new Set(linkTargets(readme).map(({ target }) => target.split('#')[0]));
		expect(files.filter((file) => file !== 'README.md' && !linked.has(file))).toEqual([]);
	});

	it('opens each docs page with its title, a line saying what it covers, and a link back to README', () => {
		for (const file of files.filter((name) => name.startsWith('docs/'))) {
			const [title, blank, intro] = readRepositoryFile(file)!.split('\n');
			expect({
				file,
				title: /^# \S/.test(title),
				blank,
				intro: intro.includes('[README](../README.md)'),
			}).toEqual({ file, title: true, blank: '', intro: true });
		}
	});
});

describe('the documentation checker', () => {
	const pages: Record<string, string> = {
		'docs/a.md':
			'# A\n\n## Same\n\n## Same\n\n### `run_state` and the rest (v2)\n\n```md\n## In a fence\n```\n',
		'docs/b.md': [
			'# B',
			'[fine](a.md#same) [second](a.md#same-1) [code](a.md#run_state-and-the-rest-v2) [self](#b)',
			'[fenced](a.md#in-a-fence) [gone](missing.md) [typo](a.md#sme)',
			'Inline `[not a link](nowhere.md)` and a [link over',
			'two lines](a.md#nothing)',
		].join('\n'),
	};
	const read = (path: string) => pages[path];

	it('finds a missing file, a missing anchor and a heading that only a code block holds, with their lines', () => {
		expect(brokenLinks('docs/b.md', read)).toEqual([
			'docs/b.md line 3: (a.md#in-a-fence): docs/a.md has no heading with the anchor #in-a-fence',
			'docs/b.md line 3: (missing.md): docs/missing.md does not exist',
			'docs/b.md line 3: (a.md#sme): docs/a.md has no heading with the anchor #sme',
			'docs/b.md line 4: (a.md#nothing): docs/a.md has no heading with the anchor #nothing',
		]);
	});

	it('slugs headings as GitHub does: punctuation dropped, underscores kept, repeats numbered', () => {
		expect(headingSlugs(pages['docs/a.md'])).toEqual([
			'a',
			'same',
			'same-1',
			'run_state-and-the-rest-v2',
		]);
		expect(
			headingSlugs('## Scaling out (n8n queue mode)\n## Conversations: the Agent Context node\n'),
		).toEqual(['scaling-out-n8n-queue-mode', 'conversations-the-agent-context-node']);
	});

	it('refuses the stray heading README had, a heading without its space and an unbalanced backtick', () => {
		const stray =
			'### Errors`, in `## Library`, after the `SETTINGS` paragraph and before `### Code layout`';
		const quoting = '### Errors, in `## Library`, before `### Code layout`';
		const page = `${stray}\n${quoting}\n##Foo\n## Bad \`code\n#29 is an issue number\n\`\`\`\n#not a heading\n\`\`\`\n`;
		expect(headingProblems(page)).toEqual([
			`line 1: "${stray}" has an unbalanced backtick`,
			`line 2: "${quoting}" holds heading markup inside it`,
			'line 3: "##Foo" is no heading (a space after the #s)',
			'line 4: "## Bad `code" has an unbalanced backtick',
		]);
	});

	it('reads a "```` ```json ````" line as inline code, not as a fence that would hide the headings after it', () => {
		const lines = ['a ```` ```json ```` b', '```` ```json ````, more', '## Heading'];
		expect(fencedLines(lines)).toEqual([false, false, false]);
		expect(headingSlugs('```` ```json ````, text\n\n## After\n')).toEqual(['after']);
	});
});
