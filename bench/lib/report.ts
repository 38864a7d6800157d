/** The report: types, the table, the machine, and docs/performance.md. */
import { readFileSync } from 'node:fs';
import { cpus, release, totalmem } from 'node:os';
import { join } from 'node:path';
import { fmtBytes, fmtInt, fmtNum, fmtRatio } from './stats.js';

export interface CellFigures {
  path: string;
  label: string;
  group: 'floor' | 'baseline' | 'hookgate' | 'auth';
  msg: 'small' | 'large';
  bytes: number;
  samples: number;
  /** Sequential round trip, microseconds, pooled over all rounds. */
  p50: number;
  p99: number;
  /** Calls/s with 64 in flight on one connection (median over rounds). */
  one?: number;
  /** Calls/s with 64 connections, one call in flight on each (median over rounds). */
  many?: number;
  /** The window CPU time per call comes from: one connection where the path has it, else 64. */
  primary?: 'one' | 'many';
  /** Server-side CPU time per call (every process but the load generator), microseconds. */
  cpuPerCall?: number;
  cpuByProc?: Record<string, number>;
  gatewayCpuPerCall?: number;
  /** Server-side CPU time per sequential call (one at a time: every hop wakes a process). */
  seqCpuPerCall?: number;
  seqCpuByProc?: Record<string, number>;
  /** Token verifications per call: `verify` = auth lookups, `verifyUncached` = signature + claims checks. */
  verify: Record<'seq' | 'one' | 'many', { verify: number; verifyUncached: number } | undefined>;
  floors: string[];
  floorFigures?: {
    p50: number;
    p99: number;
    one?: number;
    many?: number;
    cpuPerCall?: number;
    seqCpuPerCall?: number;
  };
  ratios: { p50?: number; p99?: number; one?: number; many?: number; cpu?: number; seqCpu?: number };
  rounds: {
    seq: { round: number; n: number; p50: number; p99: number }[];
    /** `cpuPerCall`: every server-side process's CPU in that window, µs per call. */
    one: WindowFigures[];
    many: WindowFigures[];
  };
  errors: number;
  lastError?: string;
  skipped?: string;
}

export interface WindowFigures {
  round: number;
  callsPerS: number;
  calls: number;
  cpuPerCall?: number;
}

export interface IdleResult {
  target: 'gateway' | 'gateway (candidate)' | 'ws floor';
  requested: number;
  opened: number;
  failures?: number;
  serverSessions?: number;
  openMs?: number;
  gcExposed?: boolean;
  rssBefore?: number;
  rssAfter?: number;
  rssAfterProc?: number;
  rssPerConn: number;
  heapPerConn?: number;
  externalPerConn?: number;
  error?: string;
}

export interface Target {
  name: string;
  limit: string;
  measured: string;
  /** The same ratio computed round by round (min–max): how much it moved within this run. */
  perRound?: string;
  met: boolean | undefined;
}

export interface MachineInfo {
  cpuModel: string;
  cores: number;
  memoryGiB: number;
  kernel: string;
  node: string;
  packages: Record<string, string>;
}

export interface BenchReport {
  kind: 'quick' | 'full';
  startedAt: string;
  seconds: number;
  roundsPlanned: number;
  rounds: number;
  params: unknown;
  /** Node flags of every weather hook process (both sides of a ratio); absent in older reports. */
  hookNodeFlags?: string[];
  machine: MachineInfo;
  /** CPU used by processes the run did not start (other work on a shared machine), during the rounds. */
  machineLoad?: { seconds: number; otherCores: number; loadavg: number[]; otherCoresAtStart?: number };
  messages: { small: number; large: number };
  rows: CellFigures[];
  jwt: {
    cpuPerCallCached?: number;
    cpuPerCallUncached?: number;
    cpuCostPerVerification?: number;
    p50Cached?: number;
    p50Uncached?: number;
    p50Cost?: number;
    manyCached?: number;
    manyUncached?: number;
    httpUncachedPerCall?: number;
    httpUncachedPerCallNoCache?: number;
    wsVerifyPerMessage?: number;
  };
  idle: IdleResult[];
  targets: Target[];
  /** `--candidate DIR`: the same targets for the candidate gateway, measured in the same rounds. */
  candidate?: { dir: string; targets: Target[] };
  bridgeStderrTail?: string[];
}

