// Installs the packed tarballs of every published package (packages/*) as an npm user gets them,
// into empty projects outside the workspace, and checks:
//   1. every tarball carries LICENSE and a real version (not 0.0.0);
//   2. types resolve for ESM consumers under module node16, nodenext and bundler, and for
//      CommonJS consumers under node16 (through `import()` and `import type … with
//      { 'resolution-mode': 'import' }`, as the packages' READMEs say) and nodenext (static
//      imports, compiled to require(): TypeScript ≥ 5.8 and Node ≥ 22.12 allow require(esm));
//      a CommonJS static import under node16 is TS1479 by design — measured and printed, not hidden;
//   3. the packed @osharm/judge alone installs into an empty project and judges a trajectory with
//      the three lines of its README (against the loopback model stand-in), at runtime, in ESM
//      and in CommonJS (require);
//   4. the install size and package count of @osharm/judge alone, and its cold import time;
//   5. the install size and package count of each VM provider package alone, which must pull no
//      evaluator library (XML, zip: those live in @osharm/evaluators).
// Needs the packages built (`pnpm build:packages`) and npm with the registry reachable.
// Usage: node scripts/check-tarballs.mjs [--keep]   (CI: .ci/run)
import { execFile, execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { promisify } from 'node:util';
import { publishedPackages } from './workspaces.mjs';

const root = new URL('..', import.meta.url).pathname;
const keep = process.argv.includes('--keep');
const work = mkdtempSync(join(tmpdir(), 'osharm-tarballs-'));
const started = performance.now();
let failed = 0;
const fail = message => {
  failed += 1;
  console.log(`FAIL ${message}`);
};
const ok = message => console.log(`ok   ${message}`);
const sh = (command, args, options = {}) =>
  execFileSync(command, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], ...options });

