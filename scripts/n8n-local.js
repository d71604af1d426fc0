// @ts-check
/**
 * A real n8n on this machine with this package installed the way n8n itself installs a community package,
 * set up without the editor: shared by the end-to-end suites (test/e2e), the browser suite, the webhook
 * benchmark and `npm run dev`. The one entry point to scripts/n8n/:
 *
 *   process.js   child processes: runCommand (the one command runner), process groups, exit/signal hooks
 *   package.js   build + npm pack, and installing the tarball into an n8n `nodes` folder
 *   workflow.js  example workflows, credentials, activation through n8n's CLI
 *   server.js    one n8n server process: environment, spawn, log, HTTP status, encryption key
 *   instance.js  createN8nInstance: user folder, import, start, stop
 *   worker.js    queue mode: `n8n worker` processes beside an instance's main
 *
 *   const tarball = await packPackage(folder);                  // npm run build + npm pack
 *   const nodes = await installPackage(tarball, stagingFolder); // the .n8n/nodes folder, made once per run
 *   const n8n = await createN8nInstance({ installation, nodesFolder: nodes, credentials, workflows });
 *   await n8n.start({ webhookPaths: ['agent-core'] });
 *   ...  POST `${n8n.baseUrl}/webhook/agent-core`
 *   await n8n.stop();
 *
 * Queue mode: give `env` EXECUTIONS_MODE=queue, the QUEUE_BULL_* Redis, DB_TYPE=postgresdb with its
 * DB_POSTGRESDB_* and N8N_ENCRYPTION_KEY, then `await n8n.startWorker()` once per worker after `start()`;
 * `stop()` stops the workers too.
 *
 * Every n8n process (the server and each CLI command) runs in its own process group, so stopping it also
 * stops what it started (2.x's task runner); a process that is still running when this process exits is
 * killed from an 'exit' hook.
 */
'use strict';
const {
	REPO_FOLDER,
	PACKAGE_NAME,
	NODE_TYPE_PREFIX,
	packPackage,
	installPackage,
} = require('./n8n/package');
const {
	PID_FOLDER_VARIABLE,
	cleanUpOnSignals,
	freePort,
	portInUse,
	removeOnExit,
	runCommand,
} = require('./n8n/process');
const { createN8nInstance } = require('./n8n/instance');
const { readExampleWorkflows, useCredential } = require('./n8n/workflow');

/** @typedef {import('./n8n/workflow').CredentialImport} CredentialImport */
/** @typedef {import('./n8n/workflow').WorkflowJson} WorkflowJson */
/** @typedef {import('./n8n/instance').N8nInstanceOptions} N8nInstanceOptions */
/** @typedef {import('./n8n/instance').N8nInstance} N8nInstance */
/** @typedef {import('./n8n/instance').N8nWorker} N8nWorker */

module.exports = {
	REPO_FOLDER,
	PACKAGE_NAME,
	NODE_TYPE_PREFIX,
	packPackage,
	installPackage,
	createN8nInstance,
	readExampleWorkflows,
	useCredential,
	freePort,
	portInUse,
	runCommand,
	removeOnExit,
	cleanUpOnSignals,
	PID_FOLDER_VARIABLE,
};
