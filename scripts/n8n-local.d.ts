/** Types for scripts/n8n-local.js (plain JS, shared by `npm run dev` and the end-to-end suites). */
import type { N8nInstallation } from './n8n-cache';

/** An n8n credential as `n8n import:credentials` reads it, with plain (unencrypted) `data`. */
export interface CredentialImport {
  id: string;
  name: string;
  type: string;
  data: Record<string, unknown>;
}

/** A workflow as exported by n8n (the subset this code touches). */
export interface WorkflowJson {
  id?: string;
  name: string;
  nodes: Array<{ name: string; type: string; parameters: Record<string, any>; credentials?: Record<string, { id: string; name: string }>; [key: string]: unknown }>;
  connections: Record<string, unknown>;
  [key: string]: unknown;
}

export interface N8nInstanceOptions {
  installation: N8nInstallation;
  nodesFolder: string;
  credentials?: CredentialImport[];
  workflows?: WorkflowJson[];
  userFolder?: string;
  port?: number;
  env?: Record<string, string>;
  keepUserFolder?: boolean;
}

/** One `n8n worker` of a queue-mode instance (see `N8nInstance.startWorker`). */
export interface N8nWorker {
  name: string;
  /** `<instance user folder>/workers/<name>`: its own settings, nodes folder and log. */
  userFolder: string;
  logPath: string;
  /** QUEUE_HEALTH_CHECK_PORT: /healthz and /healthz/readiness on 127.0.0.1. */
  healthPort: number;
  brokerPort: number;
  readonly pid: number | undefined;
  logTail(characters?: number): string;
  /** The whole log of this worker. */
  log(): string;
  exited(): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export interface N8nInstance {
  installation: N8nInstallation;
  userFolder: string;
  port: number;
  brokerPort: number;
  /** http://127.0.0.1:PORT */
  baseUrl: string;
  webhookUrl(path: string): string;
  /** The imported workflows, each with its id. */
  workflows: WorkflowJson[];
  /** Milliseconds per set-up step: import:credentials, import:workflow, activate, start, `start <worker>`, stop. */
  timings: Record<string, number>;
  logPath: string;
  logTail(characters?: number): string;
  /** Starts `n8n start` and resolves once n8n listens (ports chosen now) and every given production webhook path is registered. */
  start(options?: { webhookPaths?: string[]; timeoutMs?: number }): Promise<void>;
  /**
   * Queue mode (options.env: EXECUTIONS_MODE=queue, QUEUE_BULL_REDIS_*, a shared PostgreSQL): starts one
   * `n8n worker` after `start()`, with its own user folder, the main's encryption key and its own ports.
   * Resolves once it is ready (its /healthz/readiness answers 200).
   */
  startWorker(options?: { name?: string; concurrency?: number; timeoutMs?: number }): Promise<N8nWorker>;
  /** The workers started so far. */
  workers: N8nWorker[];
  /** Stops the process groups of n8n and of every worker, and removes the user folder (unless kept). Idempotent. */
  stop(options?: { graceMs?: number; keepUserFolder?: boolean }): Promise<void>;
  /** True while anything still accepts connections on the instance's ports (its workers' included). */
  portsInUse(): Promise<boolean>;
  /** Resolves once the started n8n process exits. */
  exited(): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export const REPO_FOLDER: string;
export const PACKAGE_NAME: string;
export const NODE_TYPE_PREFIX: string;
export function packPackage(destination: string, options?: { build?: boolean }): Promise<string>;
export function installPackage(tarball: string, nodesFolder: string): Promise<string>;
export function createN8nInstance(options: N8nInstanceOptions): Promise<N8nInstance>;
export function readExampleWorkflows(files?: string[]): WorkflowJson[];
export function useCredential(workflow: WorkflowJson, type: string, credential: { id: string; name: string }): WorkflowJson;
export function freePort(): Promise<number>;
export function portInUse(port: number): Promise<boolean>;
export function runCommand(command: string, args: string[], options?: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number; detached?: boolean }): Promise<string>;
/** Removes the folder when this process exits or is interrupted; the returned function cancels that. */
export function removeOnExit(folder: string): () => void;
/** Whether SIGINT/SIGTERM/SIGHUP kill every n8n still running (default true); `npm run dev` handles them itself. */
export function cleanUpOnSignals(enabled: boolean): void;
/** The environment variable naming a folder where started process groups are recorded (see n8n-local.js). */
export const PID_FOLDER_VARIABLE: string;
