#!/usr/bin/env bash
# build.sh: compiles tcplab's ns-3 reference program (tcp-reference.cc) against the ns-3 3.44
# PyPI wheel. Only python3 (with venv), g++ >= 12 and, on first use, PyPI access are needed:
# no ns-3 source tree, no CMake, no Python bindings at run time.
#
# Environment:
#   NS3_VENV   venv that holds the wheel (default ~/.cache/tcplab/ns3venv; created if missing,
#              ns3==3.44.post0 pip-installed into it if not already there)
#   BUILD_DIR  where the binary goes (default: build/ beside this script)
#   CXX        compiler (default g++)
#
# Output: $BUILD_DIR/tcp-reference (run it with --scenario=p2p-1|dumbbell-10|dumbbell-100|lossy|asym|mixed-rtt).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
venv="${NS3_VENV:-${HOME:-/tmp}/.cache/tcplab/ns3venv}"
out="${BUILD_DIR:-$here/build}"
cxx="${CXX:-g++}"
pin="3.44.post0"

# 1. The wheel.
if [ ! -x "$venv/bin/python" ]; then
    echo "[ns3 build] creating venv $venv" >&2
    mkdir -p "$(dirname "$venv")"
    python3 -m venv "$venv"
fi
installed="$("$venv/bin/python" -m pip show ns3 2>/dev/null | awk '/^Version:/ { print $2 }' || true)"
if [ "$installed" != "$pin" ]; then
    echo "[ns3 build] installing ns3==$pin into $venv (found: ${installed:-nothing})" >&2
    "$venv/bin/python" -m pip install --disable-pip-version-check --quiet "ns3==$pin"
fi

# 2. Its headers and libraries. Ask sysconfig for site-packages instead of importing ns3
#    (the import loads cppyy and takes many seconds).
site="$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["platlib"])')"
inc="$site/ns3/include"
lib="$site/ns3/lib64"
for f in "$inc/ns3/core-module.h" "$lib/libns3.44-core.so"; do
    [ -e "$f" ] || { echo "[ns3 build] missing $f: is ns3==$pin installed in $venv?" >&2; exit 1; }
done

# 3. Compile. The -D flags are the wheel's own INTERFACE_COMPILE_DEFINITIONS (see
#    $lib/cmake/ns3/ns3Targets.cmake): our code must see the same inline code and class
#    layouts as the prebuilt libraries. rpath lets the binary run without LD_LIBRARY_PATH.
mkdir -p "$out"
flags=(-std=c++20 -O2 -DNDEBUG -D__LINUX__ -DNS3_BUILD_PROFILE_RELEASE -DNS3_LOG_ENABLE
       -DNS3_ASSERT_ENABLE -isystem "$inc")
libs=(-L"$lib" -Wl,-rpath,"$lib")
for m in applications point-to-point internet traffic-control bridge network stats core; do
    libs+=("-lns3.44-$m")
done
libs+=(-lpthread)

echo "[ns3 build] $cxx ${flags[*]} $here/tcp-reference.cc -o $out/tcp-reference ${libs[*]}" >&2
t0=$(date +%s.%N)
"$cxx" "${flags[@]}" "$here/tcp-reference.cc" -o "$out/tcp-reference.tmp" "${libs[@]}"
mv -f "$out/tcp-reference.tmp" "$out/tcp-reference"
t1=$(date +%s.%N)
awk -v a="$t0" -v b="$t1" -v o="$out/tcp-reference" \
    'BEGIN { printf "[ns3 build] built %s in %.1f s\n", o, b - a }' >&2
