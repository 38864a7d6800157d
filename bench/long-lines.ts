/**
 * Long lines through every line reader: CPU per line for a 1 MiB and a 7 MiB NDJSON line.
 *
 *   npx tsx bench/long-lines.ts [--rounds N]
 *
 * In this process (CPU from process.cpuUsage, lines cut into 64 KiB chunks as a pipe delivers
 * them): LineSplitter (src/core/ndjson.ts: the stdio backend's reader of a hook's stdout, the SDK's
 * serveStdio and the bridge reading stdin), TextLines (bench/lib/text-lines.ts: the bench clients'
 * reader of a child's stdout), and for reference a reader that appends every chunk to a string and
 * searches it from the start again (the quadratic pattern). Through a process: the SDK weather hook
 * (examples/weather-sdk.ts, serveStdio) sent before_llm requests of that size, CPU of the hook
 * process per call (it parses the request and answers `continue`), against a 64 KiB request.
 * Rounds interleave the readers; the median per reader is printed.
 */
import { spawn } from 'node:child_process';
import { LineSplitter } from '../src/core/ndjson.js';
import { procCpuMicros } from './lib/ipc.js';
import { largeParams } from './lib/messages.js';
import { TextLines } from './lib/text-lines.js';

const ROUNDS = Number(process.argv[process.argv.indexOf('--rounds') + 1]) || 5;
const CHUNK = 64 * 1024;
const SIZES = [1024 * 1024, 7 * 1024 * 1024];

/** A request line of about `bytes` bytes, newline included (ASCII, so characters = bytes). */
function requestLine(bytes: number, id: number): string {
  const head = `{"jsonrpc":"2.0","id":${id},"method":"hook.before_llm","params":`;
  const params = JSON.stringify(largeParams(bytes - head.length - 2));
  return `${head}${params}}\n`;
}

interface Reader {
  name: string;
  /** Reads the chunks of one line; returns the line's length as read. */
  read(chunks: { bytes: Uint8Array[]; text: string[] }): number;
}

const readers: Reader[] = [
  {
    name: 'LineSplitter (stdio backend, SDK serveStdio, bridge)',
    read(chunks) {
      let got = 0;
      const s = new LineSplitter(
        64 * 1024 * 1024,
        (l) => {
          got = l.length;
        },
        () => {},
      );
      for (const c of chunks.bytes) s.push(c);
      return got;
    },
  },
  {
    name: 'TextLines (bench clients)',
    read(chunks) {
      let got = 0;
      const r = new TextLines((l) => {
        got = l.length;
      });
      for (const c of chunks.text) r.push(c);
      return got;
    },
  },
  {
    name: 'reference: append and search from the start',
    read(chunks) {
      let got = 0;
      let buffer = '';
      for (const c of chunks.text) {
        buffer += c;
        let nl = buffer.indexOf('\n');
        while (nl !== -1) {
          got = nl;
          buffer = buffer.slice(nl + 1);
          nl = buffer.indexOf('\n');
        }
        // What the pattern costs: the search runs over the whole line so far, every chunk.
        void buffer.indexOf('\u0000');
      }
      return got;
    },
  },
];

function cpuMicros(f: () => void): number {
  const before = process.cpuUsage();
  f();
  const d = process.cpuUsage(before);
  return d.user + d.system;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function throughSdkHook(lines: string[]): Promise<number> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'examples/weather-sdk.ts'], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const answers = new TextLines(() => waiting.shift()?.());
  const waiting: (() => void)[] = [];
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (c: string) => answers.push(c));
  const send = (line: string) =>
    new Promise<void>((resolve) => {
      waiting.push(resolve);
      child.stdin.write(line);
    });
  await send(
    `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'hook.hello', params: { name: 'weather', version: 1, modes: ['llm', 'tool'] } })}\n`,
  );
  for (const line of lines.slice(0, 2)) await send(line); // warm-up
  const before = procCpuMicros(child.pid as number);
  for (const line of lines) await send(line);
  const micros = (procCpuMicros(child.pid as number) - before) / lines.length;
  child.stdin.end();
  await new Promise((resolve) => child.once('exit', resolve));
  return micros;
}

async function main(): Promise<void> {
  const results = new Map<string, number[]>();
  const add = (key: string, v: number) => results.set(key, [...(results.get(key) ?? []), v]);
  for (const size of SIZES) {
    const line = requestLine(size, 7);
    const chunks = { bytes: [] as Uint8Array[], text: [] as string[] };
    const bytes = Buffer.from(line);
    for (let i = 0; i < bytes.length; i += CHUNK) {
      chunks.bytes.push(bytes.subarray(i, i + CHUNK));
      chunks.text.push(line.slice(i, i + CHUNK));
    }
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 === 0 ? readers : [...readers].reverse();
      for (const r of order) {
        let got = 0;
        const micros = cpuMicros(() => {
          got = r.read(chunks);
        });
        if (got !== line.length - 1) throw new Error(`${r.name} read ${got} of ${line.length - 1}`);
        add(`${r.name}\u0000${size}`, micros);
      }
    }
  }
  console.log(`| reader | 1 MiB line: CPU µs | per MiB | 7 MiB line: CPU µs | per MiB |`);
  console.log(`| --- | ---: | ---: | ---: | ---: |`);
  for (const r of readers) {
    const cells = SIZES.map((size) => {
      const m = median(results.get(`${r.name}\u0000${size}`) ?? []);
      return `${Math.round(m).toLocaleString('en')} | ${Math.round(m / (size / 1048576)).toLocaleString('en')}`;
    });
    console.log(`| ${r.name} | ${cells.join(' | ')} |`);
  }
  // Through the SDK hook process: a 64 KiB request for scale, then the long lines.
  console.log('\n| SDK hook (serveStdio), before_llm answered continue | hook CPU µs per call | per MiB |');
  console.log('| --- | ---: | ---: |');
  for (const size of [64 * 1024, ...SIZES]) {
    const calls = size > 4 * 1024 * 1024 ? 6 : size > 512 * 1024 ? 20 : 200;
    const lines = Array.from({ length: calls }, (_, i) => requestLine(size, i + 2));
    const micros = await throughSdkHook(lines);
    console.log(
      `| ${size >= 1048576 ? `${size / 1048576} MiB` : `${size / 1024} KiB`} | ${Math.round(micros).toLocaleString('en')} | ${Math.round(micros / (size / 1048576)).toLocaleString('en')} |`,
    );
  }
}

await main();
