// The one list of finish reasons beside the loop stays true: each reason's file really returns it, and the docs name every one.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FINISH_REASONS } from '../src/agent/finish-reasons';

const AGENT = join(__dirname, '..', 'src', 'agent');

describe('where a run stops', () => {
	it.each(Object.entries(FINISH_REASONS))(
		'%s is decided in the file the list names',
		(reason, { decidedIn }) => {
			const source = readFileSync(join(AGENT, decidedIn), 'utf8');
			expect(source).toContain(`'${reason}'`);
		},
	);

	it('names every finish reason in the Finish reasons section of docs/output.md', () => {
		const docs = readFileSync(join(__dirname, '..', 'docs', 'output.md'), 'utf8');
		const section = docs.slice(docs.indexOf('### Finish reasons'));
		expect(
			Object.keys(FINISH_REASONS).filter((reason) => !section.includes(`\`${reason}\``)),
		).toEqual([]);
	});
});
