/**
 * A real n8n on this machine with this package installed the way n8n itself installs a community package,
 * set up without the editor: shared by the end-to-end suites (test/e2e) and `npm run dev`.
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
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const http = require('node:http');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');

const REPO_FOLDER = path.resolve(__dirname, '..');
const PACKAGE_NAME = JSON.parse(fs.readFileSync(path.join(REPO_FOLDER, 'package.json'), 'utf8')).name;
/** The type prefix n8n gives nodes of an installed community package: `<package name>.<node name>`. */
const NODE_TYPE_PREFIX = `${PACKAGE_NAME}.`;
/** n8n's own arguments for `npm install` in a community package folder (n8n 1.123 and 2.41). */
const N8N_NPM_INSTALL_ARGS = ['--audit=false', '--fund=false', '--bin-links=false', '--install-strategy=shallow', '--ignore-scripts=true', '--package-lock=false'];

// Every n8n runs in its own process group (so that stopping it also stops its task runner), which also
// means a Ctrl-C in the terminal does not reach it: these hooks stop what is still running, and remove
// registered temporary folders, when this process exits or is interrupted.
const running = new Set();
const temporaryFolders = new Set();
const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'];
let handleSignals = true;
let hooksInstalled = false;

/**
 * When set, every process group started here is also recorded as a file `<folder>/<pid>`, so that another
 * copy of this module in the same process can stop it: jest gives each test file its own module registry
 * and a `process` object whose signal listeners never fire, so the suites' n8n processes are stopped on
 * Ctrl-C by the copy loaded in jest's global set-up, which sets this variable.
 */
const PID_FOLDER_VARIABLE = 'AGENT_CORE_N8N_PID_FOLDER';

function recordedGroups() {
  const folder = process.env[PID_FOLDER_VARIABLE];
  if (!folder) return [];
  try {
    return fs.readdirSync(folder).map(Number).filter((pid) => pid > 0);
  } catch {
    return [];
  }
}

function cleanUpNow() {
  for (const child of running) killGroup(child, 'SIGKILL');
  running.clear();
  for (const pid of recordedGroups()) killGroup({ pid }, 'SIGKILL');
  for (const folder of temporaryFolders) fs.rmSync(folder, { recursive: true, force: true });
  temporaryFolders.clear();
}

function onSignal(signal) {
  cleanUpNow();
  for (const name of SIGNALS) process.removeListener(name, onSignal);
  // Die of the signal as if nobody had listened (unless another listener takes it from here).
  process.kill(process.pid, signal);
}

function installHooks() {
  if (hooksInstalled) return;
  hooksInstalled = true;
  process.once('exit', cleanUpNow);
  if (handleSignals) for (const name of SIGNALS) process.on(name, onSignal);
}

function track(child) {
  running.add(child);
  installHooks();
  const folder = process.env[PID_FOLDER_VARIABLE];
  if (!folder || !child.pid) return;
  const record = path.join(folder, String(child.pid));
  fs.mkdirSync(folder, { recursive: true });
  fs.writeFileSync(record, '');
  child.once('exit', () => fs.rmSync(record, { force: true }));
}

/** Removes `folder` when this process exits or is interrupted; the returned function cancels that. */
function removeOnExit(folder) {
  temporaryFolders.add(folder);
  installHooks();
  return () => temporaryFolders.delete(folder);
}

/**
 * `npm run dev` handles Ctrl-C itself (a graceful stop); call with false before starting anything to leave
 * SIGINT/SIGTERM/SIGHUP alone. The 'exit' hook stays.
 */
function cleanUpOnSignals(enabled) {
  handleSignals = enabled;
  if (hooksInstalled && !enabled) for (const name of SIGNALS) process.removeListener(name, onSignal);
}

function killGroup(child, signal) {
  try {
    process.kill(-child.pid, signal);
  } catch {
    // Already gone.
  }
}

/** Runs a command to completion, collecting its output; rejects with the output's tail on failure. */
function runCommand(command, args, { cwd, env, timeoutMs = 10 * 60 * 1000, detached = false } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached });
    if (detached) track(child);
    let output = '';
    const collect = (chunk) => {
      output = (output + chunk.toString()).slice(-20000);
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    const timer = setTimeout(() => {
      output += `\n[killed after ${timeoutMs} ms]`;
      if (detached) killGroup(child, 'SIGKILL');
      else child.kill('SIGKILL');
    }, timeoutMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      running.delete(child);
      reject(error);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      running.delete(child);
      if (code === 0) resolve(output);
      else reject(new Error(`${path.basename(command)} ${args.join(' ')} failed (${signal ?? `exit ${code}`}):\n${output.slice(-6000)}`));
    });
  });
}

