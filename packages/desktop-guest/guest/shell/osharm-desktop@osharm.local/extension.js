/* osharm desktop (guest/shell/start-shell.sh enables it): what upstream's Ubuntu VM does and
 * Debian's GNOME Shell 43 does not by itself.
 *  - Ubuntu's Yaru shell theme (what the user-theme extension would do).
 *  - The geometry of upstream's first observations (../shared/real-trajectories, measured there:
 *    the dock, maximised windows and the desktop icons end at y = 989 on its 1920x1080 screen; the
 *    system menu at the top right is 106 px wide, with network, volume and power icons that this
 *    desktop has no services for): a 91 px strip at the bottom is reserved (the work area ends
 *    where upstream's does; clicks go through it) and the system menu button gets that width.
 *  - Application windows open maximised (right of the dock, below the top bar); terminals and
 *    dialogs keep their size, as with the openbox configuration this replaces.
 *  - Ctrl+Alt+T opens a terminal (Ubuntu's shortcut; gnome-settings-daemon does not run here).
 *  - A probe shortcut the start script presses until the shell reports it (keys-ready; see PROBE).
 *  - Once start-up is over (overview left, the desktop icons' window shown or given up on), it
 *    writes $XDG_RUNTIME_DIR/osharm-shell/shell-ready: the start script waits for that file. */
'use strict';
/* global global, imports, log -- GNOME Shell 43's extension globals (gjs, not ES modules) */

const { GLib, Meta, Shell, St } = imports.gi;
const Main = imports.ui.main;
const Util = imports.misc.util;

const YARU = '/usr/share/gnome-shell/theme/Yaru/gnome-shell.css';
const BOTTOM_RESERVE = 91;
const SYSTEM_MENU_WIDTH = 106;
const KEEP_SIZE = ['Gnome-terminal', 'gnome-terminal-server', 'XTerm', 'xterm'];
// The first key event of a session comes from XTest's keyboard, not Xvfb's: the X server then gives
// the core keyboard that device's keymap, mutter reads it again and grabs its shortcuts again, and a
// shortcut pressed meanwhile reaches no one (the os tasks' Ctrl+Alt+T was lost on about half of the
// fresh desktops, never on a second press). The start script presses this shortcut, which nothing
// else uses, until the shell reports it here: the switch is over, and a shortcut is seen to arrive,
// before the desktop is ready. It is released once seen.
const PROBE = '<Control><Alt><Shift><Super>F12';
// How long the marker waits for the desktop icons' window (Desktop Icons NG runs as its own process).
const DESKTOP_ICONS_WAIT_MS = 15000;

function readyPath() {
  return GLib.build_filenamev([GLib.get_user_runtime_dir(), 'osharm-shell', 'shell-ready']);
}

// Start-up phases (name and epoch seconds), written beside the marker for the start script.
const phases = [];
function mark(name) {
  phases.push(`${name} ${(GLib.get_real_time() / 1e6).toFixed(6)}`);
}

function keysReadyPath() {
  return GLib.build_filenamev([GLib.get_user_runtime_dir(), 'osharm-shell', 'keys-ready']);
}

function hasDesktopWindow() {
  return global.get_window_actors().some(actor => {
    const window = actor.get_meta_window();
    return window && window.get_window_type() === Meta.WindowType.DESKTOP;
  });
}

