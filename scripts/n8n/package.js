// @ts-check
/**
 * This package as n8n receives it: built, packed like `npm publish` would, and installed into an n8n
 * `nodes` folder the way Settings → Community Nodes installs a package.
 */
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { runCommand } = require('./process');

const REPO_FOLDER = path.resolve(__dirname, '..', '..');
/** @type {string} */
const PACKAGE_NAME = readManifest(REPO_FOLDER).name;
/** The type prefix n8n gives nodes of an installed community package: `<package name>.<node name>`. */
const NODE_TYPE_PREFIX = `${PACKAGE_NAME}.`;
/** n8n's own arguments for `npm install` in a community package folder (n8n 1.123 and 2.41). */
const N8N_NPM_INSTALL_ARGS = [
	'--audit=false',
	'--fund=false',
	'--bin-links=false',
	'--install-strategy=shallow',
	'--ignore-scripts=true',
	'--package-lock=false',
];

/**
 * The package.json of `folder`.
 * @param {string} folder
 * @returns {{ name: string; version: string; [field: string]: any }}
 */
function readManifest(folder) {
	return JSON.parse(fs.readFileSync(path.join(folder, 'package.json'), 'utf8'));
}

/**
 * `npm run build` in the clone (unless `build: false`), then `npm pack` into `destination`: the tarball's path.
 * @param {string} destination
 * @param {{ build?: boolean }} [options]
 * @returns {Promise<string>}
 */
async function packPackage(destination, { build = true } = {}) {
	fs.mkdirSync(destination, { recursive: true });
	if (build) await runCommand('npm', ['run', 'build', '--silent'], { cwd: REPO_FOLDER });
	// npm's --json listing of every file outgrew runCommand's output cap; the tarball's name is known anyway.
	const { name, version } = readManifest(REPO_FOLDER);
	const tarball = path.join(
		destination,
		`${name.replace(/^@/, '').replace('/', '-')}-${version}.tgz`,
	);
	fs.rmSync(tarball, { force: true });
	const output = await runCommand(
		'npm',
		['pack', '--ignore-scripts', '--pack-destination', destination],
		{ cwd: REPO_FOLDER },
	);
	if (!fs.existsSync(tarball))
		throw new Error(`npm pack did not write ${tarball}:\n${output.slice(-2000)}`);
	return tarball;
}

/**
 * Unpacks a tarball made by `npm pack` into `folder` (its `package/` prefix stripped).
 * @param {string} tarball
 * @param {string} folder
 */
async function unpackTarball(tarball, folder) {
	fs.mkdirSync(folder, { recursive: true });
	await runCommand('tar', ['-xzf', tarball, '-C', folder, '--strip-components=1']);
}

/**
 * Builds an n8n `nodes` folder (what lives at `<N8N_USER_FOLDER>/.n8n/nodes`) holding the tarball the way
 * n8n's Settings → Community Nodes installs a package: unpacked into node_modules/<name>, its
 * dev/peer/optional dependencies dropped (n8n-workflow comes from n8n itself, through the NODE_PATH n8n
 * sets before loading packages), its dependencies installed inside it with n8n's npm arguments, and the
 * package listed in the folder's package.json. Registering it in n8n's database is not needed: n8n loads
 * every `n8n-nodes-*` folder in node_modules at start. Node-version independent, so one folder serves
 * both n8n lines; copy it with `copyNodesFolder`.
 * @param {string} tarball
 * @param {string} nodesFolder
 * @returns {Promise<string>} nodesFolder
 */
async function installPackage(tarball, nodesFolder) {
	const packageFolder = path.join(nodesFolder, 'node_modules', PACKAGE_NAME);
	fs.rmSync(packageFolder, { recursive: true, force: true });
	await unpackTarball(tarball, packageFolder);
	// eslint-disable-next-line no-unused-vars
	const { devDependencies, peerDependencies, optionalDependencies, ...manifest } =
		readManifest(packageFolder);
	fs.writeFileSync(path.join(packageFolder, 'package.json'), JSON.stringify(manifest, null, 2));
	await runCommand('npm', ['install', ...N8N_NPM_INSTALL_ARGS], { cwd: packageFolder });
	const listPath = path.join(nodesFolder, 'package.json');
	const list = fs.existsSync(listPath)
		? readManifest(nodesFolder)
		: { name: 'installed-nodes', private: true, dependencies: {} };
	list.dependencies = { ...list.dependencies, [PACKAGE_NAME]: manifest.version };
	fs.writeFileSync(listPath, JSON.stringify(list, null, 2));
	return nodesFolder;
}

/**
 * Puts a copy of `nodesFolder` at `<userFolder>/.n8n/nodes`, replacing an earlier copy of this package.
 * @param {string} nodesFolder
 * @param {string} userFolder
 * @returns {string} the copy
 */
function copyNodesFolder(nodesFolder, userFolder) {
	const target = path.join(userFolder, '.n8n', 'nodes');
	if (path.resolve(nodesFolder) === path.resolve(target)) return target;
	fs.rmSync(path.join(target, 'node_modules', PACKAGE_NAME), { recursive: true, force: true });
	fs.mkdirSync(path.dirname(target), { recursive: true });
	fs.cpSync(nodesFolder, target, { recursive: true });
	return target;
}

module.exports = {
	REPO_FOLDER,
	PACKAGE_NAME,
	NODE_TYPE_PREFIX,
	readManifest,
	packPackage,
	unpackTarball,
	installPackage,
	copyNodesFolder,
};