/** `npm run build` in the clone (unless `build: false`), then `npm pack` into `destination`: the tarball's path. */
async function packPackage(destination, { build = true } = {}) {
  fs.mkdirSync(destination, { recursive: true });
  if (build) await runCommand('npm', ['run', 'build', '--silent'], { cwd: REPO_FOLDER });
  // npm's --json listing of every file outgrew runCommand's output cap; the tarball's name is known anyway.
  const { name, version } = JSON.parse(fs.readFileSync(path.join(REPO_FOLDER, 'package.json'), 'utf8'));
  const tarball = path.join(destination, `${name.replace(/^@/, '').replace('/', '-')}-${version}.tgz`);
  fs.rmSync(tarball, { force: true });
  const output = await runCommand('npm', ['pack', '--ignore-scripts', '--pack-destination', destination], { cwd: REPO_FOLDER });
  if (!fs.existsSync(tarball)) throw new Error(`npm pack did not write ${tarball}:\n${output.slice(-2000)}`);
  return tarball;
}

/**
 * Builds an n8n `nodes` folder (what lives at `<N8N_USER_FOLDER>/.n8n/nodes`) holding the tarball the way
 * n8n's Settings → Community Nodes installs a package: unpacked into node_modules/<name>, its
 * dev/peer/optional dependencies dropped (n8n-workflow comes from n8n itself, through the NODE_PATH n8n
 * sets before loading packages), its dependencies installed inside it with n8n's npm arguments, and the
 * package listed in the folder's package.json. Registering it in n8n's database is not needed: n8n loads
 * every `n8n-nodes-*` folder in node_modules at start. Node-version independent, so one folder serves
 * both n8n lines; copy it with `copyNodesFolder`.
 */
async function installPackage(tarball, nodesFolder) {
  const packageFolder = path.join(nodesFolder, 'node_modules', PACKAGE_NAME);
  fs.rmSync(packageFolder, { recursive: true, force: true });
  fs.mkdirSync(packageFolder, { recursive: true });
  await runCommand('tar', ['-xzf', tarball, '-C', packageFolder, '--strip-components=1']);
  const manifestPath = path.join(packageFolder, 'package.json');
  // eslint-disable-next-line no-unused-vars
  const { devDependencies, peerDependencies, optionalDependencies, ...manifest } = JSON.parse(fs.readFileSync(manifestPath, 'utf8'));
  fs.writeFileSync(manifestPath, JSON.stringify(manifest, null, 2));
  await runCommand('npm', ['install', ...N8N_NPM_INSTALL_ARGS], { cwd: packageFolder });
  const listPath = path.join(nodesFolder, 'package.json');
  const list = fs.existsSync(listPath) ? JSON.parse(fs.readFileSync(listPath, 'utf8')) : { name: 'installed-nodes', private: true, dependencies: {} };
  list.dependencies = { ...list.dependencies, [PACKAGE_NAME]: manifest.version };
  fs.writeFileSync(listPath, JSON.stringify(list, null, 2));
  return nodesFolder;
}

/** Puts a copy of `nodesFolder` at `<userFolder>/.n8n/nodes`, replacing an earlier copy of this package. */
function copyNodesFolder(nodesFolder, userFolder) {
  const target = path.join(userFolder, '.n8n', 'nodes');
  if (path.resolve(nodesFolder) === path.resolve(target)) return target;
  fs.rmSync(path.join(target, 'node_modules', PACKAGE_NAME), { recursive: true, force: true });
  fs.mkdirSync(path.dirname(target), { recursive: true });
  fs.cpSync(nodesFolder, target, { recursive: true });
  return target;
}

