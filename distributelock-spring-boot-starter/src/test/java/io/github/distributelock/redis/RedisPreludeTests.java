package io.github.distributelock.redis;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class RedisPreludeTests {

	private static final String PRELUDE = """
			-- The functions the scripts share.

			-- The server's clock, read once.
			local server_time = nil
			local function clock()
			  if not server_time then
			    server_time = redis.call('TIME')
			  end
			  return server_time
			end

			local function n2s(x)
			  return string.format('%.0f', x)
			end

			-- Uses clock() and n2s(); does not use fair_attempt().
			local function next_token(fence)
			  return n2s(redis.call('INCR', fence) + clock()[1])
			end

			local function fair_attempt(word)
			  return next_token(word)
			end
			""";

	@Test
	void keepsTheFunctionsAScriptUsesAndThoseTheyUseInTheirOrder() {
		String needed = RedisPrelude.of(PRELUDE).neededBy("return next_token(KEYS[1])");

		assertThat(needed).contains("local server_time = nil", "local function clock()", "local function n2s(x)",
				"local function next_token(fence)");
		assertThat(needed).doesNotContain("fair_attempt(word)", "The functions the scripts share");
		assertThat(needed.indexOf("local function clock()")).isLessThan(needed.indexOf("local function n2s(x)"));
		assertThat(needed.indexOf("local function n2s(x)")).isLessThan(needed.indexOf("local function next_token"));
	}

	@Test
	void aFunctionNamedOnlyInACommentIsNotKept() {
		String needed = RedisPrelude.of(PRELUDE).neededBy("""
				-- Unlike fair_attempt(), this reads the clock itself.
				return redis.call('TIME')
				""");

		assertThat(needed).isEmpty();
	}

	@Test
	void aNameThatOnlyStartsLikeAFunctionDoesNotKeepIt() {
		String needed = RedisPrelude.of(PRELUDE).neededBy("local clock_text = 1 return n2s(clock_text)");

		assertThat(needed).contains("local function n2s(x)").doesNotContain("local function clock()");
	}

	@Test
	void theScriptsOfTheKindsAreLoadedWithoutTheFunctionsTheyDoNotUse() {
		assertThat(RedisKindScripts.SHARED_RELEASE.text()).contains("local function now_ms()")
			.doesNotContain("local function fair_attempt(");
		assertThat(RedisKindScripts.HAND_OVER.text()).contains("local function next_token(")
			.doesNotContain("local function prune_waiters(");
		assertThat(RedisKindScripts.FAIR_ACQUIRE.text()).contains("local function fair_attempt(",
				"local function prune_waiters(", "local function keep_queue_at_least(");
	}

}
