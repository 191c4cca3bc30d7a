import { accessSync, constants, readFileSync, realpathSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Which VS Code the local desktop's `code` command runs (guest/bin/code decides the same way, in
 * the same order): the host's real VS Code, the web build of scripts/install-vscode.sh, or the
 * text-editor stand-in.
 */
export interface LocalVscode {
  /** `real`: Visual Studio Code itself; `web`: code-server (VS Code's workbench in a Chromium app window); `stand-in`: gedit. */
  readonly kind: 'real' | 'web' | 'stand-in';
  /** The program or install directory used. */
  readonly path?: string;
  /** The web build's stamp (`code-server X.Y.Z`). */
  readonly version?: string;
  /** How to get a VS Code when only the stand-in is there. */
  readonly installCommand?: string;
}

/** Where scripts/install-vscode.sh installs the web build (the sandbox sees the host's /usr). */
export const vscodeWebBuildDir = '/usr/local/lib/osharm-vscode';

/** Candidates for a real VS Code, in guest/bin/code's order. */
const realCandidates = [
  '/usr/share/code/bin/code',
  '/usr/bin/code',
  '/usr/local/bin/code',
  '/snap/bin/code',
  '/usr/share/code-insiders/bin/code-insiders',
];

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function isShim(path: string): boolean {
  try {
    return readFileSync(realpathSync(path)).subarray(0, 4096).includes('OSHARM_CODE_SHIM');
  } catch {
    return true;
  }
}

/** Looks at files only (starts nothing). */
export function localVscode(): LocalVscode {
  const real = realCandidates.find(path => executable(path) && !isShim(path));
  if (real !== undefined) return { kind: 'real', path: real };
  try {
    const version = readFileSync(join(vscodeWebBuildDir, '.installed'), 'utf8').trim();
    if (executable(join(vscodeWebBuildDir, 'node', 'bin', 'node'))) {
      return { kind: 'web', path: vscodeWebBuildDir, version };
    }
  } catch {
    // not installed
  }
  return { kind: 'stand-in', path: 'gedit', installCommand: 'bash scripts/install-vscode.sh' };
}
