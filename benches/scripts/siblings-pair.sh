#!/bin/sh
# Build time of `bindery embed` compressing with brotli 11 against reusing the `.br` siblings a
# pipeline wrote (BENCHMARKS.md, "Reusing a pipeline's siblings"). Needs the `brotli` command
# (Debian package `brotli`) and python3. Usage: benches/scripts/siblings-pair.sh [pairs]
set -eu
pairs=${1:-5}
root=$(cd "$(dirname "$0")/../.." && pwd)
cargo build --quiet --release --manifest-path "$root/Cargo.toml" -p bindery-cli --features br,zstd
bindery="${CARGO_TARGET_DIR:-$root/target}/release/bindery"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/site"
# 200 chunks of about 60 KB of JavaScript-like text, fixed seed.
python3 - "$work/site" <<'PY'
import random, sys
random.seed(1)
words = ["const", "let", "function", "return", "import", "export", "from", "await", "async",
         "value", "items", "render", "state", "props", "=>", "{", "}", "(", ")", ";", "if",
         "else", "for", "of", "new", "this", "null", "true", "false"]
for i in range(200):
    parts, n = [], 0
    while n < 60000:
        word = random.choice(words) + (str(random.randint(0, 999)) if random.random() < 0.2 else "")
        parts.append(word)
        n += len(word) + 1
    open(f"{sys.argv[1]}/chunk{i:03}.js", "w").write(" ".join(parts))
PY
for file in "$work"/site/*.js; do brotli -q 11 -k -f "$file"; done
run() {
    rm -rf "$work/cache" "$work/out.rs" "$work/out"
    start=$(date +%s.%N)
    BINDERY_CACHE_DIR="$work/cache" CI=1 "$bindery" embed "$work/site" --out "$work/out.rs" "$@" >/dev/null
    end=$(date +%s.%N)
    echo "$end - $start" | bc
}
echo "compress-br-q11 siblings ratio"
i=0
while [ "$i" -lt "$pairs" ]; do
    compress=$(run --precompress br --exclude '**/*.br')
    siblings=$(run --precompressed siblings)
    echo "$compress $siblings $(echo "scale=4; $siblings / $compress" | bc)"
    i=$((i + 1))
done
