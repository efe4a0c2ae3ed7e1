// client.mjs drives `jarvis mcp` over stdio the way a desktop assistant does:
// spawn the binary, initialize, list the tools, call each one with the cases in
// cases.json, and check every answer against the tool's own output schema.
// With --http it starts `jarvis mcp --http` on a free loopback port instead and
// does the same over Streamable HTTP, as a remote client (mcp-remote) does: the
// server keeps no sessions, so the client must be given no Mcp-Session-Id and
// work on without one.
//
//   node client.mjs --bin ./jarvis --vault ../shared/vaults/obsidian-help/en [--vault DIR]... --db /tmp/x.db [--http]
//
// Each --vault is served (a case names one by its folder's name when there
// are several). Flags fall back to INTEROP_BIN, INTEROP_VAULT (one vault),
// INTEROP_DB and INTEROP_CASES.
// The server gets the environment a desktop client gives it (HOME, PATH and a
// few more) plus every JARVIS_* variable. Exit status: 0 when every check
// passed, 1 when one failed, 2 for bad usage.

import { readFileSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { performance } from 'node:perf_hooks';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

// TOOLS are the tool names jarvis promises; clients are configured by them.
const TOOLS = [
  'search-semantic',
  'search-vault',
  'search-graph',
  'read-note',
  'related-notes',
  'list-vaults',
  'search-combined',
  'health-status',
  'build-context',
  'query-notes',
];

// LEAKS are signs of Go or SQL internals in text meant for the model.
const LEAKS = /\bsql\b|sqlite|panic:|goroutine \d|runtime error|\.go:\d+/i;

const here = dirname(fileURLToPath(import.meta.url));

function usage(msg) {
  console.error(`client.mjs: ${msg}`);
  console.error('usage: node client.mjs --bin PATH --vault DIR [--vault DIR]... --db FILE [--cases FILE] [--http] [--verbose]');
  process.exit(2);
}

const { values: opts } = parseArgs({
  options: {
    bin: { type: 'string', default: process.env.INTEROP_BIN },
    vault: { type: 'string', multiple: true, default: process.env.INTEROP_VAULT ? [process.env.INTEROP_VAULT] : undefined },
    db: { type: 'string', default: process.env.INTEROP_DB },
    cases: { type: 'string', default: process.env.INTEROP_CASES ?? join(here, 'cases.json') },
    verbose: { type: 'boolean', default: false },
    http: { type: 'boolean', default: false },
  },
});
for (const k of ['bin', 'vault', 'db']) {
  if (!opts[k] || opts[k].length === 0) usage(`--${k} is required`);
}

const failures = [];
function fail(what, detail) {
  failures.push(`${what}: ${detail}`);
}

// Server stderr is kept (the last lines) and shown when something fails.
const stderrTail = [];
function keepStderr(chunk) {
  for (const line of chunk.toString().split('\n')) {
    if (line === '') continue;
    stderrTail.push(line);
    if (stderrTail.length > 60) stderrTail.shift();
    if (opts.verbose) console.error(`  [server] ${line}`);
  }
}

// ajv checks each structuredContent against the outputSchema the server sent.
// The MCP spec (2025-11-25) makes JSON Schema 2020-12 the default dialect, so
// Ajv2020 it is. Strict mode stays on, so an unknown or misspelled keyword in a
// schema fails the run; union types are allowed because the Go SDK's schema
// inference writes nil-able slices and pointers as {"type": ["null", T]}.
const ajv = new Ajv2020({ strict: true, allowUnionTypes: true, allErrors: true });
addFormats(ajv);

const ms = (t) => `${t.toFixed(1).padStart(7)} ms`;

// get reads a dotted path ("results.0.retrievers") from a value.
function get(v, path) {
  for (const k of path.split('.')) {
    if (v == null) return undefined;
    v = v[k];
  }
  return v;
}

// matches reports whether obj has every field of want with an equal value.
function matches(obj, want) {
  return Object.entries(want).every(([k, w]) => JSON.stringify(get(obj, k)) === JSON.stringify(w));
}

// check returns the problems of one call result against its case, or [].
function check(c, res, validate) {
  const problems = [];
  const expect = c.expect ?? {};
  const wantError = expect.isError === true;
  const texts = (res.content ?? []).filter((x) => x.type === 'text').map((x) => x.text);
  const text = texts.join('\n');
  if (texts.length === 0 || text.trim() === '') problems.push('content has no non-empty text item');
  if (Boolean(res.isError) !== wantError) {
    problems.push(`isError is ${Boolean(res.isError)}, want ${wantError}; text: ${text.slice(0, 300)}`);
    return problems;
  }
  if (expect.textMatches && !new RegExp(expect.textMatches, 'i').test(text)) {
    problems.push(`text does not match /${expect.textMatches}/i: ${text.slice(0, 300)}`);
  }
  if (expect.textNotMatches && new RegExp(expect.textNotMatches, 'i').test(text)) {
    problems.push(`text matches /${expect.textNotMatches}/i, which it must not: ${text.slice(0, 300)}`);
  }
  if (wantError) {
    if (LEAKS.test(text)) problems.push(`error text shows internals: ${text.slice(0, 300)}`);
    return problems;
  }
  const sc = res.structuredContent;
  if (sc === undefined || sc === null || typeof sc !== 'object') {
    problems.push('no structuredContent object');
    return problems;
  }
  if (!validate(sc)) {
    problems.push(`structuredContent does not match outputSchema: ${ajv.errorsText(validate.errors, { dataVar: 'structuredContent' })}`);
  }
  for (const p of expect.nonEmpty ?? []) {
    const v = get(sc, p);
    if (!Array.isArray(v) || v.length === 0) problems.push(`${p} is empty or missing`);
  }
  for (const [p, n] of Object.entries(expect.atMost ?? {})) {
    const v = get(sc, p);
    if (Array.isArray(v) && v.length > n) problems.push(`${p} has ${v.length} items, more than ${n}`);
  }
  for (const [p, want] of Object.entries(expect.equals ?? {})) {
    const v = get(sc, p);
    if (JSON.stringify(v) !== JSON.stringify(want)) problems.push(`${p} = ${JSON.stringify(v)}, want ${JSON.stringify(want)}`);
  }
  for (const [p, want] of Object.entries(expect.contains ?? {})) {
    const v = get(sc, p);
    if (!Array.isArray(v) || !v.some((item) => matches(item, want))) {
      problems.push(`${p} has no item with ${JSON.stringify(want)}`);
    }
  }
  return problems;
}

// summary is a few words on what a result held, for the per-call line.
function summary(res) {
  if (res.isError) {
    const t = (res.content ?? []).find((x) => x.type === 'text');
    return `error: ${(t?.text ?? '').replace(/\s+/g, ' ').slice(0, 100)}`;
  }
  const sc = res.structuredContent ?? {};
  return Object.entries(sc)
    .filter(([, v]) => Array.isArray(v))
    .map(([k, v]) => `${k}=${v.length}`)
    .join(' ');
}

// serveHTTP starts `jarvis mcp --http 127.0.0.1:0` with args and resolves to
// the process and the URL it logs that it serves, within 60 s.
function serveHTTP(args, env) {
  const child = spawn(opts.bin, ['mcp', '--http', '127.0.0.1:0', ...args], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('jarvis mcp --http is not serving after 60 s')), 60000);
    child.on('exit', (code) => reject(new Error(`jarvis mcp --http exited with ${code} before serving`)));
    child.stderr.on('data', (chunk) => {
      keepStderr(chunk);
      const m = /url=(http:\/\/\S+\/mcp)/.exec(chunk.toString());
      if (m) {
        clearTimeout(timer);
        resolve({ child, url: m[1] });
      }
    });
  });
}

