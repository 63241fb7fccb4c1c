#!/usr/bin/env bash
# Compiles the JNI codecs into OUT_DIR (called by the Maven build in the compile phase).
# usage: build.sh OUT_DIR JAVA_HOME
# Each library is optional: when gcc, the JNI headers or a Debian package (libisal-dev; libjerasure-dev +
# libgf-complete-dev) is missing, that library is skipped with a warning, the build still succeeds and the
# coders fall back to pure Java at run time. Set ELECT_SKIP_NATIVE=1 to skip on purpose.
set -u
out="$1"; jhome="$2"
src="$(cd "$(dirname "$0")" && pwd)"
warn() { echo "[WARNING] elect-coding native: $*" >&2; }
mkdir -p "$out"
if [ "${ELECT_SKIP_NATIVE:-0}" = 1 ]; then warn "ELECT_SKIP_NATIVE=1, not building JNI codecs"; exit 0; fi
case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) ;;
  *) warn "unsupported platform $(uname -s)-$(uname -m); pure Java only"; exit 0 ;;
esac
command -v gcc >/dev/null || { warn "gcc not found; pure Java only (scripts/setup installs it)"; exit 0; }
inc="$jhome/include"
[ -f "$inc/jni.h" ] || { warn "no jni.h under $inc; pure Java only"; exit 0; }
# Debian puts galois.h (included by jerasure.h as "galois.h") under /usr/include/jerasure.
incs=(-I"$inc" -I"$inc/linux" -I"$src" -I/usr/include/jerasure)
cflags=(-O2 -fPIC -shared -Wall -Werror -std=gnu11 "${incs[@]}" -Wl,-z,defs -Wl,--as-needed)

build() { # name header libs...
  local name="$1" header="$2"; shift 2
  if ! echo "#include <$header>" | gcc -E "${incs[@]}" -x c - >/dev/null 2>&1; then
    warn "header <$header> not found; lib$name.so not built (install its Debian -dev package, see scripts/setup)"
    rm -f "$out/lib$name.so"; return 0
  fi
  if gcc "${cflags[@]}" -o "$out/lib$name.so" "$src/$name.c" "$@"; then
    echo "[INFO] elect-coding native: built $out/lib$name.so"
  else
    warn "compiling lib$name.so failed; pure Java will be used for it"
    rm -f "$out/lib$name.so"
  fi
}
build elect_isal isa-l/erasure_code.h -lisal
build elect_jerasure jerasure.h -lJerasure -lgf_complete
exit 0
