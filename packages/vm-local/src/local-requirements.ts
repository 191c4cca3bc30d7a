import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

/** An application the local desktop can offer, and what provides it. */
export type LocalApp =
  | 'terminal'
  | 'text-editor'
  | 'writer'
  | 'calc'
  | 'impress'
  | 'chromium'
  | 'thunderbird'
  | 'gimp'
  | 'vlc'
  | 'settings'
  | 'disks';

/** One missing program and the Debian package that provides it. */
export interface MissingRequirement {
  /** The program looked for (`/usr/bin/python3 -c "import pyatspi"` for Python modules). */
  readonly program: string;
  readonly debianPackage: string;
  /** What it is needed for. */
  readonly neededFor: string;
}

/** Result of {@link checkLocalDesktopRequirements}. */
export interface LocalDesktopRequirements {
  /** True when nothing required is missing. */
  readonly ok: boolean;
  readonly missing: readonly MissingRequirement[];
  /** Optional applications that are not installed (the desktop works without them). */
  readonly missingOptional: readonly MissingRequirement[];
  /** `apt-get install …` for everything missing (required first), or undefined when none is. */
  readonly installCommand: string | undefined;
}

/** The desktop itself: sandbox, display, window manager, accessibility, input, recording. */
const core: readonly [string, string, string][] = [
  ['bwrap', 'bubblewrap', 'the sandbox'],
  ['setpriv', 'util-linux', 'dropping root before the sandbox starts'],
  ['Xvfb', 'xvfb', 'the display'],
  ['xdpyinfo', 'x11-utils', 'display checks'],
  ['openbox', 'openbox', 'the window manager'],
  ['wmctrl', 'wmctrl', 'open_file / activate_window / close_window'],
  ['dbus-run-session', 'dbus-daemon', 'the D-Bus session'],
  ['dbus-launch', 'dbus-x11', 'D-Bus activation of X clients'],
  ['gsettings', 'libglib2.0-bin', 'turning accessibility on'],
  ['/usr/libexec/at-spi-bus-launcher', 'at-spi2-core', 'the accessibility bus'],
  ['/usr/libexec/dconf-service', 'dconf-service', 'settings storage'],
  ['ffmpeg', 'ffmpeg', 'screen recording and wallpapers'],
  ['xdg-open', 'xdg-utils', 'opening files'],
  ['/usr/bin/python3', 'python3', 'the desktop helper and pyautogui'],
  ['openssl', 'openssl', "the desktop's own certificate authority (upstream's web addresses)"],
  ['certutil', 'libnss3-tools', "the browser's trust in the desktop's certificate authority"],
];

const pythonModules: readonly [string, string, string][] = [
  ['Xlib', 'python3-xlib', 'screenshots and pyautogui input'],
  ['pyatspi', 'python3-pyatspi', 'the accessibility tree'],
];

/** Applications: the program, its package, and whether the default desktop requires it. */
const localAppPrograms: Readonly<Record<LocalApp, readonly [string, string]>> = {
  terminal: ['gnome-terminal', 'gnome-terminal'],
  'text-editor': ['gedit', 'gedit'],
  writer: ['/usr/lib/libreoffice/program/swriter', 'libreoffice-writer libreoffice-gtk3'],
  calc: ['/usr/lib/libreoffice/program/scalc', 'libreoffice-calc libreoffice-gtk3'],
  impress: ['/usr/lib/libreoffice/program/simpress', 'libreoffice-impress libreoffice-gtk3'],
  chromium: ['chromium', 'chromium'],
  thunderbird: ['thunderbird', 'thunderbird'],
  gimp: ['gimp', 'gimp'],
  vlc: ['vlc', 'vlc'],
  // GNOME Settings (its Users panel needs accounts-daemon) and GNOME Disks (the UDisks2 stand-in
  // of guest/system serves it): docs/packages/vm-local.md, "GNOME Settings and Disks".
  settings: ['gnome-control-center', 'gnome-control-center accountsservice'],
  disks: ['gnome-disks', 'gnome-disk-utility'],
};

/** The applications the default desktop requires (the others are used when installed). */
export const defaultLocalApps: readonly LocalApp[] = [
  'terminal',
  'text-editor',
  'writer',
  'calc',
  'chromium',
];

function findProgram(program: string): boolean {
  const candidates = program.startsWith('/')
    ? [program]
    : (process.env.PATH ?? '/usr/bin:/bin')
        .split(delimiter)
        .concat(['/usr/sbin', '/usr/bin', '/sbin', '/bin'])
        .map(directory => join(directory, program));
  return candidates.some(candidate => {
    try {
      accessSync(candidate, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

function pythonModuleExists(module: string): boolean {
  // The module directory in Debian's dist-packages is enough (no python start-up here).
  const base = '/usr/lib/python3/dist-packages';
  try {
    accessSync(join(base, module), constants.R_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * Checks that this host has what the local desktop needs (Debian package names), and says which
 * `apt-get install` fixes it. Fast: looks for files only, starts nothing.
 * @param options.apps the applications that must be present @default defaultLocalApps
 */
export function checkLocalDesktopRequirements(
  options: { readonly apps?: readonly LocalApp[] } = {},
): LocalDesktopRequirements {
  const apps = options.apps ?? defaultLocalApps;
  const missing: MissingRequirement[] = [];
  for (const [program, debianPackage, neededFor] of core) {
    if (!findProgram(program)) missing.push({ program, debianPackage, neededFor });
  }
  for (const [module, debianPackage, neededFor] of pythonModules) {
    if (!pythonModuleExists(module)) {
      missing.push({ program: `/usr/bin/python3 -c "import ${module}"`, debianPackage, neededFor });
    }
  }
  const missingOptional: MissingRequirement[] = [];
  for (const [app, [program, debianPackage]] of Object.entries(localAppPrograms) as [
    LocalApp,
    readonly [string, string],
  ][]) {
    if (findProgram(program)) continue;
    const entry = { program, debianPackage, neededFor: `the ${app} application` };
    if (apps.includes(app)) missing.push(entry);
    else missingOptional.push(entry);
  }
  const packages = [
    ...new Set([...missing, ...missingOptional].flatMap(entry => entry.debianPackage.split(' '))),
  ];
  return {
    ok: missing.length === 0,
    missing,
    missingOptional,
    installCommand: packages.length
      ? `sudo apt-get install -y --no-install-recommends ${packages.join(' ')}`
      : undefined,
  };
}