async function main() {
  const cases = JSON.parse(readFileSync(opts.cases, 'utf8'));
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => k.startsWith('JARVIS_')));
  const args = [...opts.vault.flatMap((v) => ['--vault', v]), '--db', opts.db];
  let transport;
  let child;
  const t0 = performance.now();
  if (opts.http) {
    let url;
    ({ child, url } = await serveHTTP(args, { ...env, HOME: process.env.HOME, PATH: process.env.PATH }));
    transport = new StreamableHTTPClientTransport(new URL(url));
  } else {
    transport = new StdioClientTransport({ command: opts.bin, args: ['mcp', ...args], env, stderr: 'pipe' });
    transport.stderr?.on('data', keepStderr);
  }
  const client = new Client({ name: 'jarvis-interop', version: '1.0.0' });
  // Anything on stdout that is not JSON-RPC (a stray log line), or an HTTP
  // answer the transport cannot take, lands here.
  client.onerror = (err) => fail('transport', err.message);

  try {
    await run(client, transport, cases, t0);
  } finally {
    child?.kill('SIGTERM');
  }
}

async function run(client, transport, cases, t0) {
  await client.connect(transport); // initialize + initialized (over stdio, after spawning the process)
  const tInit = performance.now() - t0;
  const server = client.getServerVersion();
  console.log(`${ms(tInit)}  start to initialize result over ${opts.http ? 'HTTP' : 'stdio'} (server ${server?.name} ${server?.version}${opts.http ? `, protocol ${transport.protocolVersion}` : ''})`);
  if (opts.http && transport.sessionId !== undefined) {
    fail('initialize', `the server gave the session id ${transport.sessionId}; it keeps no sessions and must give none`);
  }

  const t1 = performance.now();
  const { tools } = await client.listTools();
  console.log(`${ms(performance.now() - t1)}  tools/list: ${tools.map((t) => t.name).join(', ')}`);

  const byName = new Map(tools.map((t) => [t.name, t]));
  const validators = new Map();
  for (const name of TOOLS) {
    const tool = byName.get(name);
    if (!tool) {
      fail(`tools/list`, `tool ${name} is missing`);
      continue;
    }
    if (tool.annotations?.readOnlyHint !== true) {
      fail(`tools/list ${name}`, `annotations.readOnlyHint is ${JSON.stringify(tool.annotations?.readOnlyHint)}, want true`);
    }
    if (!tool.inputSchema || tool.inputSchema.type !== 'object') {
      fail(`tools/list ${name}`, 'inputSchema is not an object schema');
    }
    if (!tool.outputSchema) {
      fail(`tools/list ${name}`, 'no outputSchema');
      continue;
    }
    try {
      validators.set(name, ajv.compile(tool.outputSchema));
    } catch (err) {
      fail(`tools/list ${name}`, `outputSchema does not compile under ajv (JSON Schema 2020-12, strict): ${err.message}`);
    }
  }

  const called = new Set();
  for (const c of cases) {
    const label = `${c.tool} ${c.name}`;
    called.add(c.tool);
    const validate = validators.get(c.tool);
    if (!validate && !c.expect?.isError) {
      fail(label, 'skipped: the tool or its output schema is missing');
      continue;
    }
    // A case with waitMs is retried until it passes or the time is up: the
    // server starts on an empty database and may still be indexing.
    const deadline = performance.now() + (c.waitMs ?? 0);
    let tries = 0;
    let firstProblems;
    let problems;
    let res;
    let took;
    for (;;) {
      tries++;
      const t = performance.now();
      try {
        res = await client.callTool({ name: c.tool, arguments: c.args ?? {} });
        took = performance.now() - t;
        problems = check(c, res, validate ?? (() => true));
      } catch (err) {
        took = performance.now() - t;
        res = undefined;
        problems = [`call failed: ${err.message}`];
      }
      firstProblems ??= problems;
      if (problems.length === 0 || performance.now() >= deadline) break;
      await new Promise((r) => setTimeout(r, 250));
    }
    const status = problems.length === 0 ? 'ok  ' : 'FAIL';
    const retried = tries > 1 ? ` (try ${tries}; try 1: ${firstProblems[0].slice(0, 80)})` : '';
    console.log(`${ms(took)}  ${status} ${label}${retried}  ${res ? summary(res) : ''}`);
    for (const p of problems) fail(label, p);
  }
  for (const name of TOOLS) {
    if (!called.has(name)) fail('cases.json', `no case calls ${name}`);
  }

  const tClose = performance.now();
  await client.close();
  console.log(`${ms(performance.now() - tClose)}  close`);
}

try {
  await main();
} catch (err) {
  fail('session', err.stack ?? String(err));
}
if (failures.length > 0) {
  console.log(`\n${failures.length} check(s) failed:`);
  for (const f of failures) console.log(`  - ${f}`);
  if (stderrTail.length > 0) {
    console.log('\nlast lines of server stderr:');
    for (const l of stderrTail) console.log(`  ${l}`);
  }
  process.exit(1);
}
console.log('all interop checks passed');
