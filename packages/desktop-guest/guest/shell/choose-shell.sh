#!/bin/bash
# osharm desktop: which shell the desktop runs (sourced by sandbox-init.sh before Xvfb starts).
# OSHARM_DESKTOP_SHELL from the provider: gnome-shell (the default: upstream's VM runs GNOME Shell)
# or openbox. Sets OSHARM_DESKTOP_SHELL to the shell that will be tried, OSHARM_SHELL_FALLBACK to
# why GNOME Shell is not (empty when it is, or when openbox was asked for) and osharm_xvfb_glx
# (GNOME Shell composites through GLX; without a compositor LibreOffice's GTK dialogs render black
# when Xvfb offers GLX, so openbox gets an Xvfb without it).
OSHARM_SHELL_FALLBACK=""
case "${OSHARM_DESKTOP_SHELL:-gnome-shell}" in
  openbox) OSHARM_DESKTOP_SHELL=openbox ;;
  gnome-shell)
    OSHARM_DESKTOP_SHELL=gnome-shell
    for osharm_needed in gnome-shell:/usr/bin/gnome-shell \
      gnome-shell-extension-dashtodock:/usr/share/gnome-shell/extensions/dash-to-dock@micxgx.gmail.com \
      gnome-shell-extension-desktop-icons-ng:/usr/share/gnome-shell/extensions/ding@rastersoft.com \
      dconf-cli:/usr/bin/dconf; do
      if [ ! -e "${osharm_needed#*:}" ]; then
        OSHARM_SHELL_FALLBACK="${OSHARM_SHELL_FALLBACK:+$OSHARM_SHELL_FALLBACK, }${osharm_needed%%:*}"
      fi
    done
    unset osharm_needed
    [ -n "$OSHARM_SHELL_FALLBACK" ] && OSHARM_SHELL_FALLBACK="not installed: $OSHARM_SHELL_FALLBACK"
    ;;
  *) OSHARM_SHELL_FALLBACK="OSHARM_DESKTOP_SHELL is neither gnome-shell nor openbox" ;;
esac
if [ -n "$OSHARM_SHELL_FALLBACK" ]; then
  OSHARM_SHELL_REQUESTED=gnome-shell OSHARM_DESKTOP_SHELL=openbox
else
  OSHARM_SHELL_REQUESTED="$OSHARM_DESKTOP_SHELL"
fi
if [ "$OSHARM_DESKTOP_SHELL" = gnome-shell ]; then osharm_xvfb_glx=+extension; else osharm_xvfb_glx=-extension; fi
export OSHARM_DESKTOP_SHELL OSHARM_SHELL_REQUESTED OSHARM_SHELL_FALLBACK
