#!/usr/bin/env bash
# tests/deps/check_run_list.sh: the run list of deploy/deps.sh (`deploy/deps.sh --run`, what
# `make run` installs on a fresh machine) holds what building and serving carcd need, and no
# test component. Part of `make test`; needs the packages of both lists installed (make deps).
#
# Fails when
#   1. the run list names a test component: a package of the test list, or one of DENY below
#      (test servers, the browser, test frameworks and tools);
#   2. a package of the run list is not needed: it is neither the -dev package of a library that
#      `make run` links (-lNAME on its link lines, found with gcc and dpkg -S) nor one of the
#      few needed otherwise (TOOLCHAIN, RUNTIME below: loaded or read at run time);
#   3. a library `make run` links comes from a package that is neither in the run list nor a
#      direct dependency of one (a new library without its -dev package in the list);
#   4. `make run` would build the test runner, link Check, or ask deploy/deps.sh for more than
#      the run list (`make -n run` into an empty build directory).
# Prints what it checked.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

# Test components, by shell pattern: never needed to build or serve carcd.
DENY=(chromium 'chromium-*' 'nginx*' 'haproxy*' redis redis-server redis-tools 'postgresql*'
      'prometheus*' check valgrind nodejs npm clang 'clang-*' 'libclang*' 'llvm*' 'python3-*'
      strace 'systemd*' openssl curl gdb playwright)
# Needed to build, though no link line names them: the commands the build runs.
TOOLCHAIN=(gcc make pkg-config)
# Needed to serve, though not linked: libwebsockets loads its libuv glue at run time, and
# server/util/tz.c reads the tz database's files (zoneinfo-dir) at start.
RUNTIME=(libwebsockets-evlib-uv tzdata)

fail=0
bad() { echo "check_run_list: FAIL: $*" >&2; fail=1; }

mapfile -t run < <(deploy/deps.sh --run --list)
mapfile -t all < <(deploy/deps.sh --list)
test_list=()
for p in "${all[@]}"; do
    case " ${run[*]} " in *" $p "*) ;; *) test_list+=("$p") ;; esac
done
echo "check_run_list: run list (${#run[@]}): ${run[*]}"
echo "check_run_list: test list (${#test_list[@]}): ${test_list[*]}"

# 1. No test component.
for p in "${run[@]}"; do
    for t in "${test_list[@]}"; do
        [ "$p" != "$t" ] || bad "$p is in the run list and the test list"
    done
    for d in "${DENY[@]}"; do
        # shellcheck disable=SC2254  # $d is a pattern
        case "$p" in $d) bad "$p in the run list is a test component (matches '$d')" ;; esac
    done
done
echo "check_run_list: no test component in the run list (deny-list: the test list and ${DENY[*]})"

# What `make run` does, printed by make -n into an empty build directory (the recursive make
# of the build runs, with -n too).
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -n run BUILD="$tmp/build" >"$tmp/run.txt" 2>&1 \
    || { cat "$tmp/run.txt" >&2; bad "make -n run failed"; exit 1; }

# 4. The run builds no test code and asks for the run list only.
grep -q "carc-tests\|/obj/tests/\|-lcheck" "$tmp/run.txt" \
    && bad "make run builds test code: $(grep -m1 "carc-tests\|/obj/tests/\|-lcheck" "$tmp/run.txt")"
grep -q '^deploy/deps.sh --run$' "$tmp/run.txt" || bad "make run does not call deploy/deps.sh --run"
grep "deploy/deps.sh" "$tmp/run.txt" | grep -qv '^deploy/deps.sh --run$' \
    && bad "make run asks deploy/deps.sh for more: $(grep deploy/deps.sh "$tmp/run.txt" | grep -v -- --run)"
grep -q "^exec $tmp/build/carcd" "$tmp/run.txt" || bad "make run does not start carcd"
echo "check_run_list: make -n run: deploy/deps.sh --run, then $(grep -c -- ' -o ' "$tmp/run.txt")" \
     "compile and link steps, none of the test runner, no -lcheck"

# The package of each library on the link lines (-lNAME: libNAME.so, or libNAME.a for libc's
# empty libdl, libpthread and librt), with one dpkg -S for all of them.
declare -A lib_path=()
for l in $(grep -o -- ' -l[A-Za-z0-9_+.-]*' "$tmp/run.txt" | sed 's/^ -l//' | sort -u); do
    lib_path[$l]=
    for f in "lib$l.so" "lib$l.a"; do
        f=$(gcc -print-file-name="$f")
        case "$f" in /*) lib_path[$l]=$(realpath -s "$f"); break ;; esac
    done
done
declare -A owner=()
while IFS= read -r line; do  # "libuv1-dev:amd64: /usr/lib/x86_64-linux-gnu/libuv.so"
    owner[${line#*: }]=$(echo "${line%%: *}" | sed 's/[:,].*//')
done < <(dpkg -S $(printf '%s\n' "${lib_path[@]}" | grep /) 2>/dev/null || true)
linked=()
for l in $(printf '%s\n' "${!lib_path[@]}" | sort); do
    p=${owner[${lib_path[$l]:-none}]:-}
    if [ -n "$p" ]; then
        linked+=("$p")
        echo "check_run_list: -l$l: ${lib_path[$l]} is in $p"
    else
        bad "-l$l: no installed package has lib$l.so or lib$l.a (run make deps first)"
    fi
done

# 3. Each linked library's package is in the run list or a direct dependency of one.
deps_of_run=()
while IFS= read -r d; do  # "a (>= 1), b | c" -> a b c
    deps_of_run+=($(echo "$d" | tr ',|' '\n\n' | sed 's/(.*)//; s/:any//; s/ //g'))
done < <(dpkg-query -W -f='${Depends}\n' "${run[@]}" 2>/dev/null || true)
for p in $(printf '%s\n' "${linked[@]}" | sort -u); do
    case " ${run[*]} ${deps_of_run[*]} " in
        *" $p "*) ;;
        *) bad "$p (a library make run links) is neither in the run list nor a dependency of one" ;;
    esac
done

# 2. Each package of the run list is needed.
for p in "${run[@]}"; do
    case " ${linked[*]} " in *" $p "*) continue ;; esac
    case " ${TOOLCHAIN[*]} " in *" $p "*) continue ;; esac
    case " ${RUNTIME[*]} " in *" $p "*) continue ;; esac
    bad "$p in the run list: make run neither links it nor runs it (not needed?)"
done
echo "check_run_list: every run-list package is needed (linked, or toolchain: ${TOOLCHAIN[*]}," \
     "or loaded at run time: ${RUNTIME[*]})"

if [ "$fail" -ne 0 ]; then
    echo "check_run_list: failed" >&2
    exit 1
fi
echo "check_run_list: ok"
