// Every error docs/troubleshooting.md quotes (`> **Error:** `…``) is one the code can still say (issue #48): a quote is
// matched against each string the code of src/ and nodes/ builds, its interpolations standing for any text.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const ROOT = path.join(__dirname, '..', '..');
const PAGE = readFileSync(path.join(ROOT, 'docs', 'troubleshooting.md'), 'utf8');

/** The quoted errors: each `> **Error:** `text`` line. */
function quotes(page: string): string[] {
	return [...page.matchAll(/^\s*> \*\*Error:\*\* `([^`]+)`\s*$/gm)].map((match) => match[1]);
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const ANY = '[\\s\\S]*?';

/**
 * A string the code builds: its pattern (literal text kept, each interpolation or other operand any text) and how
 * much of it is literal.
 */
interface Built {
	source: string;
	literal: number;
}
const literal = (text: string): Built => ({ source: escape(text), literal: text.length });
const join = (parts: Built[]): Built => ({
	source: parts.map((part) => part.source).join(''),
	literal: parts.reduce((sum, part) => sum + part.literal, 0),
});
const anything: Built = { source: ANY, literal: 0 };

function builtOf(node: ts.Node): Built | undefined {
	if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return literal(node.text);
	if (ts.isTemplateExpression(node))
		return join([
			literal(node.head.text),
			...node.templateSpans.flatMap((span) => [anything, literal(span.literal.text)]),
		]);
	if (ts.isParenthesizedExpression(node)) return builtOf(node.expression);
	if (ts.isBinaryExpression(node) && node.operatorToken.kind === ts.SyntaxKind.PlusToken) {
		const left = builtOf(node.left);
		const right = builtOf(node.right);
		if (left === undefined && right === undefined) return undefined;
		return join([left ?? anything, right ?? anything]);
	}
	return undefined;
}

/** Every string the .ts files under `folder` build (a `+` chain or a template once, as a whole). */
function built(folder: string): Built[] {
	const found: Built[] = [];
	const visit = (node: ts.Node) => {
		const string = builtOf(node);
		if (string !== undefined) {
			found.push(string);
			if (ts.isBinaryExpression(node) || ts.isTemplateExpression(node)) return;
		}
		ts.forEachChild(node, visit);
	};
	for (const entry of readdirSync(folder, { withFileTypes: true, recursive: true })) {
		if (!entry.isFile() || !entry.name.endsWith('.ts')) continue;
		const file = path.join(entry.parentPath, entry.name);
		visit(ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true));
	}
	return found;
}

const strings = [...built(path.join(ROOT, 'src')), ...built(path.join(ROOT, 'nodes'))];
/**
 * Whether the code builds `quote`: some string's pattern matches it whole, and that string has at least 16
 * characters (or the whole quote)
 * of its own literal text (a bare `${message}` would match anything).
 */
const said = (quote: string) =>
	strings.some(
		(string) => string.literal >= Math.min(16, quote.length) && new RegExp(`^${string.source}$`).test(quote),
	);

describe('docs/troubleshooting.md', () => {
	const quoted = quotes(PAGE);

	it('quotes errors, in the markup this test reads', () => {
		expect(quoted.length).toBeGreaterThanOrEqual(8);
	});

	it.each(quoted)('the code still says: %s', (quote) => {
		expect(said(quote)).toBe(true);
	});

	it('a quote the code never says is caught (the one of issue #48, and one made up)', () => {
		expect(said('Check the field behind "prompt"')).toBe(false);
		expect(said('No chat model is attached to the Chat Model input')).toBe(false);
		expect(said('The Redis Context tool needs Redis, and none is connected')).toBe(false);
		expect(said('Redis at 127.0.0.1:6379 is down; check the Redis credential')).toBe(false);
	});

	it('has one Troubleshooting heading and no version 1 name without its version', () => {
		expect(PAGE.match(/^#+ Troubleshooting$/gm)).toHaveLength(1);
		for (const line of PAGE.split('\n').filter((text) => text.includes('Max Steps')))
			expect(line).toMatch(/version 1/);
	});
});
