#!/usr/bin/env node
// @ts-check
/**
 * Scans this package the way n8n's community package scanner (@n8n/scan-community-package) scans a
 * published one, but on the tarball `npm pack` makes here, before anything is published.
 *
 *   node scripts/scan-package.js            npm run build, npm pack, unpack, scan; exit 1 on any error
 *   node scripts/scan-package.js --cloud    the scanner's own verdict, unchanged (n8n Cloud verification)
 *   options: --no-build (pack dist/ as it is), --keep (keep the unpacked tarball and say where)
 *
 * The scanner (`npx @n8n/scan-community-package NAME`) takes only a published package name: it checks the
 * npm provenance attestation, downloads the attested source from GitHub and the tarball from npm, then lints
 * both with ESLint: the source's package.json, nodes/ and credentials/, and the tarball's package.json and
 * every .js file. This script runs those two lint legs with the scanner's own exported code
 * (`buildScanConfig`, `SOURCE_FILE_PATTERNS`, `analyzePackage`), with this repository as the source and the
 * local tarball as the package. The provenance check is left out: it needs a published version.
 *
 * Default profile: the scanner's configuration with the two n8n-Cloud-only rules off (no-restricted-imports,
 * no-restricted-globals: the rules `n8n-node lint` leaves out for packages not meant for n8n Cloud) and with
 * this package's deliberate exceptions from eslint.config.mjs, so `npm run lint` and this scan agree. Like
 * the scanner, eslint-disable comments are ignored (allowInlineConfig: false).
 * --cloud: exactly the scanner's configuration; this package fails it by design (runtime dependencies).
 *
 * On top of the lint legs, checks of the tarball itself that n8n's loader depends on (not in the scanner):
 * every n8n.nodes / n8n.credentials / main / types / bin path is in it, every `file:` icon sits next to the
 * file that names it, no stale build output (a .js whose source is gone) and no dev-only files.
 */
'use strict';
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { pathToFileURL } = require('node:url');
const { REPO_FOLDER, packPackage, readManifest, unpackTarball } = require('./n8n/package');

const SCANNER_FOLDER = path.dirname(
	require.resolve('@n8n/scan-community-package/package.json', { paths: [REPO_FOLDER] }),
);
/**
 * Resolves a module as the scanner itself does, so the same ESLint and fast-glob run.
 * @type {(name: string) => any}
 */
const requireFromScanner = (name) => require(require.resolve(name, { paths: [SCANNER_FOLDER] }));

/** The rules n8n's node CLI names as n8n-Cloud-only (and recommendedWithoutN8nCloudSupport leaves out). */
const CLOUD_ONLY_RULES = [
	'@n8n/community-nodes/no-restricted-imports',
	'@n8n/community-nodes/no-restricted-globals',
];
/** What a community package tarball may hold besides dist/ (npm adds package.json, README and LICENSE). */
const ALLOWED_TOP_LEVEL =
	/^(package\.json|README(\.md)?|LICEN[CS]E(\.md|\.txt)?|CHANGELOG(\.md)?|dist)$/i;
const DEV_ONLY = [
	/(^|\/)(test|tests|__tests__|bench|demo)\//,
	/\.(test|spec)\.[cm]?js$/,
	/\.tsbuildinfo$/,
];

/**
 * `npm run build` (unless `build` is false) and `npm pack` into `folder`, unpacked into `folder/package` as
 * the scanner unpacks: its folder.
 * @param {string} folder
 * @param {boolean} build
 */
async function packAndUnpack(folder, build) {
	const tarball = await packPackage(folder, { build });
	const packageFolder = path.join(folder, 'package');
	await unpackTarball(tarball, packageFolder);
	return { tarball: path.basename(tarball), packageFolder };
}

/**
 * One lint leg as the scanner's analyzePackage runs it, with `extraConfig` after the scanner's config.
 * @param {any} scanner  the scanner's module (scanner/scanner.mjs)
 * @param {string} folder
 * @param {string[]} patterns
 * @param {object[]} extraConfig
 */
