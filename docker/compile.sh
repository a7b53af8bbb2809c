#!/bin/sh
# Puts a statically linked punct-server and an empty data directory in $1.
# Runs inside the image's build stage, from the repository root.
set -eu
out=$1
mkdir -p "$out/data"
if [ -x docker/prebuilt/punct-server ]; then
    # Built outside (docker/build-image) by a machine that cannot pull a Rust image.
    cp docker/prebuilt/punct-server "$out/punct-server"
    exit 0
fi
target=$(rustc -vV | sed -n 's/^host: //p')
# The server embeds the web page's rules engine, built for WebAssembly (server/build.rs).
rustup target add wasm32-unknown-unknown
# crt-static links the C library in, so the binary runs on an empty base image; the
# explicit --target keeps build scripts and proc-macros dynamically linked.
RUSTFLAGS="-C target-feature=+crt-static" \
    cargo build --release --locked -p punct-server --target "$target"
cp "target/$target/release/punct-server" "$out/punct-server"
