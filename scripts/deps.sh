#!/bin/sh
# Install the Debian packages wobble needs to build, test and benchmark.
# Does nothing when everything is present; otherwise refreshes the package
# list (a fresh machine's is stale) and installs only what is missing,
# as root or through sudo.  With arguments, those packages instead (the
# optional ones a test needs, e.g. `deps.sh blender`, or `deps.sh
# python3-skimage` for the real photographs of tests/cli/t_photo_real.sh).
set -eu

PKGS="gcc make libc6-dev pkg-config libpng-dev libyaml-dev libavformat-dev
libavcodec-dev libavutil-dev libswscale-dev libavfilter-dev ffmpeg
libcriterion-dev python3-numpy nodejs parallel rsync webp groff-base libfreetype-dev
fonts-dejavu-core clang libclang-rt-dev llvm"
if [ $# -gt 0 ]; then PKGS="$*"; fi

missing=""
for p in $PKGS; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
        missing="$missing $p"
    fi
done
[ -z "$missing" ] && exit 0

echo "deps.sh: installing:$missing" >&2
if [ "$(id -u)" -eq 0 ]; then SUDO=""; else SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
