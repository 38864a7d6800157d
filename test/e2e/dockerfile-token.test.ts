import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { jwtVerify } from 'jose';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO } from '../helpers/gateway.js';

/**
 * examples/Dockerfile says how to get a token for the running container. No Docker here, so the
 * image's side is rebuilt from the Dockerfile itself: its ENV, the files it COPYs into /etc/hookgate,
 * the -e variables of its `docker run` line; then the `hookgate token …` of its `docker exec` line
 * runs in that environment (the clone's launcher standing in for the `hookgate` on the image's PATH).
 */
const dockerfile = readFileSync(join(REPO, 'examples/Dockerfile'), 'utf8');
const root = mkdtempSync(join(tmpdir(), 'hookgate-dockerfile-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('examples/Dockerfile', () => {
  it('says how to get a token, and that command signs one the gateway in the image accepts', async () => {
    const exec = /docker exec (\S+) hookgate (token [^)"]+)\)"/.exec(dockerfile);
    expect(exec, 'a `docker exec … hookgate token …` line').not.toBeNull();
    const [, container, command] = exec!;
    // The container the exec names is the one the run line starts.
    expect(dockerfile).toMatch(new RegExp(`docker run [^\\n]*--name ${container}\\b`));

    // The image: COPY … /etc/hookgate/, then ENV (HOOKGATE_CONFIG among them).
    const copy = /^COPY (examples\/\S+(?: examples\/\S+)*) \/etc\/hookgate\/$/m.exec(dockerfile)!;
    const etc = join(root, 'etc/hookgate');
    mkdirSync(etc, { recursive: true });
    for (const file of copy[1].split(' ')) copyFileSync(join(REPO, file), join(etc, file.split('/').pop()!));
    const imageEnv = Object.fromEntries(
      /^ENV (.+)$/m
        .exec(dockerfile)![1]
        .split(' ')
        .map((kv) => kv.split('=') as [string, string])
        .map(([k, v]) => [k, v.replace('/etc/hookgate', etc)]),
    );
    // The run line's -e variables: random secrets, known only to the container.
    const secrets = Object.fromEntries(
      [...dockerfile.matchAll(/-e (\w+)="\$\(openssl rand -base64 32\)"/g)].map(([, name]) => [
        name,
        `${name}-0123456789-abcdefghijklmnopqrstuvwxyz`,
      ]),
    );
    expect(Object.keys(secrets)).toContain('ACME_HOOK_SECRET');

    const home = join(root, 'home/node');
    mkdirSync(home, { recursive: true });
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [join(REPO, 'bin/hookgate.js'), ...command.trim().split(/\s+/)],
      { cwd: home, env: { PATH: process.env.PATH, ...imageEnv, ...secrets } },
    );
    const { payload } = await jwtVerify(stdout.trim(), new TextEncoder().encode(secrets.ACME_HOOK_SECRET), {
      audience: 'hookgate',
    });
    expect(payload).toMatchObject({ tenant: 'acme', hooks: ['weather'] });
  });
});
