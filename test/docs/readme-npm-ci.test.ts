// The README's note on `npm ci` warnings says what package-lock.json makes npm print (issue #48): each package that
// refuses every Node 20 by its engines, the Node it asks for, and each peer dependency npm has to override.
import { readFileSync } from 'node:fs';
import path from 'node:path';
// semver (npm's own range rules) ships no types here.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const semver = require('semver') as {
	intersects(a: string, b: string): boolean;
	minVersion(range: string): { major: number } | null;
	satisfies(version: string, range: string, options?: object): boolean;
};

const ROOT = path.join(__dirname, '..', '..');
interface LockedPackage {
	version?: string;
	engines?: { node?: string };
	peerDependencies?: Record<string, string>;
	peerDependenciesMeta?: Record<string, { optional?: boolean }>;
}
const lock = JSON.parse(readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8')) as {
	packages: Record<string, LockedPackage>;
};
const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
/** The README's paragraph and list on `npm ci`'s warnings. */
const note = readme.slice(readme.indexOf('`npm ci` prints'), readme.indexOf('`npm run dev` builds'));
const nameOf = (location: string) => location.slice(location.lastIndexOf('node_modules/') + 13);

describe("the README's npm ci note", () => {
	it('names each package that accepts no Node 20 and the Node it asks for (EBADENGINE)', () => {
		const minimum = readme.match(/Needs Node\.js (\d+\.\d+) or newer/)![1];
		const refusing = Object.entries(lock.packages).filter(
			([location, entry]) =>
				location !== '' &&
				entry.engines?.node !== undefined &&
				!semver.intersects(entry.engines.node, `>=${minimum}.0 <21`),
		);
		expect(refusing.length).toBeGreaterThan(0);
		expect(note).toContain('EBADENGINE');
		for (const [location, entry] of refusing) {
			const asks = semver.minVersion(entry.engines!.node!)!.major;
			expect([location, note]).toEqual([
				location,
				expect.stringContaining(`\`${nameOf(location)}\``),
			]);
			expect(note).toContain(`${entry.version} (asks for Node ${asks})`);
		}
	});

	it('names each peer dependency npm overrides (ERESOLVE)', () => {
		const installed = (location: string, name: string) => {
			// Node's lookup: the nearest node_modules/<name> from the package's own folder upward.
			for (let folder = location; ; folder = folder.slice(0, folder.lastIndexOf('/node_modules/'))) {
				const found = lock.packages[`${folder}/node_modules/${name}`];
				if (found) return found;
				if (!folder.includes('/node_modules/')) return lock.packages[`node_modules/${name}`];
			}
		};
		const overridden = new Set<string>();
		for (const [location, entry] of Object.entries(lock.packages))
			for (const [peer, range] of Object.entries(entry.peerDependencies ?? {})) {
				const found = installed(location, peer);
				if (!found?.version || entry.peerDependenciesMeta?.[peer]?.optional) continue;
				if (!semver.satisfies(found.version, range, { includePrerelease: true }))
					overridden.add(peer);
			}
		expect(overridden.size).toBeGreaterThan(0);
		expect(note).toContain('ERESOLVE overriding peer dependency');
		for (const peer of overridden) expect([peer, note]).toEqual([peer, expect.stringContaining(`\`${peer}\``)]);
	});
});
