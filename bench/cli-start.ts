/**
 * What one run of a per-event hookgate command costs: wall time and peak memory (max RSS) of the
 * built CLI's `hermes-hook` (Hermes runs it once per hook event), `hook --host codex` (Codex, Copilot
 * and Gemini CLI run it once per tool call), `bridge` start-up (PicoClaw starts
 * one per session) and `--version` (the CLI alone), beside `node -e 0`, interleaved in rounds.
 *
 *   npm run bench:cli                                   # the repository's dist/ (npm run build first)
 *   npm run bench:cli -- --cli ../old-checkout --cli .  # A/B: several built checkouts in the same rounds
 *   npm run bench:cli -- --npx                          # also `npx --no-install hookgate hermes-hook`
 *   options: --rounds N (default 8), --runs N per subject per round (default 5)
 *
 * Every command is real: a gateway (`hookgate serve --demo`) on 127.0.0.1, `hermes-hook` posting a
 * Hermes pre_tool_call for get_weather to its hermes route (the answer is checked), the bridge
 * answering hook.hello and one before_tool call over its WebSocket. Wall time is measured here from
 * spawn to exit (bridge: to the call's answer); CPU (user + system) and max RSS by GNU time
 * (`/usr/bin/time -f %M`). CPU is the figure least moved by other load on a shared machine.
 * Ratios are taken within a round (against that round's `node -e 0`), then the median over rounds.
 * Results: a table on stdout and bench/results/cli-start-*.json. Nothing is asserted.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const TIME = '/usr/bin/time';
const args = process.argv.slice(2);
const flagValues = (name: string) => args.flatMap((a, i) => (a === `--${name}` ? [args[i + 1]] : []));
const ROUNDS = Number(flagValues('rounds')[0] ?? 8);
const RUNS = Number(flagValues('runs')[0] ?? 5);
const WITH_NPX = args.includes('--npx');
const CLI_DIRS = (flagValues('cli').length > 0 ? flagValues('cli') : ['.']).map((d) => resolve(d));

if (!existsSync(TIME)) {
  console.error(`${TIME} (GNU time) is needed for max RSS: apt-get install -y time`);
  process.exit(2);
}
for (const dir of CLI_DIRS) {
  if (!existsSync(binOf(dir))) {
    console.error(`${binOf(dir)} is missing: run npm run build in ${dir}`);
    process.exit(2);
  }
}

function binOf(dir: string): string {
  return join(dir, 'dist/src/node/cli/bin.js');
}

interface Sample {
  wallMs: number;
  /** User + system CPU of the command (GNU time: 10 ms steps, so the report takes the mean). */
  cpuMs: number;
  rssKb: number;
}

interface Subject {
  id: string;
  run(): Promise<Sample>;
}