const PACKAGES = [
  'hono',
  '@hono/node-server',
  'ws',
  'jose',
  'zod',
  'pino',
  'tsx',
  '@modelcontextprotocol/server',
  'supergateway',
];

export function machineInfo(repoRoot: string): MachineInfo {
  let cpuModel = cpus()[0]?.model ?? 'unknown';
  try {
    const m = /model name\s*:\s*(.+)/.exec(readFileSync('/proc/cpuinfo', 'utf8'));
    if (m) cpuModel = m[1].trim();
  } catch {
    // not Linux
  }
  const packages: Record<string, string> = {};
  for (const p of PACKAGES) {
    try {
      packages[p] = (
        JSON.parse(readFileSync(join(repoRoot, 'node_modules', p, 'package.json'), 'utf8')) as {
          version: string;
        }
      ).version;
    } catch {
      packages[p] = 'not installed';
    }
  }
  return {
    cpuModel,
    cores: cpus().length,
    memoryGiB: Math.round((totalmem() / 1024 ** 3) * 10) / 10,
    kernel: release(),
    node: process.version,
    packages,
  };
}

const FLOOR_NAMES: Record<string, string> = {
  stdio: 'stdio',
  ws: 'ws',
  http: 'http',
  hono: 'Hono',
  'supergateway-mcp': 'supergateway',
  chain: 'chain',
};

function floorName(floors: string[]): string {
  return floors.length === 0 ? '—' : floors.map((f) => FLOOR_NAMES[f] ?? f).join(' + ');
}

/** The results table (Markdown, also readable on a terminal). */
export function renderTable(rows: CellFigures[]): string {
  const head = [
    'path',
    'msg',
    'p50 µs',
    'p99 µs',
    'p50 ×floor',
    'calls/s 1 conn',
    '×floor',
    'calls/s 64 conns',
    '×floor',
    'CPU µs/call',
    '×floor',
    'of which gateway',
    'floor',
    'errors',
  ];
  const lines = [
    `| ${head.join(' | ')} |`,
    `|${head.map((_, i) => (i < 2 ? ' --- ' : ' ---: ')).join('|')}|`,
  ];
  for (const r of rows) {
    if (r.skipped) {
      lines.push(`| ${r.label} | ${r.msg} | ${r.skipped} |${' |'.repeat(head.length - 3)}`);
      continue;
    }
    const cells = [
      r.label,
      r.msg,
      fmtInt(r.p50),
      fmtInt(r.p99),
      fmtRatio(r.ratios.p50),
      fmtInt(r.one),
      fmtRatio(r.ratios.one),
      fmtInt(r.many),
      fmtRatio(r.ratios.many),
      r.cpuPerCall === undefined ? '—' : `${fmtNum(r.cpuPerCall)}${r.primary === 'many' ? ' ⁽⁶⁴⁾' : ''}`,
      fmtRatio(r.ratios.cpu),
      r.gatewayCpuPerCall === undefined ? '—' : fmtNum(r.gatewayCpuPerCall),
      floorName(r.floors),
      r.errors === 0 ? '0' : `${r.errors} (${(r.lastError ?? '').slice(0, 60)})`,
    ];
    lines.push(`| ${cells.join(' | ')} |`);
  }
  return lines.join('\n');
}

function metMark(met: boolean | undefined): string {
  return met === undefined ? 'n/a' : met ? 'met' : '**missed**';
}