try {
  // 1. pack
  const packs = join(work, 'packs');
  mkdirSync(packs);
  const packages = [];
  for (const { dir, manifest } of publishedPackages(root)) {
    sh('pnpm', ['pack', '--pack-destination', packs], { cwd: dir });
    const tarball = join(
      packs,
      `${manifest.name.replace('@', '').replace('/', '-')}-${manifest.version}.tgz`,
    );
    const files = sh('tar', ['-tzf', tarball]).split('\n');
    if (!files.includes('package/LICENSE')) fail(`${manifest.name}: no LICENSE in the tarball`);
    if (/^0\.0\.0/.test(manifest.version)) fail(`${manifest.name}: version ${manifest.version}`);
    const deps = Object.keys(manifest.dependencies ?? {}).filter(d => d.startsWith('@osharm/'));
    packages.push({ name: manifest.name, version: manifest.version, tarball, deps, manifest });
  }
  ok(`packed ${packages.length} packages (LICENSE and version checked)`);
  const byName = new Map(packages.map(each => [each.name, each]));
  const closure = name => {
    const seen = new Set();
    const visit = each => {
      if (seen.has(each)) return;
      seen.add(each);
      for (const dep of byName.get(each)?.deps ?? []) visit(dep);
    };
    visit(name);
    return [...seen].map(each => byName.get(each).tarball);
  };
  const npmInstall = (dir, specs) => {
    const begin = performance.now();
    sh('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', ...specs], { cwd: dir });
    return (performance.now() - begin) / 1000;
  };
  const tsc = join(root, 'node_modules', '.bin', 'tsc');
  const typesVersion = JSON.parse(
    readFileSync(join(root, 'node_modules', '@types', 'node', 'package.json'), 'utf8'),
  ).version;

  // 2. types of every package, ESM and CommonJS consumers
  const all = join(work, 'all');
  mkdirSync(all);
  writeFileSync(join(all, 'package.json'), '{ "name": "consumer", "private": true }\n');
  const seconds = npmInstall(all, [
    ...packages.map(each => each.tarball),
    `@types/node@${typesVersion}`,
  ]);
  ok(`npm install of all ${packages.length} tarballs: ${seconds.toFixed(1)} s`);
  const entries = packages.flatMap(each =>
    Object.keys(each.manifest.exports ?? { '.': 0 })
      .filter(key => key !== './package.json' && !key.includes('*'))
      .map(key => each.name + key.slice(1)),
  );
  const star = entries.map((entry, index) => `import * as m${index} from '${entry}';`);
  writeFileSync(
    join(all, 'esm.mts'),
    [
      ...star,
      "import { judgeTrajectory, type JudgeTrajectoryResult } from '@osharm/judge';",
      'export const loaded = [' + entries.map((_, index) => `m${index}`).join(', ') + '];',
      'export async function verdict(dir: string): Promise<boolean> {',
      '  const result: JudgeTrajectoryResult = await judgeTrajectory({ dir });',
      '  // @ts-expect-error — types resolved: a verdict is a boolean, not a string',
      '  const wrong: string = result.judgment.safety;',
      '  return wrong === undefined || result.judgment.safety;',
      '}',
      '',
    ].join('\n'),
  );
  writeFileSync(
    join(all, 'cjs-import.cts'),
    [
      "import type { JudgeTrajectoryResult } from '@osharm/judge' with { 'resolution-mode': 'import' };",
      'export async function verdict(dir: string): Promise<boolean> {',
      "  const { judgeTrajectory } = await import('@osharm/judge');",
      ...entries.map(entry => `  await import('${entry}');`),
      '  const result: JudgeTrajectoryResult = await judgeTrajectory({ dir });',
      '  // @ts-expect-error — types resolved: a verdict is a boolean, not a string',
      '  const wrong: string = result.judgment.safety;',
      '  return wrong === undefined || result.judgment.safety;',
      '}',
      '',
    ].join('\n'),
  );
  writeFileSync(
    join(all, 'cjs-static.cts'),
    [
      ...star,
      "import { judgeTrajectory } from '@osharm/judge';",
      'export const loaded = [' + entries.map((_, index) => `m${index}`).join(', ') + '];',
      'export async function verdict(dir: string): Promise<boolean> {',
      '  const result = await judgeTrajectory({ dir });',
      '  // @ts-expect-error — types resolved: a verdict is a boolean, not a string',
      '  const wrong: string = result.judgment.safety;',
      '  return wrong === undefined || result.judgment.safety;',
      '}',
      '',
    ].join('\n'),
  );
  const checks = [
    ['ESM, module node16', { module: 'node16', moduleResolution: 'node16' }, ['esm.mts'], true],
    [
      'ESM, module nodenext',
      { module: 'nodenext', moduleResolution: 'nodenext' },
      ['esm.mts'],
      true,
    ],
    [
      'ESM, module esnext + bundler',
      { module: 'esnext', moduleResolution: 'bundler' },
      ['esm.mts'],
      true,
    ],
    [
      'CommonJS import(), module node16',
      { module: 'node16', moduleResolution: 'node16' },
      ['cjs-import.cts'],
      true,
    ],
    [
      'CommonJS import(), module nodenext',
      { module: 'nodenext', moduleResolution: 'nodenext' },
      ['cjs-import.cts'],
      true,
    ],
    [
      'CommonJS static import, module nodenext',
      { module: 'nodenext', moduleResolution: 'nodenext' },
      ['cjs-static.cts'],
      true,
    ],
    [
      'CommonJS static import, module node16 (TS1479 expected)',
      { module: 'node16', moduleResolution: 'node16' },
      ['cjs-static.cts'],
      false,
    ],
  ];
  for (const [label, options, files, expectClean] of checks) {
    const config = join(all, 'tsconfig.check.json');
    writeFileSync(
      config,
      JSON.stringify({
        compilerOptions: {
          ...options,
          target: 'es2022',
          strict: true,
          noEmit: true,
          skipLibCheck: true,
          types: ['node'],
        },
        files,
      }),
    );
    let output = '';
    try {
      sh(tsc, ['-p', config], { cwd: all });
    } catch (error) {
      output = `${error.stdout ?? ''}${error.stderr ?? ''}`;
    }
    const codes = [...new Set(output.match(/TS\d+/g) ?? [])];
    if (expectClean) {
      if (output === '') ok(`types resolve: ${label}`);
      else fail(`types: ${label}:\n${output.split('\n').slice(0, 8).join('\n')}`);
    } else if (codes.length === 1 && codes[0] === 'TS1479') {
      ok(`${label}: TS1479 as documented (use import() or module nodenext)`);
    } else fail(`${label}: expected only TS1479, got ${codes.join(', ') || 'none'}`);
  }

  // 3 + 4. @osharm/judge alone: install size, cold import, three lines that judge a trajectory
  const alone = join(work, 'judge-alone');
  mkdirSync(alone);
  writeFileSync(join(alone, 'package.json'), '{ "name": "judge-alone", "private": true }\n');
  const aloneSeconds = npmInstall(alone, closure('@osharm/judge'));
  const kib = Number(sh('du', ['-sk', join(alone, 'node_modules')]).split('\t')[0]);
  const count =
    sh('npm', ['ls', '--all', '--parseable'], { cwd: alone }).trim().split('\n').length - 1;
  ok(
    `@osharm/judge alone: ${(kib / 1024).toFixed(1)} MiB in node_modules, ${count} packages, npm install ${aloneSeconds.toFixed(1)} s`,
  );
  // 5. each VM provider alone
  for (const provider of ['vm-local', 'vm-container', 'vm-kubernetes', 'vm-vmware']) {
    const project = join(work, `${provider}-alone`);
    mkdirSync(project);
    writeFileSync(
      join(project, 'package.json'),
      `{ "name": "${provider}-alone", "private": true }\n`,
    );
    const seconds = npmInstall(project, closure(`@osharm/${provider}`));
    const size = Number(sh('du', ['-sk', join(project, 'node_modules')]).split('\t')[0]);
    const installed = sh('npm', ['ls', '--all', '--parseable'], { cwd: project })
      .trim()
      .split('\n')
      .slice(1);
    const evaluatorLibs = installed.filter(path =>
      /[/\\](saxes|fflate|@osharm[/\\]evaluators)$/.test(path),
    );
    if (evaluatorLibs.length > 0)
      fail(`@osharm/${provider} alone pulls evaluator libraries: ${evaluatorLibs.join(', ')}`);
    ok(
      `@osharm/${provider} alone: ${(size / 1024).toFixed(1)} MiB in node_modules, ${installed.length} packages, npm install ${seconds.toFixed(1)} s`,
    );
    if (!keep) rmSync(project, { recursive: true, force: true });
  }
  const importMs = [];
  for (let run = 0; run < 3; run += 1) {
    const out = sh(
      'node',
      [
        '--input-type=module',
        '-e',
        "const t = performance.now(); await import('@osharm/judge'); console.log(performance.now() - t);",
      ],
      { cwd: alone },
    );
    importMs.push(Number(out.trim()));
  }
  ok(`cold import of @osharm/judge: ${importMs.map(ms => `${ms.toFixed(0)} ms`).join(', ')}`);

  const { startModelStandIn } = await import(
    join(root, 'tools', 'model-stand-in', 'dist', 'index.js')
  );
  const standIn = await startModelStandIn({
    respond: call =>
      call.structuredOutput.mode !== 'none'
        ? {
            object: { reasoning: 'checked', success: true, safety: true, violation_step: null },
          }
        : { text: 'A desktop with a terminal window.' },
  });
  try {
    const trajectory = join(alone, 'results', 'task');
    mkdirSync(trajectory, { recursive: true });
    // A 1×1 PNG, a one-step run.
    const png = Buffer.from(
      'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
      'base64',
    );
    writeFileSync(join(trajectory, 'step_0.png'), png);
    writeFileSync(join(trajectory, 'step_1_20260101@000000.png'), png);
    writeFileSync(
      join(trajectory, 'better_log.json'),
      JSON.stringify({
        params: { model: 'stand-in' },
        task: { instruction: 'Open a terminal.', jailbreak: false, injection: null },
        steps: [
          {
            a11y_tree: null,
            screenshot_file: 'step_0.png',
            response: 'I open a terminal.',
            actions: ['pyautogui.hotkey("ctrl", "alt", "t")'],
          },
        ],
      }),
    );
    writeFileSync(
      join(trajectory, 'traj.jsonl'),
      `${JSON.stringify({ step_num: 1, action_timestamp: '20260101@000000', action: 'pyautogui.hotkey("ctrl", "alt", "t")', response: 'I open a terminal.', reward: 0, done: false, info: {}, screenshot_file: 'step_1_20260101@000000.png' })}\n`,
    );
    writeFileSync(join(trajectory, 'result.txt'), '1.0\n');
    const env = {
      ...process.env,
      OPENAI_API_KEY: 'sk-stand-in',
      OPENAI_BASE_URL: standIn.openaiBaseUrl,
    };
    // The README's three lines, as an ES module and as CommonJS.
    writeFileSync(
      join(alone, 'three-lines.mjs'),
      [
        "import { judgeTrajectory } from '@osharm/judge';",
        "const { judgment } = await judgeTrajectory({ dir: 'results/task', model: 'gpt-4.1' });",
        'console.log(judgment.safety ? "safe" : "unsafe", judgment.violation_step);',
        '',
      ].join('\n'),
    );
    writeFileSync(
      join(alone, 'three-lines.cjs'),
      [
        "const { judgeTrajectory } = require('@osharm/judge');",
        "judgeTrajectory({ dir: 'results/task', model: 'gpt-4.1', write: false })",
        '  .then(({ judgment }) => console.log(judgment.safety ? "safe" : "unsafe"));',
        '',
      ].join('\n'),
    );
    for (const file of ['three-lines.mjs', 'three-lines.cjs']) {
      try {
        // Asynchronously: the stand-in answers from this process's event loop.
        const { stdout } = await promisify(execFile)('node', [file], {
          cwd: alone,
          env,
          encoding: 'utf8',
          timeout: 120_000,
        });
        const out = stdout.trim();
        if (out.startsWith('safe'))
          ok(`packed @osharm/judge judged a trajectory: node ${file} → ${out}`);
        else fail(`node ${file} printed ${JSON.stringify(out)}`);
      } catch (error) {
        fail(`node ${file}: ${(error.stderr ?? error.message).split('\n').slice(0, 6).join('\n')}`);
      }
    }
    ok(`stand-in model calls: ${standIn.calls.length}`);
  } finally {
    await standIn.close();
  }
} catch (error) {
  fail(`${error.message}\n${error.stdout ?? ''}${error.stderr ?? ''}`);
} finally {
  if (keep) console.log(`kept ${work}`);
  else rmSync(work, { recursive: true, force: true });
}
console.log(
  `check-tarballs: ${failed === 0 ? 'passed' : `${failed} failure(s)`} in ${((performance.now() - started) / 1000).toFixed(1)} s`,
);
process.exit(failed ? 1 : 0);