/** Runs argv under GNU time; resolves when it exits (or, with `until`, at that moment) with its figures. */
function measured(
  argv: string[],
  opts: {
    env?: NodeJS.ProcessEnv;
    cwd?: string;
    stdin?: string;
    until?: (child: ChildProcess) => Promise<void>;
  },
): Promise<Sample> {
  return new Promise((resolveSample, reject) => {
    const start = process.hrtime.bigint();
    const child = spawn(TIME, ['-f', 'MAXRSS %M CPU %U %S', ...argv], {
      env: { ...process.env, ...opts.env },
      cwd: opts.cwd,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (b) => {
      stdout += b;
    });
    child.stderr.on('data', (b) => {
      stderr += b;
    });
    let wallMs: number | undefined;
    if (opts.until) {
      opts.until(child).then(() => {
        wallMs = Number(process.hrtime.bigint() - start) / 1e6;
        child.stdin.end();
      }, reject);
    } else {
      child.stdin.end(opts.stdin ?? '');
    }
    child.on('close', (code) => {
      wallMs ??= Number(process.hrtime.bigint() - start) / 1e6;
      const rss = /MAXRSS (\d+) CPU ([\d.]+) ([\d.]+)\s*$/.exec(stderr);
      if (code !== 0 || !rss) {
        reject(new Error(`${argv.join(' ')} exited ${code}: ${stderr.slice(-500)}`));
        return;
      }
      const own = stderr.slice(0, rss.index);
      if (own.includes('gateway failed')) reject(new Error(`${argv.join(' ')}: ${own}`));
      else resolveSample({ wallMs, cpuMs: (Number(rss[2]) + Number(rss[3])) * 1000, rssKb: Number(rss[1]) });
      void stdout;
    });
  });
}

/** `hookgate serve --demo --port 0` from the first CLI: its URL and dev token. */
async function startGateway(dir: string): Promise<{ url: string; token: string; child: ChildProcess }> {
  const child = spawn(
    process.execPath,
    [binOf(dir), 'serve', '--demo', '--port', '0', '--log-level', 'warn'],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  // Never left behind, whatever ends this run.
  process.on('exit', () => child.kill('SIGTERM'));
  let out = '';
  return new Promise((resolveGw, reject) => {
    child.once('exit', (code) => reject(new Error(`gateway exited ${code}`)));
    child.stdout.on('data', (b) => {
      out += b;
      const url = /gateway on (http:\/\/\S+)/.exec(out)?.[1];
      const token = /dev token[^\n]*\n\s+(\S+)/.exec(out)?.[1];
      if (url && token) resolveGw({ url, token, child });
    });
  });
}

const PRE_TOOL_CALL = `${JSON.stringify({
  hook_event_name: 'pre_tool_call',
  tool_name: 'get_weather',
  tool_input: { city: 'Berlin' },
  session_id: 'bench',
  cwd: '/',
  extra: { task_id: 't', tool_call_id: 'c' },
})}\n`;

const CODEX_PRE_TOOL_USE = JSON.stringify({
  session_id: 'bench',
  turn_id: 'bench-turn',
  cwd: '/',
  hook_event_name: 'PreToolUse',
  model: 'bench',
  permission_mode: 'bypassPermissions',
  tool_name: 'Bash',
  tool_input: { command: 'echo hookgate-bench' },
  tool_use_id: 'call_bench',
});

const HELLO = `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'hook.hello', params: { name: 'weather', version: 1, modes: ['tool'] } })}\n`;
const BEFORE_TOOL = `${JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'hook.before_tool', params: { tool: 'get_weather', arguments: { city: 'Berlin' } } })}\n`;

/** Resolves when the bridge has answered the before_tool call (id 2) with the hook's respond. */
function answeredCall(child: ChildProcess): Promise<void> {
  child.stdin?.write(HELLO + BEFORE_TOOL);
  return new Promise((resolveCall, reject) => {
    let out = '';
    child.stdout?.on('data', (b) => {
      out += b;
      for (const line of out.split('\n')) {
        if (!line.includes('"id":2')) continue;
        if (line.includes('"respond"')) resolveCall();
        else reject(new Error(`bridge answered ${line}`));
      }
    });
  });
}

/** A project with hookgate installed locally (node_modules/.bin/hookgate), as `npm install hookgate` leaves it. */
function npxProject(dir: string): string {
  const project = mkdtempSync(join(tmpdir(), 'hookgate-npx-'));
  mkdirSync(join(project, 'node_modules/.bin'), { recursive: true });
  symlinkSync(dir, join(project, 'node_modules/hookgate'));
  symlinkSync('../hookgate/dist/src/node/cli/bin.js', join(project, 'node_modules/.bin/hookgate'));
  // npm's install makes the bin executable; tsc's output is not.
  chmodSync(binOf(dir), 0o755);
  writeFileSync(join(project, 'package.json'), '{"name":"npx-bench","private":true}\n');
  process.on('exit', () => rmSync(project, { recursive: true, force: true }));
  return project;
}

function onPath(name: string): string {
  for (const dir of (process.env.PATH ?? '').split(':'))
    if (dir && existsSync(join(dir, name))) return join(dir, name);
  throw new Error(`${name} is not on PATH`);
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)];
}

const gw = await startGateway(CLI_DIRS[0]);
const hermesUrl = `${gw.url}/v1/tenants/demo/hooks/weather`;
const wsUrl = `${hermesUrl.replace(/^http/, 'ws')}/ws`;
const tokenEnv = { HOOKGATE_TOKEN: gw.token };
const label = (dir: string) => (CLI_DIRS.length === 1 ? '' : ` [${dir}]`);