/** A port nobody listens on right now, on 127.0.0.1. */
function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** Resolves true when something accepts connections on 127.0.0.1:port. */
function portInUse(port) {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

const INHERITED_PREFIXES = /^(N8N_|DB_|EXECUTIONS_|QUEUE_|WEBHOOK_URL$|GENERIC_TIMEZONE$|NODE_ENV$|NODE_OPTIONS$|NODE_PATH$|JEST_|npm_)/;

/**
 * The environment of one n8n process: this process's environment without anything that configures n8n or
 * marks a test run (jest sets NODE_ENV=test, which n8n reads as "inside n8n's own unit tests"), plus a
 * private user folder, loopback ports and no calls home.
 */
function n8nEnvironment(installation, { userFolder, port, brokerPort, extra = {} }) {
  const env = {};
  for (const [name, value] of Object.entries(process.env)) if (!INHERITED_PREFIXES.test(name)) env[name] = value;
  return {
    ...env,
    PATH: `${installation.pathPrefix}${path.delimiter}${process.env.PATH ?? ''}`,
    NODE_ENV: 'production',
    N8N_USER_FOLDER: userFolder,
    N8N_LISTEN_ADDRESS: '127.0.0.1',
    N8N_HOST: '127.0.0.1',
    N8N_PORT: String(port),
    N8N_PROTOCOL: 'http',
    WEBHOOK_URL: `http://127.0.0.1:${port}/`,
    N8N_EDITOR_BASE_URL: `http://127.0.0.1:${port}/`,
    N8N_RUNNERS_BROKER_PORT: String(brokerPort),
    N8N_RUNNERS_BROKER_LISTEN_ADDRESS: '127.0.0.1',
    N8N_DIAGNOSTICS_ENABLED: 'false',
    N8N_VERSION_NOTIFICATIONS_ENABLED: 'false',
    N8N_PERSONALIZATION_ENABLED: 'false',
    N8N_TEMPLATES_ENABLED: 'false',
    N8N_HIRING_BANNER_ENABLED: 'false',
    N8N_REINSTALL_MISSING_PACKAGES: 'false',
    N8N_ENFORCE_SETTINGS_FILE_PERMISSIONS: 'true',
    N8N_SECURE_COOKIE: 'false',
    N8N_GRACEFUL_SHUTDOWN_TIMEOUT: '10',
    DB_SQLITE_POOL_SIZE: '2',
    N8N_LOG_LEVEL: 'info',
    // 2.x refreshes a list of MCP servers from api.n8n.io at start: nothing to fetch on a loopback-only machine.
    ...(installation.line === 2 ? { N8N_DISABLED_MODULES: 'mcp-registry' } : {}),
    ...installation.env,
    ...extra,
  };
}

/**
 * Prepares one n8n: a fresh user folder with the package installed, credentials and workflows imported
 * and activated (n8n stopped meanwhile, as its CLI wants). Nothing listens until `start()`.
 *
 * options.installation  from scripts/n8n-cache.js ensureN8n()
 * options.nodesFolder   from installPackage()
 * options.credentials   n8n credential export objects ({ id, name, type, data } with plain `data`)
 * options.workflows     workflow objects; each gets an id if it has none, and all are activated (2.x: published),
 *                       except that 1.x leaves sub-workflows (only an Execute Workflow Trigger) inactive
 * options.userFolder    defaults to a new temporary folder, removed by stop() unless `keepUserFolder`
 * options.port          defaults to a free port, chosen at start
 * options.env           extra environment for every n8n process of this instance (CLI, main, workers)
 */
async function createN8nInstance(options) {
  const { installation } = options;
  const userFolder = options.userFolder ?? fs.mkdtempSync(path.join(os.tmpdir(), `agent-core-n8n-${installation.line}-`));
  const logPath = path.join(userFolder, 'n8n.log');
  const timings = {};
  // The CLI commands never listen; the ports are chosen right before `n8n start`, so that nobody else
  // has had time to take them.
  const cliEnvironment = n8nEnvironment(installation, { userFolder, port: 5678, brokerPort: 5679, extra: options.env });
  const n8nCli = (args) => runCommand(installation.node, [installation.bin, ...args], { cwd: userFolder, env: cliEnvironment, detached: true, timeoutMs: 5 * 60 * 1000 });
  const timed = async (name, work) => {
    const started = Date.now();
    try {
      return await work();
    } finally {
      timings[name] = Date.now() - started;
    }
  };

  fs.mkdirSync(userFolder, { recursive: true });
  copyNodesFolder(options.nodesFolder, userFolder);

  const workflows = (options.workflows ?? []).map((workflow, index) => ({ ...workflow, id: workflow.id ?? `agentCoreWf${String(index + 1).padStart(5, '0')}` }));
  if (options.credentials?.length) {
    const file = path.join(userFolder, 'credentials.json');
    fs.writeFileSync(file, JSON.stringify(options.credentials, null, 2));
    await timed('import:credentials', () => n8nCli(['import:credentials', `--input=${file}`]));
  }
  if (workflows.length) {
    const file = path.join(userFolder, 'workflows.json');
    fs.writeFileSync(file, JSON.stringify(workflows, null, 2));
    await timed('import:workflow', () => n8nCli(['import:workflow', `--input=${file}`]));
    await timed('activate', async () => {
      if (installation.line === 1) {
        await n8nCli(['update:workflow', '--all', '--active=true']);
        // 1.x runs sub-workflows without activation, and cannot activate one whose only trigger is "When
        // Executed by Another Workflow": it logs "has no node to start the workflow" and retries forever.
        for (const workflow of workflows.filter(isSubWorkflowOnly)) await n8nCli(['update:workflow', `--id=${workflow.id}`, '--active=false']);
      } else {
        // 2.x runs only the published version of a sub-workflow ("Workflow is not active and cannot be
        // executed" otherwise), so sub-workflows are published like every other workflow.
        // One CLI process per workflow; PostgreSQL takes several at once, SQLite's single writer does not.
        const parallel = options.env?.DB_TYPE === 'postgresdb' ? 3 : 1;
        const pending = [...workflows];
        const publishNext = async () => {
          for (let workflow; (workflow = pending.shift()); ) await n8nCli(['publish:workflow', `--id=${workflow.id}`]);
        };
        await Promise.all(Array.from({ length: parallel }, publishNext));
      }
    });
  }

  let port = options.port ?? 0;
  let brokerPort = 0;
  let main;
  let stopping;
  const workers = [];

  /**
   * Starts `n8n start` and resolves once n8n said it listens on its port and every given production
   * webhook is registered. When the port was taken meanwhile (n8n exits with EADDRINUSE), it retries
   * once with new ports, unless the port was given.
   */
  async function start({ webhookPaths = [], timeoutMs = 300000 } = {}) {
    const started = Date.now();
    for (let attempt = 1; ; attempt++) {
      try {
        await startOnce(webhookPaths, timeoutMs);
        break;
      } catch (error) {
        const collided = /EADDRINUSE|port \d+ is already in use/.test(logTail(20000));
        if (!collided || options.port || attempt > 1) throw error;
        fs.appendFileSync(logPath, '\n[agent-core] port taken meanwhile; starting again on new ports\n');
      }
    }
    timings.start = Date.now() - started;
  }

  async function startOnce(webhookPaths, timeoutMs) {
    if (stopping) throw new Error('this n8n instance was stopped');
    port = options.port ?? (await freePort());
    brokerPort = await freePort();
    const env = n8nEnvironment(installation, { userFolder, port, brokerPort, extra: options.env });
    main = spawnN8n(installation, ['start'], { cwd: userFolder, env, logPath });
    const listening = `ready on 127.0.0.1, port ${port}`;
    // Only our n8n's own announcement proves that what answers on the port is this process.
    await waitUntil(main, timeoutMs, `serve ${webhookPaths.join(', ') || '/healthz'}`, async () => main.logSince().includes(listening) && (await ready(webhookPaths)));
  }

  /**
   * /healthz answers before production webhooks are registered, so each webhook is probed itself with a
   * CORS preflight (OPTIONS with Origin and Access-Control-Request-Method): n8n answers 404 while the path
   * is unregistered and 204 once it is, without running the workflow.
   */
  async function ready(paths) {
    if ((await httpStatus(port, 'GET', '/healthz')) !== 200) return false;
    for (const webhookPath of paths) {
      const status = await httpStatus(port, 'OPTIONS', `/webhook/${webhookPath}`, { origin: `http://127.0.0.1:${port}`, 'access-control-request-method': 'POST' });
      if (status !== 204) return false;
    }
    return true;
  }

  /**
   * Queue mode (options.env with EXECUTIONS_MODE=queue, the QUEUE_BULL_* Redis and a shared database):
   * starts one `n8n worker` after the main process, in its own user folder under `<userFolder>/workers/`
   * with its own copy of the nodes folder, the main's encryption key, and its own loopback ports for the
   * health server (QUEUE_HEALTH_CHECK_PORT) and the task broker. Resolves once the worker announced
   * itself and its /healthz/readiness answers 200 (database and Redis connected).
   */
  async function startWorker({ name = `worker-${workers.length + 1}`, concurrency = 10, timeoutMs = 300000 } = {}) {
    if (!main) throw new Error('start the main n8n before its workers: they take its address as WEBHOOK_URL');
    const started = Date.now();
    const folder = path.join(userFolder, 'workers', name);
    fs.mkdirSync(folder, { recursive: true });
    copyNodesFolder(options.nodesFolder, folder);
    const workerLogPath = path.join(folder, 'n8n.log');
    const encryptionKey = options.env?.N8N_ENCRYPTION_KEY ?? readEncryptionKey(userFolder);
    const worker = {
      name,
      userFolder: folder,
      logPath: workerLogPath,
      healthPort: 0,
      brokerPort: 0,
      spawned: undefined,
      get pid() {
        return this.spawned?.child.pid;
      },
      logTail: (characters) => readLogTail(workerLogPath, characters),
      log: () => readLogSince(workerLogPath, 0),
      exited: () => worker.spawned.exited,
    };
    workers.push(worker);
    for (let attempt = 1; ; attempt++) {
      worker.healthPort = await freePort();
      worker.brokerPort = await freePort();
      // A set-up that outlived its timeout must not start processes after stop() ran.
      if (stopping) throw new Error('this n8n instance was stopped');
      const env = n8nEnvironment(installation, {
        userFolder: folder,
        port,
        brokerPort: worker.brokerPort,
        extra: {
          ...options.env,
          N8N_ENCRYPTION_KEY: encryptionKey,
          QUEUE_HEALTH_CHECK_ACTIVE: 'true',
          QUEUE_HEALTH_CHECK_PORT: String(worker.healthPort),
          N8N_WORKER_SERVER_ADDRESS: '127.0.0.1',
        },
      });
      worker.spawned = spawnN8n(installation, ['worker', `--concurrency=${concurrency}`], { cwd: folder, env, logPath: workerLogPath });
      try {
        await waitUntil(worker.spawned, timeoutMs, `start worker ${name}`, async () =>
          worker.spawned.logSince().includes('n8n worker is now ready') && (await httpStatus(worker.healthPort, 'GET', '/healthz/readiness')) === 200,
        );
        break;
      } catch (error) {
        const collided = /EADDRINUSE|port \d+ is already in use/.test(readLogTail(workerLogPath, 20000));
        if (!collided || attempt > 1) throw error;
        fs.appendFileSync(workerLogPath, '\n[agent-core] port taken meanwhile; starting again on new ports\n');
      }
    }
    timings[`start ${name}`] = Date.now() - started;
    return worker;
  }

  function logTail(characters = 6000) {
    return readLogTail(logPath, characters);
  }

  /**
   * SIGTERM to the process groups of the main and every worker, SIGKILL after `graceMs`; then removes the
   * user folder (the workers' folders are inside it). Idempotent.
   */
  function stop({ graceMs = 15000, keepUserFolder = options.keepUserFolder } = {}) {
    stopping ??= (async () => {
      const started = Date.now();
      await Promise.all([main, ...workers.map((worker) => worker.spawned)].filter(Boolean).map((spawned) => stopGroup(spawned, graceMs)));
      timings.stop = Date.now() - started;
      if (!keepUserFolder) fs.rmSync(userFolder, { recursive: true, force: true });
    })();
    return stopping;
  }

  async function portsInUse() {
    const ports = [port, brokerPort, ...workers.flatMap((worker) => [worker.healthPort, worker.brokerPort])].filter((candidate) => candidate > 0);
    for (const candidate of ports) if (await portInUse(candidate)) return true;
    return false;
  }

  return {
    installation,
    userFolder,
    get port() {
      return port;
    },
    get brokerPort() {
      return brokerPort;
    },
    get baseUrl() {
      return `http://127.0.0.1:${port}`;
    },
    webhookUrl: (webhookPath) => `http://127.0.0.1:${port}/webhook/${webhookPath}`,
    workflows,
    timings,
    logPath,
    logTail,
    start,
    startWorker,
    workers,
    stop,
    portsInUse,
    /** Resolves with n8n's exit code and signal once the started server process exits. */
    exited: () => main?.exited ?? Promise.reject(new Error('n8n was not started')),
  };
}

/** True for a workflow that only other workflows start (its one trigger is an Execute Workflow Trigger). */
function isSubWorkflowOnly(workflow) {
  const triggers = workflow.nodes.filter((node) => /trigger$/i.test(node.type) || node.type === 'n8n-nodes-base.webhook');
  return triggers.length > 0 && triggers.every((node) => node.type === 'n8n-nodes-base.executeWorkflowTrigger');
}

/** Spawns one n8n command (`start`, `worker`) in its own process group, its output appended to `logPath`. */
function spawnN8n(installation, args, { cwd, env, logPath }) {
  const logStart = fs.existsSync(logPath) ? fs.statSync(logPath).size : 0;
  const log = fs.openSync(logPath, 'a');
  const child = spawn(installation.node, [installation.bin, ...args], { cwd, env, stdio: ['ignore', log, log], detached: true });
  fs.closeSync(log);
  track(child);
  const spawned = {
    child,
    logPath,
    /** Set once the process exited. */
    result: undefined,
    exited: new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal }))),
    /** What this process wrote to the log so far. */
    logSince: () => readLogSince(logPath, logStart),
  };
  spawned.exited.then((result) => {
    running.delete(child);
    spawned.result = result;
  });
  return spawned;
}

