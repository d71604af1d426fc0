// @ts-check
/**
 * Runs an action after files change under some folders: `npm run dev -- --watch` rebuilds and reinstalls
 * the package with it. fs.watch's recursive mode covers new subfolders too (Node 20 on Linux and macOS).
 */
'use strict';
const fs = require('node:fs');
const path = require('node:path');

/**
 * Watches `folders` recursively and calls `onChange` once changes have been quiet for `debounceMs`. Runs
 * never overlap: changes seen during a run lead to one more run after it. Returns a function that stops
 * watching (a run under way finishes).
 * @param {string[]} folders
 * @param {{ debounceMs?: number; onChange: (changed: string[]) => Promise<void> }} options
 * @returns {() => void}
 */
function watchFolders(folders, { debounceMs = 300, onChange }) {
	/** @type {Set<string>} */
	let changed = new Set();
	/** @type {NodeJS.Timeout | undefined} */
	let timer;
	let running = false;
	let closed = false;

	const runNow = async () => {
		timer = undefined;
		if (running || closed) return;
		running = true;
		const files = [...changed];
		changed = new Set();
		try {
			await onChange(files);
		} finally {
			running = false;
			if (changed.size > 0 && !closed) schedule();
		}
	};
	const schedule = () => {
		if (timer) clearTimeout(timer);
		timer = setTimeout(runNow, debounceMs);
	};

	const watchers = folders
		.filter((folder) => fs.existsSync(folder))
		.map((folder) =>
			fs.watch(folder, { recursive: true }, (_event, file) => {
				changed.add(file ? path.join(folder, file) : folder);
				if (!running) schedule();
			}),
		);
	return () => {
		closed = true;
		if (timer) clearTimeout(timer);
		for (const watcher of watchers) watcher.close();
	};
}

module.exports = { watchFolders };
