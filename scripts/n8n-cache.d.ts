/** Types for scripts/n8n-cache.js (plain JS so that `node scripts/…` runs it without a build). */

/** One installed n8n line, ready to run. */
export interface N8nInstallation {
  line: 1 | 2;
  version: string;
  /** The cache folder holding node_modules/n8n. */
  folder: string;
  /** node_modules/n8n/bin/n8n */
  bin: string;
  /** The Node.js binary to run `bin` with (this process's Node for 1.x, Node 24 from the cache for 2.x). */
  node: string;
  /** The folder of `node`, put first on PATH for n8n's own child processes. */
  pathPrefix: string;
  /** Environment this line needs on these machines (1.x: N8N_EXPRESSION_ENGINE=legacy). */
  env: Record<string, string>;
  /** True when the cache already held a complete install. */
  reused: boolean;
  /** Seconds the install took, when this call installed it. */
  installSeconds?: number;
}

export interface N8nLineSpec {
  line: 1 | 2;
  version: string;
  nodeMajor: number;
  overrides: Record<string, string>;
  rebuild: string[];
  env: Record<string, string>;
}

export const LINES: Record<1 | 2, N8nLineSpec>;
export function cacheDir(): string;
/** Installs (or reuses) one n8n line in the cache; concurrent calls wait for each other. */
export function ensureN8n(line: 1 | 2): Promise<N8nInstallation>;
export function ensureNode24(): Promise<{ folder: string; bin: string; node: string; version: string }>;