async function lintLeg(scanner, folder, patterns, extraConfig) {
	const { ESLint } = requireFromScanner('eslint');
	const glob = requireFromScanner('fast-glob');
	const eslint = new ESLint({
		cwd: folder,
		allowInlineConfig: false,
		overrideConfigFile: true,
		overrideConfig: [...(await scanner.buildScanConfig()), ...extraConfig],
	});
	const files = glob.sync(patterns, {
		cwd: folder,
		absolute: true,
		ignore: ['node_modules/**', '**/package-lock.json'],
	});
	/** @type {Array<{ errorCount: number; warningCount: number }>} */
	const results = await eslint.lintFiles(files);
	const errors = results.reduce((sum, result) => sum + result.errorCount, 0);
	const warnings = results.reduce((sum, result) => sum + result.warningCount, 0);
	const details =
		errors + warnings > 0 ? await (await eslint.loadFormatter('stylish')).format(results) : '';
	return { files: files.length, errors, warnings, details };
}

/**
 * Every file under `folder`, as paths relative to it with '/'.
 * @param {string} folder
 * @param {string} [prefix]
 * @returns {string[]}
 */
function listFiles(folder, prefix = '') {
	return fs.readdirSync(path.join(folder, prefix), { withFileTypes: true }).flatMap((entry) => {
		const relative = prefix ? `${prefix}/${entry.name}` : entry.name;
		return entry.isDirectory() ? listFiles(folder, relative) : [relative];
	});
}

/**
 * Checks of the tarball's contents that n8n's loader relies on; returns { errors, warnings } as sentences.
 * @param {string} packageFolder
 */
