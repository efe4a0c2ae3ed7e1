#!/usr/bin/env bash
# scripts/release.sh VERSION OUTDIR
#
# Builds the release of jarvis VERSION (a tag such as v1.2.0) into OUTDIR:
# for each platform a static binary (CGO_ENABLED=0, -trimpath) with the
# version stamped as `jarvis version` reads it (-X main.version), packed
# with the README in an archive (.tar.gz, or .zip for Windows), and a
# bundle for Claude Desktop (.mcpb: a zip of the binary, kept executable,
# and a manifest.json naming its one system, written by
# scripts/mcpbmanifest), then SHA256SUMS over every file made.
#
# The platforms are darwin/arm64, darwin/amd64, linux/amd64, linux/arm64
# and windows/amd64; JARVIS_RELEASE_TARGETS (such as "linux/amd64") builds
# fewer. Needs go and zip.
set -euo pipefail

if [ $# -ne 2 ] || [ -z "$1" ] || [ -z "$2" ]; then
	echo "usage: scripts/release.sh VERSION OUTDIR (such as: scripts/release.sh v1.2.0 dist)" >&2
	exit 2
fi
version=$1
case $version in
*[!A-Za-z0-9._+-]*)
	echo "release.sh: the version $version may hold only letters, digits and . _ + -" >&2
	exit 2
	;;
esac
for tool in go zip; do
	if ! command -v "$tool" >/dev/null; then
		echo "release.sh: $tool is not installed (on Debian or Ubuntu: apt-get install $tool)" >&2
		exit 1
	fi
done
mkdir -p "$2"
out=$(cd "$2" && pwd)
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
targets=${JARVIS_RELEASE_TARGETS:-darwin/arm64 darwin/amd64 linux/amd64 linux/arm64 windows/amd64}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

docs=()
for f in README.md LICENSE LICENSE.md LICENSE.txt; do
	if [ -f "$f" ]; then docs+=("$f"); fi
done

# The manifest writer runs here, on this machine's system. Every go build
# here gives -buildvcs=false: the version comes from the VERSION argument,
# and in a clone git will not read (one owned by another user) stamping
# the git revision fails the build.
CGO_ENABLED=0 go build -buildvcs=false -o "$work/mcpbmanifest" ./scripts/mcpbmanifest

made=()
for target in $targets; do
	goos=${target%/*}
	goarch=${target#*/}
	exe=jarvis
	if [ "$goos" = windows ]; then exe=jarvis.exe; fi
	name="jarvis-$version-$goos-$goarch"
	echo "== $name"

	dir="$work/$name"
	mkdir -p "$dir"
	CGO_ENABLED=0 GOOS=$goos GOARCH=$goarch go build -trimpath -buildvcs=false \
		-ldflags "-s -w -X main.version=$version" -o "$dir/$exe" ./cmd/jarvis
	chmod 755 "$dir/$exe"
	if [ ${#docs[@]} -gt 0 ]; then cp "${docs[@]}" "$dir/"; fi

	if [ "$goos" = windows ]; then
		rm -f "$out/$name.zip"
		(cd "$work" && zip -q -X -r "$out/$name.zip" "$name")
		made+=("$name.zip")
	else
		tar -C "$work" -czf "$out/$name.tar.gz" "$name"
		made+=("$name.tar.gz")
	fi

	# The bundle's files sit at the top of the zip, manifest.json first;
	# zip records each file's mode, so the binary stays executable when
	# Claude Desktop unpacks it.
	bundle="$work/bundle-$name"
	mkdir -p "$bundle"
	"$work/mcpbmanifest" -version "$version" -os "$goos" >"$bundle/manifest.json"
	cp -p "$dir/$exe" ${docs[@]+"${docs[@]}"} "$bundle/"
	rm -f "$out/$name.mcpb"
	(cd "$bundle" && zip -q -X "$out/$name.mcpb" manifest.json "$exe" ${docs[@]+"${docs[@]}"})
	made+=("$name.mcpb")
done

cd "$out"
if command -v sha256sum >/dev/null; then
	sha256sum -- "${made[@]}" >SHA256SUMS
else
	shasum -a 256 -- "${made[@]}" >SHA256SUMS
fi
echo "== made in $out:"
printf '%s\n' "${made[@]}" SHA256SUMS
