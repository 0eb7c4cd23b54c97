# shellcheck shell=bash
# Shared set-up of scripts/test and scripts/bench: Debian packages, CMake configure, build.
# Sourced, not run. After sourcing: REPO_ROOT, BUILD_DIR (absolute), BUILD_TYPE and JOBS are set.
#
#   BUILD_DIR   build folder (default: build at the repository root; a relative path is taken
#               from the current directory)
#   BUILD_TYPE  CMake build type (default: Release)
#   JOBS        parallel build and test jobs (default: nproc)
#
# use_sanitizers (scripts/test with SANITIZE=1) switches the configuration to Clang with
# AddressSanitizer and UndefinedBehaviorSanitizer.

REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BUILD_DIR_GIVEN="${BUILD_DIR:+1}"
BUILD_DIR="${BUILD_DIR:-$REPO_ROOT/build}"
[[ "$BUILD_DIR" == /* ]] || BUILD_DIR="$PWD/$BUILD_DIR"
BUILD_TYPE="${BUILD_TYPE:-Release}"
JOBS="${JOBS:-$(nproc)}"

# Everything the project needs from Debian 12, the later OpenCL, SIMD and TBB parts included,
# so that a machine set up once serves every target.
DEBIAN_PACKAGES=(
  build-essential cmake pkg-config
  libicu-dev libgtest-dev googletest libbenchmark-dev
  libxsimd-dev libtbb-dev
  ocl-icd-opencl-dev opencl-headers pocl-opencl-icd clinfo
  xz-utils python3 python3-venv python3-matplotlib python3-hypothesis
  python3-dev pybind11-dev python3-numpy
  valgrind
)
# Extra arguments of every CMake configure.
CMAKE_ARGS=()

# Clang rather than GCC for the sanitized build: GCC 12 adds dozens of false -Wmaybe-uninitialized
# warnings under -fsanitize (in libstdc++'s <regex> and its own intrinsics headers) and takes about
# twice as long to build. Clang 15 because PoCL depends on it already, sanitizer runtimes included
# (in libclang-common-15-dev), so nothing more is installed. The build folder defaults to
# build-sanitize, beside the Release one. It also builds the libFuzzer targets of tests/fuzz
# (scripts/fuzz), which need every library compiled with libFuzzer's coverage instrumentation.
# Not the benchmark programs and their output tests: the harness is tested in the Release build,
# and building it again with the sanitizers took about a minute and a half of CI's 20.
use_sanitizers() {
  [[ -n "$BUILD_DIR_GIVEN" ]] || BUILD_DIR="$REPO_ROOT/build-sanitize"
  DEBIAN_PACKAGES+=(clang-15)
  CMAKE_ARGS+=(-DCMAKE_CXX_COMPILER=clang++-15 -DTOKBENCH_SANITIZE=ON -DTOKBENCH_FUZZ=ON -DTOKBENCH_BUILD_BENCHES=OFF)
}

# Runs a command with its output in LOG; on failure prints the log and the command to stderr
# and returns the command's status.
run_logged() {
  local log="$1"
  shift
  local status=0
  "$@" >"$log" 2>&1 || status=$?
  ((status == 0)) || print_failure "$log" "$status" "$@"
  return "$status"
}

# print_failure LOG STATUS COMMAND...: the log of a failed command, then what failed.
print_failure() {
  local log="$1" status="$2"
  shift 2
  cat "$log" >&2
  echo "error: '$*' failed with status $status (log: $log)" >&2
}

# run_logged for a long build: while it runs, every 10 s a line with the build's last percentage
# (CMake's "[ 42%]"), when it has moved, and the time elapsed.
run_with_progress() {
  local log="$1"
  shift
  local status=0 started=$SECONDS shown='' percent
  "$@" >"$log" 2>&1 &
  local pid=$!
  while ! wait_seconds "$pid" 10; do
    percent="$(grep -o '^\[ *[0-9]*%\]' "$log" | tail -n 1 | tr -d '[] ')"
    if [[ -n "$percent" && "$percent" != "$shown" ]]; then
      printf '  building: %s after %d:%02d\n' "$percent" $(((SECONDS - started) / 60)) $(((SECONDS - started) % 60))
      shown="$percent"
    fi
  done
  wait "$pid" || status=$?
  ((status == 0)) || print_failure "$log" "$status" "$@"
  return "$status"
}

# Waits up to $2 seconds for the child $1 to end; succeeds once it has ended.
wait_seconds() {
  local tick
  for ((tick = 0; tick < $2 * 10; ++tick)); do
    kill -0 "$1" 2>/dev/null || return 0
    sleep 0.1
  done
  ! kill -0 "$1" 2>/dev/null
}

missing_packages() {
  local package
  for package in "${DEBIAN_PACKAGES[@]}"; do
    if [[ "$(dpkg-query -W -f='${Status}' "$package" 2>/dev/null)" != "install ok installed" ]]; then
      echo "$package"
    fi
  done
}

# Installs the missing packages with apt-get; prints nothing when none is missing.
ensure_packages() {
  if ! command -v dpkg-query >/dev/null; then
    echo "note: not a Debian system; install the equivalents of ${DEBIAN_PACKAGES[*]} yourself" >&2
    return 0
  fi
  local missing
  mapfile -t missing < <(missing_packages)
  ((${#missing[@]} > 0)) || return 0

  local as_root=()
  if ((EUID != 0)); then
    if ! command -v sudo >/dev/null; then
      echo "error: missing Debian packages and neither root nor sudo: ${missing[*]}" >&2
      return 1
    fi
    as_root=(sudo)
  fi
  echo "Installing Debian packages: ${missing[*]}"
  local log
  log="$(mktemp "${TMPDIR:-/tmp}/tokbench-apt.XXXXXX.log")"
  run_logged "$log" "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update
  run_logged "$log" "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive \
    apt-get install -y --no-install-recommends "${missing[@]}"
  rm -f "$log"
}

# Configures BUILD_DIR and builds the given targets (`all` for everything), logging to
# BUILD_DIR/configure.log and BUILD_DIR/build.log. Compiler warnings are shown all the same:
# the project is meant to build without any.
configure_and_build() {
  build_tree "$REPO_ROOT" "$BUILD_DIR" "$@"
}

# build_tree SOURCE BUILD TARGET...: configure_and_build for another source tree (scripts/bench
# --against builds an earlier commit of the project beside this one).
build_tree() {
  local source="$1" build="$2"
  shift 2
  mkdir -p "$build"
  echo "Building $build ($BUILD_TYPE, $JOBS jobs)"
  run_logged "$build/configure.log" cmake -S "$source" -B "$build" -DCMAKE_BUILD_TYPE="$BUILD_TYPE" "${CMAKE_ARGS[@]}"
  run_with_progress "$build/build.log" cmake --build "$build" --parallel "$JOBS" --target "$@"
  if grep -q 'warning:' "$build/build.log"; then
    echo "Compiler warnings (without progress lines; full log: $build/build.log):" >&2
    grep -v '^\[ *[0-9]*%\]' "$build/build.log" >&2 || true
  fi
}
