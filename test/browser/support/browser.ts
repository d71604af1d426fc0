/**
 * Debian's Chromium driven by playwright-core: never a browser download, never a connection off the
 * machine. The browser runs in its own process group (playwright starts it detached); that group is
 * recorded in the folder of scripts/n8n-local.js PID_FOLDER_VARIABLE, so the copy of n8n-local loaded by
 * jest's global set-up kills it on Ctrl-C together with n8n, and `close()` kills it when a graceful close
 * does not finish in time.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { PID_FOLDER_VARIABLE } from '../../../scripts/n8n-local';

export const CHROMIUM_PATH = process.env.AGENT_CORE_CHROMIUM ?? '/usr/bin/chromium';

/**
 * Headless, as root, and quiet: without the background-networking flags Chromium keeps trying to reach
 * Google's services, which this machine's closed network refuses.
 */
export const CHROMIUM_FLAGS = [
	'--headless',
	'--no-sandbox',
	'--disable-gpu',
	'--disable-background-networking',
	'--disable-component-update',
	'--disable-sync',
	'--disable-quic',
	'--no-first-run',
];

const LAUNCH_TIMEOUT_MS = 60000;
const CLOSE_TIMEOUT_MS = 15000;

export interface BrowserSession {
	context: BrowserContext;
	page: Page;
	/** The fresh profile folder passed to Chromium as --user-data-dir. */
	profileFolder: string;
	/** Closes the browser (killing its process group when that does not finish in time) and removes the profile. Idempotent. */
	close(): Promise<void>;
}

/** Fails at once, naming the install command, when there is no Chromium to drive. */
export function assertChromiumInstalled(): void {
	if (!fs.existsSync(CHROMIUM_PATH)) {
		throw new Error(
			`no Chromium at ${CHROMIUM_PATH}; install Debian's: apt-get update && apt-get install -y chromium (or set AGENT_CORE_CHROMIUM)`,
		);
	}
}

/** Starts Chromium with a new, empty profile in `profileFolder` (created here; it must not exist yet). */
export async function launchBrowser(profileFolder: string): Promise<BrowserSession> {
	assertChromiumInstalled();
	fs.mkdirSync(profileFolder, { recursive: false });
	let context: BrowserContext;
	try {
		context = await chromium.launchPersistentContext(profileFolder, {
			executablePath: CHROMIUM_PATH,
			headless: true,
			args: CHROMIUM_FLAGS,
			timeout: LAUNCH_TIMEOUT_MS,
			viewport: { width: 1440, height: 900 },
			colorScheme: 'light',
			locale: 'en-US',
		});
	} catch (error) {
		killBrowserGroups(profileFolder);
		fs.rmSync(profileFolder, { recursive: true, force: true });
		throw new Error(`Chromium (${CHROMIUM_PATH}) did not start: ${(error as Error).message}`);
	}
	const records = recordBrowserGroups(profileFolder);
	const page = context.pages()[0] ?? (await context.newPage());
	page.setDefaultTimeout(30000);
	page.setDefaultNavigationTimeout(60000);
	let closing: Promise<void> | undefined;
	const close = () =>
		(closing ??= (async () => {
			let timer: NodeJS.Timeout | undefined;
			const timedOut = new Promise<void>(
				(resolve) => (timer = setTimeout(resolve, CLOSE_TIMEOUT_MS)),
			);
			await Promise.race([context.close().catch(() => undefined), timedOut]);
			clearTimeout(timer);
			killBrowserGroups(profileFolder);
			for (const record of records) fs.rmSync(record, { force: true });
			fs.rmSync(profileFolder, { recursive: true, force: true });
		})());
	return { context, page, profileFolder, close };
}

/**
 * The process groups led by a Chromium started with this profile: found through /proc by the unique
 * --user-data-dir, so only processes this run started are ever touched.
 */
function browserGroupLeaders(profileFolder: string): number[] {
	const marker = `--user-data-dir=${profileFolder}`;
	const leaders: number[] = [];
	let entries: string[];
	try {
		entries = fs.readdirSync('/proc').filter((name) => /^\d+$/.test(name));
	} catch {
		return leaders;
	}
	for (const entry of entries) {
		try {
			const commandLine = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
			if (!commandLine.includes(marker)) continue;
			// /proc/PID/stat: "pid (comm) state ppid pgrp ..."; comm may hold spaces, so split after the last ')'.
			const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
			const processGroup = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]);
			if (processGroup === Number(entry)) leaders.push(processGroup);
		} catch {
			// The process ended meanwhile.
		}
	}
	return leaders;
}

function recordBrowserGroups(profileFolder: string): string[] {
	const folder = process.env[PID_FOLDER_VARIABLE];
	if (!folder) return [];
	fs.mkdirSync(folder, { recursive: true });
	return browserGroupLeaders(profileFolder).map((pid) => {
		const record = path.join(folder, String(pid));
		fs.writeFileSync(record, '');
		return record;
	});
}

function killBrowserGroups(profileFolder: string): void {
	for (const pid of browserGroupLeaders(profileFolder)) {
		try {
			process.kill(-pid, 'SIGKILL');
		} catch {
			// Already gone.
		}
	}
}