export function renderTargets(targets: Target[]): string {
  const lines = ['| target | limit | measured | per round | |', '| --- | --- | --- | --- | --- |'];
  for (const t of targets) {
    lines.push(`| ${t.name} | ${t.limit} | ${t.measured} | ${t.perRound ?? ''} | ${metMark(t.met)} |`);
  }
  return lines.join('\n');
}

export function renderJwt(r: BenchReport): string {
  const j = r.jwt;
  return [
    '| HTTP → module, small, same token | token cache on (default) | token cache off (`token_cache_size: 0`) | cost of one verification |',
    '| --- | ---: | ---: | ---: |',
    `| gateway CPU µs/call (64 conns) | ${fmtNum(j.cpuPerCallCached)} | ${fmtNum(j.cpuPerCallUncached)} | ${fmtNum(j.cpuCostPerVerification)} µs CPU |`,
    `| p50 µs (sequential) | ${fmtInt(j.p50Cached)} | ${fmtInt(j.p50Uncached)} | ${fmtInt(j.p50Cost)} µs |`,
    `| calls/s (64 conns) | ${fmtInt(j.manyCached)} | ${fmtInt(j.manyUncached)} | |`,
    `| signature checks per call | ${fmtNum(j.httpUncachedPerCall, 4)} | ${fmtNum(j.httpUncachedPerCallNoCache, 2)} | |`,
    '',
    `WebSocket paths: ${j.wsVerifyPerMessage === undefined ? 'not measured' : `${fmtNum(j.wsVerifyPerMessage, 4)} token verifications per message`} (the token is verified once, at the upgrade).`,
  ].join('\n');
}

export function renderIdle(idle: IdleResult[]): string {
  const lines = [
    '| server | connections held | RSS before | RSS after | RSS per connection | JS heap per connection | external per connection |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: |',
  ];
  for (const i of idle) {
    if (i.error) {
      lines.push(`| ${i.target} | ${i.opened}/${i.requested} | ${i.error} | | | | |`);
      continue;
    }
    lines.push(
      `| ${i.target === 'ws floor' ? 'raw ws server (floor)' : `hookgate ${i.target}`} | ${i.opened}/${i.requested} | ${fmtBytes(i.rssBefore ?? Number.NaN)} | ${fmtBytes(i.rssAfter ?? Number.NaN)} | ${fmtBytes(i.rssPerConn)} | ${fmtBytes(i.heapPerConn ?? Number.NaN)} | ${fmtBytes(i.externalPerConn ?? Number.NaN)} |`,
    );
  }
  return lines.join('\n');
}

function machineLine(m: MachineInfo): string {
  const pk = Object.entries(m.packages)
    .map(([k, v]) => `${k} ${v}`)
    .join(', ');
  return `${m.cpuModel}, ${m.cores} cores, ${m.memoryGiB} GiB, Linux ${m.kernel}; Node ${m.node}; ${pk}`;
}

function loadLine(r: BenchReport): string {
  const l = r.machineLoad;
  if (!l) return '';
  return `other processes on the machine used ${l.otherCores.toFixed(2)} of ${r.machine.cores} cores on average during the rounds (load average ${l.loadavg.join(' ')})`;
}

export function renderConsole(r: BenchReport): string {
  return [
    '',
    `hookgate bench (${r.kind}, ${r.rounds}/${r.roundsPlanned} rounds, ${r.seconds.toFixed(0)} s) — ${machineLine(r.machine)}`,
    `messages: small before_tool ${r.messages.small} B, large before_llm ${r.messages.large} B`,
    loadLine(r),
    '',
    renderTable(r.rows),
    '',
    'CPU µs/call: every server-side process (not the load generator), in the 1-connection window; ⁽⁶⁴⁾ = 64-connection window.',
    '',
    renderTargets(r.targets),
    '',
    ...(r.candidate
      ? [`candidate (${r.candidate.dir}), same rounds:`, '', renderTargets(r.candidate.targets), '']
      : []),
    renderJwt(r),
    '',
    renderIdle(r.idle),
    '',
  ].join('\n');
}