function checkTarball(packageFolder) {
	/** @type {string[]} */
	const errors = [];
	/** @type {string[]} */
	const warnings = [];
	const files = new Set(listFiles(packageFolder));
	const manifest = readManifest(packageFolder);
	/** @type {string[]} */
	const nodes = manifest.n8n?.nodes ?? [];
	/** @type {string[]} */
	const credentials = manifest.n8n?.credentials ?? [];
	/** @type {string[][]} [field, file] pairs */
	const entries = [
		...nodes.map((file) => ['n8n.nodes', file]),
		...credentials.map((file) => ['n8n.credentials', file]),
		...(manifest.main ? [['main', manifest.main]] : []),
		...(manifest.types ? [['types', manifest.types]] : []),
		...Object.values(
			typeof manifest.bin === 'string' ? { [manifest.name]: manifest.bin } : (manifest.bin ?? {}),
		).map((file) => ['bin', file]),
	];
	for (const [field, file] of entries) {
		if (!files.has(path.posix.normalize(file)))
			errors.push(`${field}: ${file} is not in the tarball`);
	}

	for (const file of [...nodes, ...credentials].map((name) => path.posix.normalize(name))) {
		if (!files.has(file)) continue;
		const code = fs.readFileSync(path.join(packageFolder, file), 'utf8');
		for (const [, icon] of code.matchAll(/["'`]file:([^"'`]+)["'`]/g)) {
			const iconPath = path.posix.join(path.posix.dirname(file), icon);
			if (!files.has(iconPath))
				errors.push(`${file} names the icon file:${icon}, but ${iconPath} is not in the tarball`);
		}
		// n8n reads a node's codex (categories, aliases) from the .json next to the compiled node file.
		const codex = file.replace(/\.js$/, '.json');
		const codexSource = path.join(REPO_FOLDER, codex.replace(/^dist\//, ''));
		if (fs.existsSync(codexSource) && !files.has(codex)) {
			warnings.push(
				`${codex} is not in the tarball, so n8n shows the node without the categories and aliases of ${path.relative(REPO_FOLDER, codexSource)} (the build does not copy it)`,
			);
		}
	}

	for (const file of files) {
		const topLevel = file.split('/')[0];
		if (!ALLOWED_TOP_LEVEL.test(topLevel)) {
			errors.push(
				`${file}: not something an installed package needs (only dist/, package.json, README, LICENSE, CHANGELOG)`,
			);
		} else if (DEV_ONLY.some((pattern) => pattern.test(file))) {
			errors.push(
				`${file}: a dev-only file (tests, benchmarks, demo); leave it out with the "files" field of package.json`,
			);
		} else if (file.startsWith('dist/') && /\.js$/.test(file)) {
			const source = file.replace(/^dist\//, '').replace(/\.js$/, '.ts');
			if (!fs.existsSync(path.join(REPO_FOLDER, source)))
				errors.push(
					`${file}: stale build output, ${source} no longer exists (delete dist/ and build again)`,
				);
		}
	}
	return { errors, warnings, files: files.size };
}

async function main() {
	const flags = new Set(process.argv.slice(2));
	const unknown = [...flags].filter((flag) => !['--cloud', '--no-build', '--keep'].includes(flag));
	if (unknown.length > 0) {
		console.error(
			`Unknown option ${unknown.join(', ')}. Usage: node scripts/scan-package.js [--cloud] [--no-build] [--keep]`,
		);
		return 2;
	}
	const cloud = flags.has('--cloud');

	// The scanner makes a temporary folder when it is imported; let the tmp module remove it on exit.
	requireFromScanner('tmp').setGracefulCleanup();
	const scanner = await import(
		pathToFileURL(path.join(SCANNER_FOLDER, 'scanner', 'scanner.mjs')).href
	);
	const scannerVersion = JSON.parse(
		fs.readFileSync(path.join(SCANNER_FOLDER, 'package.json'), 'utf8'),
	).version;

	const build = !flags.has('--no-build');
	if (build) console.log('Building (npm run build)…');
	const workFolder = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-core-scan-'));
	try {
		const { tarball, packageFolder } = await packAndUnpack(workFolder, build);
		console.log(
			`Scanning ${tarball} with @n8n/scan-community-package ${scannerVersion}, ${cloud ? 'its own configuration (--cloud)' : 'self-hosted profile'}`,
		);
		console.log(
			'Skipped: the provenance check (it needs a version published with an npm provenance attestation).\n',
		);

		let failed = false;
		const legs = [
			[
				'source (package.json, nodes/, credentials/ of this repository)',
				REPO_FOLDER,
				scanner.SOURCE_FILE_PATTERNS,
			],
			['tarball (package.json and every .js file)', packageFolder, ['**/*.js', 'package.json']],
		];
		if (cloud) {
			for (const [label, folder, patterns] of legs) {
				const result = await scanner.analyzePackage(folder, patterns);
				console.log(
					`${result.passed ? 'PASS' : 'FAIL'}  lint, ${label}${result.message ? `: ${result.message}` : ''}`,
				);
				if (result.details) console.log(result.details);
				failed ||= !result.passed;
			}
		} else {
			/** @type {{ deliberateExceptions: Array<{ files: string[]; rules: Record<string, unknown>; reason: string }> }} */
			const { deliberateExceptions } = await import(
				pathToFileURL(path.join(REPO_FOLDER, 'eslint.config.mjs')).href
			);
			const extraConfig = [
				{ rules: Object.fromEntries(CLOUD_ONLY_RULES.map((rule) => [rule, 'off'])) },
				...deliberateExceptions.map(({ files, rules }) => ({ files, rules })),
			];
			console.log(`Off: ${CLOUD_ONLY_RULES.join(', ')} (n8n Cloud only)`);
			for (const exception of deliberateExceptions)
				console.log(
					`Off: ${Object.keys(exception.rules).join(', ')} in ${exception.files.join(', ')}: ${exception.reason}`,
				);
			console.log('');
			for (const [label, folder, patterns] of legs) {
				const result = await lintLeg(scanner, folder, patterns, extraConfig);
				console.log(
					`${result.errors === 0 ? 'PASS' : 'FAIL'}  lint, ${label}: ${result.files} files, ${result.errors} errors, ${result.warnings} warnings`,
				);
				if (result.details) console.log(result.details);
				failed ||= result.errors > 0;
			}
		}

		const contents = checkTarball(packageFolder);
		console.log(
			`${contents.errors.length === 0 ? 'PASS' : 'FAIL'}  tarball contents: ${contents.files} files, ${contents.errors.length} errors, ${contents.warnings.length} warnings`,
		);
		for (const error of contents.errors) console.log(`  error    ${error}`);
		for (const warning of contents.warnings) console.log(`  warning  ${warning}`);
		failed ||= contents.errors.length > 0;

		console.log(
			failed ? '\nThe package has findings (see above).' : '\nThe package passed the scan.',
		);
		if (flags.has('--keep')) console.log(`Unpacked tarball kept in ${packageFolder}`);
		return failed ? 1 : 0;
	} finally {
		if (!flags.has('--keep')) fs.rmSync(workFolder, { recursive: true, force: true });
	}
}

main().then(
	(code) => {
		process.exitCode = code;
	},
	(error) => {
		console.error(error);
		process.exitCode = 1;
	},
);
