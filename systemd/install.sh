#!/usr/bin/env bash
# Install Zilch Tower on Raspberry Pi OS (Bookworm or later) as two systemd
# services: the table service and the TV kiosk. Run as root from a clone of
# the repository:   sudo systemd/install.sh [--no-kiosk] [--prefix DIR]
# Safe to run again: it updates the code and the units, keeps the
# configuration file and the state directory (database, calibration).
set -euo pipefail

prefix=/opt/zilch-tower
kiosk=1
while [ $# -gt 0 ]; do
  case "$1" in
    --no-kiosk) kiosk=0 ;;
    --prefix) prefix=${2:?--prefix needs a directory}; shift ;;
    -h|--help) sed -n '2,7p' "$0"; exit 0 ;;
    *) echo "install.sh: unknown option $1 (use --no-kiosk, --prefix DIR)" >&2; exit 2 ;;
  esac
  shift
done

[ "$(id -u)" -eq 0 ] || { echo "install.sh: run as root (sudo systemd/install.sh)" >&2; exit 1; }
src=$(cd "$(dirname "$0")/.." && pwd)
[ -f "$src/pyproject.toml" ] || { echo "install.sh: $src is not a Zilch Tower checkout" >&2; exit 1; }

echo "== system packages"
apt-get update -qq
# python3-picamera2, python3-lgpio and python3-numpy come from Raspberry Pi
# OS; the venv sees them through --system-site-packages (lgpio has no wheels
# on PyPI, and picamera2's simplejpeg is built against the system's numpy).
# cage and chromium run the TV kiosk; pinctrl (raspi-utils) drives the coil
# pin low after the service stops.
pkgs=(python3-venv python3-numpy python3-picamera2 python3-lgpio)
[ "$kiosk" -eq 1 ] && pkgs+=(cage chromium speech-dispatcher fonts-dejavu-core)
DEBIAN_FRONTEND=noninteractive apt-get install -y "${pkgs[@]}"
command -v pinctrl >/dev/null || echo "install.sh: pinctrl is missing (apt install raspi-utils)" >&2

echo "== boot configuration"
# On a Pi 5 a GPIO output keeps its level when the process that drove it
# exits; strict_gpiod returns released lines to inputs, so the gate's
# pull-down switches the coil off if the service dies mid-pulse.
bootcfg=/boot/firmware/config.txt
[ -f "$bootcfg" ] || bootcfg=/boot/config.txt
if [ -f "$bootcfg" ] && ! grep -q '^dtparam=strict_gpiod' "$bootcfg"; then
  printf '\n# Zilch Tower: released GPIO lines return to inputs\ndtparam=strict_gpiod\n' >> "$bootcfg"
  echo "added dtparam=strict_gpiod to $bootcfg: reboot once to apply"
fi

echo "== users"
getent group gpio >/dev/null || groupadd --system gpio
getent group video >/dev/null || groupadd --system video
if ! id zilch >/dev/null 2>&1; then
  useradd --system --home-dir /var/lib/zilch-tower --no-create-home \
    --shell /usr/sbin/nologin --user-group zilch
fi
usermod -a -G gpio,video zilch
# The kiosk user's home is the kiosk unit's writable state directory.
if [ "$kiosk" -eq 1 ] && ! id zilch-kiosk >/dev/null 2>&1; then
  useradd --system --no-create-home --home-dir /var/lib/zilch-kiosk \
    --shell /usr/sbin/nologin --user-group zilch-kiosk
fi
if [ "$kiosk" -eq 1 ]; then
  usermod -d /var/lib/zilch-kiosk -a -G video,render,input,audio zilch-kiosk
fi

echo "== code in $prefix"
mkdir -p "$prefix"
# Copy the checkout without its venv, caches and local state.
tar -C "$src" --exclude=.venv --exclude=.git --exclude=zilch-state \
  --exclude=__pycache__ --exclude=artifacts -cf - . | tar -C "$prefix" -xf -
# The venv keeps the system's numpy (see systemd/make-venv); lgpio comes from
# python3-lgpio, so the [pi] extra (an lgpio sdist) is not installed.
"$src/systemd/make-venv" /usr/bin/python3 "$prefix/.venv" "$prefix"

echo "== configuration"
mkdir -p /etc/zilch-tower
if [ ! -f /etc/zilch-tower/tower.toml ]; then
  "$prefix/.venv/bin/zilch-tower" config | sed '/^# /d' > /etc/zilch-tower/tower.toml
  # The real tower and the Pi camera; 1296x972 asks for a 972-line frame, which
  # the Camera Module 3 delivers as 1728x972 of its whole field: a 16 mm die
  # is then about 79 px across (hardware/README.md, "Camera geometry").
  sed -i 's/^mode = "sim"/mode = "gpio"/; s/^source = "sim"/source = "picamera2"/;
          s/^width = 640/width = 1296/; s/^height = 480/height = 972/' \
    /etc/zilch-tower/tower.toml
  echo "wrote /etc/zilch-tower/tower.toml: change the PINs in [table] before the first game"
fi
chgrp zilch /etc/zilch-tower/tower.toml
chmod 0640 /etc/zilch-tower/tower.toml
"$prefix/.venv/bin/zilch-tower" config --config /etc/zilch-tower/tower.toml >/dev/null

echo "== systemd units"
install -m 0644 "$src/systemd/zilch-tower.service" /etc/systemd/system/
if [ "$kiosk" -eq 1 ]; then
  install -m 0644 "$src/systemd/zilch-tower-kiosk.service" /etc/systemd/system/
fi
systemctl daemon-reload
systemctl enable --now zilch-tower.service
if [ "$kiosk" -eq 1 ]; then
  # Boot to the console: on Raspberry Pi OS with desktop, lightdm would keep
  # the TV for its own desktop and cage could not take it.
  if systemctl -q is-enabled display-manager.service 2>/dev/null; then
    if command -v raspi-config >/dev/null; then
      raspi-config nonint do_boot_behaviour B1
    else
      systemctl disable display-manager.service
      systemctl set-default multi-user.target
    fi
    echo "the Pi now boots to the console (no desktop): reboot to hand the TV to the kiosk"
  fi
  systemctl enable --now zilch-tower-kiosk.service
fi
systemctl --no-pager --lines=5 status zilch-tower.service || true
echo "Zilch Tower is installed. TV page: http://$(hostname -I | cut -d' ' -f1):8080/"