const NOTES_START = '<!-- notes:start -->';
const NOTES_END = '<!-- notes:end -->';

/** The load run before each throughput window of this run (PARAMS.refillMs in run.ts). */
function refillText(r: BenchReport): string {
  const ms = (r.params as { refillMs?: number } | undefined)?.refillMs;
  if (ms === undefined) return 'a short burst';
  return ms >= 1000 && ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}

function hookFlagsText(r: BenchReport): string {
  if (r.hookNodeFlags === undefined) return 'the flags of its run';
  return r.hookNodeFlags.length === 0 ? "Node's default flags" : `\`node ${r.hookNodeFlags.join(' ')}\``;
}

/** docs/performance.md, rewritten by each full run; the notes section between the markers is kept. */
export function renderDoc(r: BenchReport, previous: string): string {
  const a = previous.indexOf(NOTES_START);
  const b = previous.indexOf(NOTES_END);
  const notes =
    a !== -1 && b > a
      ? previous.slice(a + NOTES_START.length, b).trim()
      : '_No analysis notes yet. Write them here; `npm run bench` keeps this section._';
  const m = r.machine;
  return `# Performance

What hookgate adds to a hook call, against the floors (what the same call costs without hookgate),
measured by \`npm run bench\`. **Everything above the notes section is written by the benchmark run;**
do not edit it by hand. Figures are from one machine and one run: compare ratios, not absolute
numbers, across machines.

Last run: ${r.startedAt} (${r.kind}, ${r.rounds}/${r.roundsPlanned} interleaved rounds, ${r.seconds.toFixed(0)} s).

## Machine

| | |
| --- | --- |
| CPU | ${m.cpuModel} |
| cores | ${m.cores} (shared machine: load generator, servers and hook processes all run on these) |
| memory | ${m.memoryGiB} GiB |
| kernel | Linux ${m.kernel} |
| Node | ${m.node} |
| other load during the rounds | ${r.machineLoad ? `${r.machineLoad.otherCores.toFixed(2)} cores used by processes the run did not start (load average ${r.machineLoad.loadavg.join(' ')})` : 'not recorded'} |
${Object.entries(m.packages)
  .map(([k, v]) => `| ${k} | ${v} |`)
  .join('\n')}

## Results

Messages: **small** = \`hook.before_tool\` for \`get_weather\`, ${r.messages.small} B, answered \`respond\`;
**large** = \`hook.before_llm\` with a long conversation and 30 tool definitions, ${r.messages.large} B
(${(r.messages.large / 1024).toFixed(1)} KiB), answered \`continue\`.

${renderTable(r.rows)}

- **p50/p99**: sequential round trip (one call at a time), after warm-up, pooled over all rounds.
- **calls/s 1 conn**: 64 calls in flight multiplexed on one connection (WebSocket, or one stdio pipe);
  HTTP/1.1 cannot multiplex, so HTTP paths have none. **calls/s 64 conns**: 64 connections with one
  call in flight each (HTTP keep-alive sockets or WebSockets). Median over rounds.
- **CPU µs/call**: CPU time (user + system, all threads) of every server-side process of the path,
  i.e. everything but the load generator, over the 1-connection window (⁽⁶⁴⁾: the 64-connection
  window). For the stdio backend path that is the gateway plus the hook process; for the bridge path
  the bridge plus the gateway. **of which gateway**: the gateway process alone.
- **×floor**: ratio to the matching floor measured in the same run. Composite floors (stdio + ws)
  add latencies and CPU; their throughput is that of the two stages in series (1 / Σ 1/x).
  A latency or CPU ratio above 1 and a throughput ratio below 1 mean hookgate costs more.
  The MCP row is compared with supergateway (stateful Streamable HTTP in front of an MCP stdio
  server answering the same tool), another tool doing the same job rather than a floor.

## Targets

**measured** is the ratio of the pooled figures above; **per round** is the same ratio computed
within each interleaved round (lowest–highest), a measure of how much it moves on this machine.

${renderTargets(r.targets)}

## Token verification (JWT, HS256)

${renderJwt(r)}

## Idle WebSockets

Connections opened by a separate process and left idle; RSS of the server process measured after
a forced GC (\`--expose-gc\`) before and after, delta divided by the connections held.

${renderIdle(r.idle)}

## How it is measured

- \`npm run bench\` (\`tsx bench/run.ts\`) starts every target itself on 127.0.0.1 and stops by
  itself; \`npm run bench -- --quick\` is a ~1 minute smoke run (writes JSON only; add \`--doc\` to also
  write this page). Each run writes \`bench/results/bench-<kind>-<time>.json\` and
  \`bench/results/latest.json\` (not committed).
- Servers run in their own processes (the gateway via \`startGateway\` with log level \`warn\` and a
  real HS256 JWT; each floor in its own child); this process is the load generator, so its CPU is
  not charged to any path. The runs are interleaved: every round runs every path and message, in
  reverse order on every other round, so drift of the shared machine spreads over all paths; within
  a round the sequential calls are cut into slices taken in turn on every path (A B C … C B A …), so
  the latencies a ratio compares are measured seconds apart. The throughput windows run each floor
  beside the paths compared with it (\`bench/lib/schedule.ts\`), so a gateway path does not wait
  through every other floor's windows while its own floor does not. Each window follows
  ${refillText(r)} of the same load that is not counted. A server that sat idle long enough for
  V8's memory reducer still pays more for a while after it; \`bench/after-idle.ts\` measures that
  apart (the notes have its figures). Every loop is bounded in calls and in time, and the run has a
  time budget.
- Floors: **stdio** = \`examples/weather-sdk.ts\` run as a PicoClaw stdio hook, NDJSON on its
  stdin/stdout (what PicoClaw does today), under ${hookFlagsText(r)} like every weather hook process
  of the run (the gateway's stdio hook and the chain floor's too; \`--hook-node-flags\`, and the
  note "1, the hooks" for why); **ws** = a \`ws\` server; **http** = \`node:http\`;
  **Hono** = a Hono app on \`@hono/node-server\`. The network floors parse the message and answer
  with the result the weather hook gives (no auth, no policy, no hook code).
- MCP \`tools/call\` (\`get_weather\`, Berlin): hookgate's MCP route (stateless, JSON answers, the
  token in \`Authorization\`) against supergateway (\`--outputTransport streamableHttp --stateful
  --logLevel none\`, held to 127.0.0.1) in front of \`bench/children/mcp-stdio-weather.ts\`, an MCP
  SDK stdio server running the weather hook's own tool; supergateway answers as SSE. Both are
  driven by the same raw-HTTP client with prebuilt bodies (\`bench/lib/mcp-client.ts\`): one
  \`initialize\` per client, then \`Mcp-Session-Id\` on every call where the server gives one, and
  every answer's text checked. CPU: the gateway process against supergateway plus its sessions'
  processes (shell, MCP server).
- hookgate paths use the same weather hook as a \`module\` backend (in the gateway's process) or as a
  \`stdio\` backend (a process the gateway hosts); the hook is granted \`conversation_access\`, so it
  receives the same payload as the stdio floor's hook. The bridge path is \`hookgate bridge\` as
  PicoClaw would spawn it (NDJSON on its stdin/stdout, \`hook.hello\` id 1), over WebSocket to the
  gateway, module backend.
- Every answer is checked (\`respond\` for small, \`continue\` for large); wrong answers count as
  errors. Token verifications are counted inside the gateway process (by wrapping
  \`TenantVerifier.authenticate\`, the one lookup per call or upgrade, and \`verifyUncached\`), not inferred.
- Profiling: \`npx tsx bench/profile.ts --path ws --msg large\` runs the gateway child under
  \`node --cpu-prof\` with the same load and prints the top self-time functions.

## Notes

${NOTES_START}
${notes}
${NOTES_END}
`;
}