/** Polls `condition` every 500 ms; fails when the process exits first or `timeoutMs` passes (then kills it). */
async function waitUntil(spawned, timeoutMs, what, condition) {
  const started = Date.now();
  for (;;) {
    if (spawned.result) {
      const { code, signal } = spawned.result;
      throw new Error(`n8n exited before it could ${what} (${signal ?? `exit ${code}`}); log ${spawned.logPath}:\n${readLogTail(spawned.logPath)}`);
    }
    if (Date.now() - started > timeoutMs) {
      killGroup(spawned.child, 'SIGKILL');
      throw new Error(`n8n did not ${what} within ${timeoutMs / 1000} s; log ${spawned.logPath}:\n${readLogTail(spawned.logPath)}`);
    }
    if (await condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

/** SIGTERM to the process group, SIGKILL after `graceMs`, then SIGKILL for what outlives n8n (its task runner). */
async function stopGroup(spawned, graceMs) {
  const { child } = spawned;
  if (!spawned.result && child.exitCode === null && child.signalCode === null) {
    killGroup(child, 'SIGTERM');
    const timer = setTimeout(() => killGroup(child, 'SIGKILL'), graceMs);
    await spawned.exited;
    clearTimeout(timer);
  }
  killGroup(child, 'SIGKILL');
}

/** The status of one request to 127.0.0.1:port, or 0 when nothing answered within 2 s. */
function httpStatus(port, method, urlPath, headers = {}) {
  return new Promise((resolve) => {
    const request = http.request({ host: '127.0.0.1', port, method, path: urlPath, headers, timeout: 2000 }, (response) => {
      response.resume();
      resolve(response.statusCode ?? 0);
    });
    request.once('timeout', () => request.destroy());
    request.once('error', () => resolve(0));
    request.end();
  });
}

function readLogSince(logPath, offset) {
  try {
    const descriptor = fs.openSync(logPath, 'r');
    try {
      const size = fs.fstatSync(descriptor).size;
      const buffer = Buffer.alloc(Math.max(0, size - offset));
      fs.readSync(descriptor, buffer, 0, buffer.length, offset);
      return buffer.toString('utf8');
    } finally {
      fs.closeSync(descriptor);
    }
  } catch {
    return '';
  }
}

function readLogTail(logPath, characters = 6000) {
  try {
    return fs.readFileSync(logPath, 'utf8').slice(-characters);
  } catch {
    return '(no log)';
  }
}

/** The encryption key n8n generated in a user folder (`.n8n/config`), which its workers must share. */
function readEncryptionKey(userFolder) {
  const configPath = path.join(userFolder, '.n8n', 'config');
  try {
    const { encryptionKey } = JSON.parse(fs.readFileSync(configPath, 'utf8'));
    if (encryptionKey) return encryptionKey;
  } catch {
    // Reported below.
  }
  throw new Error(`no encryption key in ${configPath}: set N8N_ENCRYPTION_KEY in options.env, or import something first`);
}

/** Reads the workflows in examples/ (or the given files), as objects. */
function readExampleWorkflows(files = ['agent-core-webhook.json', 'agent-core-webhook-strict-limits.json']) {
  return files.map((file) => JSON.parse(fs.readFileSync(path.join(REPO_FOLDER, 'examples', file), 'utf8')));
}

/** Points every credential reference of the given type at `credential` ({ id, name }). */
function useCredential(workflow, type, credential) {
  return {
    ...workflow,
    nodes: workflow.nodes.map((node) => (node.credentials?.[type] ? { ...node, credentials: { ...node.credentials, [type]: { id: credential.id, name: credential.name } } } : node)),
  };
}

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
