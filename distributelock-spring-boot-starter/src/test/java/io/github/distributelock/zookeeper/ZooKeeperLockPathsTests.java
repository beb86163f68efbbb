package io.github.distributelock.zookeeper;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * How lock keys become one ZooKeeper path segment.
 */
class ZooKeeperLockPathsTests {

	private final ZooKeeperLockPaths paths = new ZooKeeperLockPaths("/locks");

	@Test
	void ordinaryKeysAreKeptAsTheOriginalStarterWroteThem() {
		assertThat(this.paths.lockPath("order.addOder_42_abc")).isEqualTo("/locks/order.addOder_42_abc");
		assertThat(this.paths.lockPath("with space")).isEqualTo("/locks/with space");
		assertThat(this.paths.lockPath("\u9501-\u00e9")).isEqualTo("/locks/\u9501-\u00e9");
	}

	@Test
	void slashesPercentSignsAndDotSegmentsAreEncoded() {
		assertThat(this.paths.lockPath("a/b")).isEqualTo("/locks/a%2Fb");
		assertThat(this.paths.lockPath("a%2Fb")).isEqualTo("/locks/a%252Fb");
		assertThat(this.paths.lockPath("../../zookeeper")).isEqualTo("/locks/..%2F..%2Fzookeeper");
		assertThat(this.paths.lockPath("..")).isEqualTo("/locks/%2E%2E");
		assertThat(this.paths.lockPath(".")).isEqualTo("/locks/%2E");
		assertThat(this.paths.lockPath("...")).isEqualTo("/locks/...");
	}

	@Test
	void charactersZooKeeperRefusesAreEncodedAsUtf8() {
		assertThat(this.paths.nodeName("a\u0000b\nc\u007f\u0085")).isEqualTo("a%00b%0Ac%7F%C2%85");
		assertThat(this.paths.nodeName("\ud83d\udd12")).isEqualTo("%F0%9F%94%92");
		assertThat(this.paths.nodeName("\ue000\ufff0")).isEqualTo("%EE%80%80%EF%BF%B0");
	}

	@Test
	void encodingIsReversible() {
		for (String key : new String[] { "a/b", "a%2Fb", "%", "..", ".", "zookeeper", "a\u0000b\n\u0085",
				"\ud83d\udd12 \u9501 \ue000\uffff", "100%/50%" }) {
			assertThat(ZooKeeperLockPaths.keyOf(this.paths.nodeName(key))).isEqualTo(key);
		}
	}

	@Test
	void zookeeperIsEncodedOnlyDirectlyUnderTheRootOfTheTree() {
		assertThat(new ZooKeeperLockPaths("/").lockPath("zookeeper")).isEqualTo("/%7Aookeeper");
		assertThat(new ZooKeeperLockPaths("/").lockPath("order")).isEqualTo("/order");
		assertThat(this.paths.lockPath("zookeeper")).isEqualTo("/locks/zookeeper");
	}

	@Test
	void unpairedSurrogateIsRefusedWithItsPosition() {
		assertThatIllegalArgumentException().isThrownBy(() -> this.paths.lockPath("ab\ud83d"))
			.withMessageContaining("unpaired surrogate")
			.withMessageContaining("index 2");
	}

	@Test
	void keyLongerThanTheLimitOnceEscapedIsRefused() {
		assertThat(this.paths.nodeName("x".repeat(ZooKeeperLockPaths.MAX_NODE_NAME_BYTES))).hasSize(8192);
		assertThatIllegalArgumentException().isThrownBy(() -> this.paths.lockPath("/".repeat(3_000)))
			.withMessageContaining("3000 characters, 9000 bytes once escaped")
			.withMessageContaining("at most 8192 bytes");
	}

	@Test
	void rootMustBeAValidZooKeeperPath() {
		assertThatIllegalArgumentException().isThrownBy(() -> new ZooKeeperLockPaths("locks"))
			.withMessageContaining("'locks' is not a valid ZooKeeper path");
		assertThatIllegalArgumentException().isThrownBy(() -> new ZooKeeperLockPaths("/locks/"))
			.withMessageContaining("must not end with /");
		assertThat(new ZooKeeperLockPaths("/app/locks").lockPath("k")).isEqualTo("/app/locks/k");
	}

}
