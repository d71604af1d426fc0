'use strict';
/**
 * CPU time from /proc, so each load phase can say what one request cost n8n and whether n8n or the
 * machine ran out of CPU: the n8n processes (main process and task runner) found by their user folder,
 * n8n's main thread alone (where JavaScript runs: the ceiling of a single n8n instance), and the whole
 * machine's busy share. Linux only; elsewhere the figures come out as 0.
 */
const fs = require('node:fs');

/** Clock ticks per second of /proc's utime and stime (USER_HZ); 100 on every Linux build we run on. */
const TICKS_PER_SECOND = 100;

/** The pids whose environment holds `N8N_USER_FOLDER=<userFolder>`: that n8n and what it started. */
function processesOf(userFolder) {
	const marker = `N8N_USER_FOLDER=${userFolder}\0`;
	let entries;
	try {
		entries = fs.readdirSync('/proc');
	} catch {
		return [];
	}
	const pids = [];
	for (const entry of entries) {
		if (!/^\d+$/.test(entry)) continue;
		try {
			if (fs.readFileSync(`/proc/${entry}/environ`, 'utf8').includes(marker))
				pids.push(Number(entry));
		} catch {
			// Gone, or not ours.
		}
	}
	return pids;
}

/** The `n8n start` process among `pids` (its main thread runs every execution's JavaScript). */
function mainProcessOf(pids) {
	return pids.find((pid) => {
		try {
			return / start$/.test(
				fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean).join(' '),
			);
		} catch {
			return false;
		}
	});
}

function ticksOf(statPath) {
	try {
		const stat = fs.readFileSync(statPath, 'utf8');
		// Fields after the command name (which may hold spaces) start after the last ')': utime, stime are 14, 15.
		const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
		return Number(fields[11]) + Number(fields[12]);
	} catch {
		return 0;
	}
}

/** Milliseconds of CPU (user + system, all threads) used so far by the given processes; exited ones count 0. */
function cpuMilliseconds(pids) {
	return (
		(pids.reduce((total, pid) => total + ticksOf(`/proc/${pid}/stat`), 0) * 1000) / TICKS_PER_SECOND
	);
}

/** Milliseconds of CPU used so far by the main thread of `pid` alone. */
function mainThreadMilliseconds(pid) {
	return pid ? (ticksOf(`/proc/${pid}/task/${pid}/stat`) * 1000) / TICKS_PER_SECOND : 0;
}

/** Busy and total ticks of the whole machine so far (all cores), from /proc/stat. */
function machineTicks() {
	try {
		const [, ...values] = fs
			.readFileSync('/proc/stat', 'utf8')
			.split('\n')[0]
			.trim()
			.split(/\s+/)
			.map(Number);
		const total = values.slice(0, 8).reduce((sum, value) => sum + value, 0);
		const idle = values[3] + values[4];
		return { busy: total - idle, total };
	} catch {
		return { busy: 0, total: 0 };
	}
}

/** The share (0–1) of all cores that was busy between two machineTicks() readings. */
function machineBusyShare(before, after) {
	const total = after.total - before.total;
	return total > 0 ? (after.busy - before.busy) / total : NaN;
}

module.exports = {
	processesOf,
	mainProcessOf,
	cpuMilliseconds,
	mainThreadMilliseconds,
	machineTicks,
	machineBusyShare,
};