const subjects: Subject[] = [{ id: 'node -e 0', run: () => measured([process.execPath, '-e', '0'], {}) }];
for (const dir of CLI_DIRS) {
  const bin = binOf(dir);
  subjects.push(
    {
      id: `hookgate --version${label(dir)}`,
      run: () => measured([process.execPath, bin, '--version'], {}),
    },
    {
      id: `hookgate hermes-hook${label(dir)}`,
      run: () =>
        measured([process.execPath, bin, 'hermes-hook', '--url', hermesUrl], {
          env: tokenEnv,
          stdin: PRE_TOOL_CALL,
        }),
    },
    {
      // Codex's PreToolUse as Codex writes it (compact, no trailing newline); the hook has no objection.
      id: `hookgate hook --host codex${label(dir)}`,
      run: () =>
        measured([process.execPath, bin, 'hook', '--host', 'codex', '--url', hermesUrl], {
          env: tokenEnv,
          stdin: CODEX_PRE_TOOL_USE,
        }),
    },
    {
      id: `hookgate bridge, to its first answer${label(dir)}`,
      run: () =>
        measured(
          [process.execPath, bin, 'bridge', '--url', wsUrl, '--transport', 'ws', '--log-level', 'error'],
          {
            env: tokenEnv,
            until: answeredCall,
          },
        ),
    },
  );
}
if (WITH_NPX) {
  const project = npxProject(CLI_DIRS[0]);
  const npx = onPath('npx');
  subjects.push({
    id: `npx --no-install hookgate hermes-hook${label(CLI_DIRS[0])}`,
    run: () =>
      measured([npx, '--no-install', 'hookgate', 'hermes-hook', '--url', hermesUrl], {
        env: tokenEnv,
        cwd: project,
        stdin: PRE_TOOL_CALL,
      }),
  });
}

// Warm the page cache and the gateway once, unmeasured.
for (const s of subjects) await s.run();

const samples = new Map<string, Sample[]>(subjects.map((s) => [s.id, []]));
const wallRatios = new Map<string, number[]>(subjects.map((s) => [s.id, []]));
const rssRatios = new Map<string, number[]>(subjects.map((s) => [s.id, []]));
const started = Date.now();
for (let round = 0; round < ROUNDS; round++) {
  const thisRound = new Map<string, Sample[]>(subjects.map((s) => [s.id, []]));
  for (let k = 0; k < RUNS; k++) {
    // Rotate who goes first, so no subject always follows the same one.
    for (let i = 0; i < subjects.length; i++) {
      const s = subjects[(i + k + round) % subjects.length];
      const sample = await s.run();
      thisRound.get(s.id)!.push(sample);
      samples.get(s.id)!.push(sample);
    }
  }
  const floor = thisRound.get('node -e 0')!;
  const floorWall = median(floor.map((x) => x.wallMs));
  const floorRss = median(floor.map((x) => x.rssKb));
  for (const [id, xs] of thisRound) {
    wallRatios.get(id)!.push(median(xs.map((x) => x.wallMs)) / floorWall);
    rssRatios.get(id)!.push(median(xs.map((x) => x.rssKb)) / floorRss);
  }
  process.stderr.write(`round ${round + 1}/${ROUNDS} done\n`);
}
gw.child.kill('SIGTERM');

const rows = subjects.map((s) => {
  const xs = samples.get(s.id)!;
  return {
    subject: s.id,
    runs: xs.length,
    wallMsP50: median(xs.map((x) => x.wallMs)),
    wallMsP90: percentile(
      xs.map((x) => x.wallMs),
      90,
    ),
    wallXFloor: median(wallRatios.get(s.id)!),
    cpuMsMean: xs.reduce((n, x) => n + x.cpuMs, 0) / xs.length,
    maxRssMbP50: median(xs.map((x) => x.rssKb)) / 1024,
    maxRssMbMax: Math.max(...xs.map((x) => x.rssKb)) / 1024,
    rssXFloor: median(rssRatios.get(s.id)!),
  };
});

const f = (n: number, d = 1) => n.toFixed(d);
const table = [
  '| command | runs | wall p50 ms | wall p90 ms | wall ×`node -e 0` | CPU mean ms | max RSS p50 MB | max RSS max MB | RSS ×`node -e 0` |',
  '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  ...rows.map(
    (r) =>
      `| ${r.subject} | ${r.runs} | ${f(r.wallMsP50)} | ${f(r.wallMsP90)} | ${f(r.wallXFloor, 2)}× | ${f(r.cpuMsMean)} | ${f(r.maxRssMbP50)} | ${f(r.maxRssMbMax)} | ${f(r.rssXFloor, 2)}× |`,
  ),
].join('\n');
const machine = {
  node: process.version,
  cpu: cpus()[0]?.model,
  cores: cpus().length,
  loadavg: loadavg().map((x) => Number(x.toFixed(2))),
  version: JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')).version as string,
};
console.log(
  `${ROUNDS} interleaved rounds × ${RUNS} runs, ${Math.round((Date.now() - started) / 1000)} s, Node ${machine.node}, ${machine.cores} cores, load ${machine.loadavg.join(' ')}\n`,
);
console.log(table);
mkdirSync(join(REPO, 'bench/results'), { recursive: true });
const file = join(REPO, 'bench/results', `cli-start-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
writeFileSync(
  file,
  `${JSON.stringify({ machine, rounds: ROUNDS, runs: RUNS, cliDirs: CLI_DIRS, rows }, null, 2)}\n`,
);
console.log(`\n${file}`);