class Extension {
  enable() {
    mark('extension-enable');
    if (GLib.file_test(YARU, GLib.FileTest.EXISTS)) {
      Main.setThemeStylesheet(YARU);
      Main.loadTheme();
    }
    const monitor = Main.layoutManager.primaryMonitor;
    if (monitor && monitor.height > 1000) {
      this._reserve = new St.Widget({
        name: 'osharmBottomReserve',
        reactive: false,
        x: monitor.x,
        y: monitor.y + monitor.height - BOTTOM_RESERVE,
        width: monitor.width,
        height: BOTTOM_RESERVE,
      });
      Main.layoutManager.addChrome(this._reserve, {
        affectsStruts: true,
        affectsInputRegion: false,
      });
    }
    this._systemMenu = Main.panel.statusArea.quickSettings;
    this._systemMenu?.set_width(SYSTEM_MENU_WIDTH);
    this._windowCreated = global.display.connect('window-created', (_display, window) => {
      if (window.get_window_type() !== Meta.WindowType.NORMAL || window.get_transient_for()) return;
      if (KEEP_SIZE.includes(window.get_wm_class()) || !window.can_maximize()) return;
      window.maximize(Meta.MaximizeFlags.BOTH);
    });
    this._terminalAction = this._grab('<Control><Alt>t');
    this._probeAction = this._grab(PROBE);
    this._accelerator = global.display.connect('accelerator-activated', (_display, action) => {
      if (action === this._probeAction) {
        log('osharm-desktop: probe shortcut seen: keys-ready');
        global.display.ungrab_accelerator(this._probeAction);
        this._probeAction = 0;
        GLib.file_set_contents(keysReadyPath(), 'keys-ready\n');
      } else if (action === this._terminalAction) {
        log('osharm-desktop: Ctrl+Alt+T: starting gnome-terminal');
        Util.spawn(['gnome-terminal']);
      }
    });
    if (Main.layoutManager._startingUp)
      this._startup = Main.layoutManager.connect('startup-complete', () => this._settle());
    else this._settle();
  }

  _grab(accelerator) {
    const action = global.display.grab_accelerator(accelerator, Meta.KeyBindingFlags.NONE);
    if (action === Meta.KeyBindingAction.NONE) {
      log(`osharm-desktop: ${accelerator} could not be grabbed`);
      return 0;
    }
    Main.wm.allowKeybinding(Meta.external_binding_name_for_action(action), Shell.ActionMode.ALL);
    return action;
  }

  _settle() {
    mark('startup-complete');
    if (Main.overview.visible) Main.overview.hide();
    const started = GLib.get_monotonic_time();
    this._poll = GLib.timeout_add(GLib.PRIORITY_LOW, 50, () => {
      const waited = (GLib.get_monotonic_time() - started) / 1000;
      if (Main.overview.visible || (!hasDesktopWindow() && waited < DESKTOP_ICONS_WAIT_MS))
        return GLib.SOURCE_CONTINUE;
      this._poll = 0;
      mark(hasDesktopWindow() ? 'desktop-icons-window' : 'desktop-icons-gave-up');
      GLib.file_set_contents(
        GLib.build_filenamev([GLib.get_user_runtime_dir(), 'osharm-shell', 'shell-phases']),
        `${phases.join('\n')}\n`,
      );
      GLib.file_set_contents(
        readyPath(),
        hasDesktopWindow() ? 'desktop-icons\n' : 'no-desktop-icons\n',
      );
      return GLib.SOURCE_REMOVE;
    });
  }

  disable() {
    Main.setThemeStylesheet(null);
    Main.loadTheme();
    if (this._poll) GLib.source_remove(this._poll);
    if (this._startup) Main.layoutManager.disconnect(this._startup);
    if (this._accelerator) global.display.disconnect(this._accelerator);
    if (this._terminalAction) global.display.ungrab_accelerator(this._terminalAction);
    if (this._probeAction) global.display.ungrab_accelerator(this._probeAction);
    global.display.disconnect(this._windowCreated);
    this._systemMenu?.set_width(-1);
    if (this._reserve) {
      Main.layoutManager.removeChrome(this._reserve);
      this._reserve.destroy();
    }
    this._reserve = this._systemMenu = null;
    this._poll = this._startup = this._accelerator = this._terminalAction = this._probeAction = 0;
  }
}

// GNOME Shell calls init() of every extension it loads.
// eslint-disable-next-line @typescript-eslint/no-unused-vars
function init() {
  return new Extension();
}
