#!/bin/sh
# Builds the starter as it was before the engine was rebuilt (engine v1, commit 01a6704; the
# rebuild is fce0dc1) into distributelock-benchmarks/target/v1/distributelock-v1.jar, for the
# *-v1-* rows of the interleaved benchmark, which load it beside today's engine in one JVM.
#
# The tree of that commit is extracted with git archive and built with its own Maven wrapper and
# poms, `package` only: nothing is installed into ~/.m2, whose 1.0.0-SNAPSHOT of the starter
# is today's. Its tests are neither compiled nor run.
#
# Usage, from anywhere in a full (not shallow) clone:
#   distributelock-benchmarks/build-v1-starter.sh [commit]
set -eu

commit="${1:-01a6704}"
root="$(git rev-parse --show-toplevel)"
out="$root/distributelock-benchmarks/target/v1"
tree="$out/tree"

rm -rf "$tree"
mkdir -p "$tree"
git -C "$root" archive --format=tar "$commit" | tar -x -C "$tree"
# -Dmaven.test.skip: v1's tests are not compiled (they need the stores' test binaries);
# -Dvirtual-threads.skip: v1's enforcer rule asks for a Java 21+ JDK only its tests use;
# -Dspring-javaformat.skip: that tree is as it was committed, nothing to check.
(cd "$tree" && ./mvnw -q -B -pl distributelock-spring-boot-starter package \
	-Dmaven.test.skip=true -Dvirtual-threads.skip=true -Dspring-javaformat.skip=true)
cp "$tree"/distributelock-spring-boot-starter/target/distributelock-spring-boot-starter-*.jar \
	"$out/distributelock-v1.jar"
git -C "$root" rev-parse "$commit" > "$out/commit"
echo "Built $out/distributelock-v1.jar from $(cat "$out/commit")"
