package io.github.distributelock.autoconfigure;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.security.Principal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import com.jayway.jsonpath.DocumentContext;
import com.jayway.jsonpath.JsonPath;
import io.github.distributelock.DistributeLock;
import io.github.distributelock.LockHandle;
import io.github.distributelock.redis.EmbeddedRedisExtension;
import jakarta.servlet.Filter;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What an operator sees over HTTP in a web application with the actuator and Prometheus:
 * the health of the lock store, the held locks (their owners masked unless
 * {@code show-values} allows the caller to see them), and the lock metrics.
 */
class DistributeLockActuatorWebTests {

	@RegisterExtension
	static final EmbeddedRedisExtension redis = new EmbeddedRedisExtension();

	private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

	@Test
	void healthEndpointAndPrometheusShowTheLocks() throws Exception {
		try (ConfigurableApplicationContext context = new SpringApplicationBuilder(WebApplication.class)
			.properties("server.port=0", "spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + redis.port(),
					"distributelock.type=redis",
					"management.endpoints.web.exposure.include=health,distributelocks,prometheus",
					"management.endpoint.health.show-details=always")
			.run()) {
			int port = ((WebServerApplicationContext) context).getWebServer().getPort();
			DistributeLock lock = context.getBean(DistributeLock.class);
			try (LockHandle handle = lock.tryAcquire("web:42", Duration.ZERO, null).orElseThrow()) {
				DocumentContext locks = JsonPath.parse(get(port, "/actuator/distributelocks"));
				assertThat(lock.tryLock("web:report", "value-1", 0, 60_000)).isTrue();
				DocumentContext both = JsonPath.parse(get(port, "/actuator/distributelocks"));
				assertThat(both.<Number>read("$.locks[1].leaseMs").longValue()).isEqualTo(60_000);
				assertThat(both.<String>read("$.locks[1].owner")).isEqualTo("******");
				assertThat(locks.<String>read("$.locks[0].owner")).isEqualTo("******");
				assertThat(both.jsonString()).doesNotContain("value-1");
				assertThat(both.<Map<String, Object>>read("$.locks[1]")).doesNotContainKey("thread");
				assertThat(lock.releaseLock("web:report", "value-1")).isTrue();
				assertThat(locks.<String>read("$.locks[0].key")).isEqualTo("web:42");
				assertThat(locks.<String>read("$.locks[0].backend")).isEqualTo("redis");
				assertThat(locks.<String>read("$.locks[0].since")).matches("\\d{4}-\\d{2}-\\d{2}T.*Z");
				assertThat(locks.<Number>read("$.locks[0].leaseMs").longValue()).isEqualTo(30_000);
				assertThat(locks.<Boolean>read("$.locks[0].renewed")).isTrue();
				assertThat(locks.<String>read("$.locks[0].leaseExpiresAt")).matches("\\d{4}-\\d{2}-\\d{2}T.*Z");
				assertThat(both.<Boolean>read("$.locks[1].renewed")).isFalse();
				assertThat(locks.<Number>read("$.locks[0].fencingToken").longValue()).isEqualTo(handle.fencingToken());
				assertThat(locks.<String>read("$.locks[0].thread")).isEqualTo(Thread.currentThread().getName());
				assertThat(locks.<String>read("$.locks[0].kind")).isEqualTo("exclusive");
				assertThat(locks.<Number>read("$.locks[0].permits").intValue()).isEqualTo(1);
				assertThat(locks.<Number>read("$.locks[0].holds").intValue()).isEqualTo(1);
			}
			DocumentContext health = JsonPath.parse(get(port, "/actuator/health"));
			assertThat(health.<String>read("$.components.distributeLock.status")).isEqualTo("UP");
			assertThat(health.<String>read("$.components.distributeLock.details.backend")).isEqualTo("redis");
			assertThat(health.<Number>read("$.components.distributeLock.details.roundTripMs").doubleValue())
				.isPositive();
			String prometheus = get(port, "/actuator/prometheus");
			assertThat(prometheus).containsPattern(
					"distributelock_acquire_seconds_count\\{backend=\"redis\",error=\"none\",lock_kind=\"exclusive\",lock_name=\"web\",result=\"acquired\"} 2")
				.containsPattern(
						"distributelock_hold_seconds_count\\{backend=\"redis\",error=\"none\",lock_kind=\"exclusive\",lock_name=\"web\",outcome=\"released\"} 2")
				.contains(
						"distributelock_hold_active_seconds_count{backend=\"redis\",lock_kind=\"exclusive\",lock_name=\"web\"} 0")
				// The key's id is no tag value (another meter's, such as HikariPool-1142,
				// may end in 42).
				.doesNotContain("web:42")
				.doesNotContainPattern("lock_name=\"[^\"]*42\"");
		}
	}

	@Test
	void ownersAreShownWhenShowValuesIsAlways() throws Exception {
		try (ConfigurableApplicationContext context = new SpringApplicationBuilder(WebApplication.class)
			.properties(properties("management.endpoint.distributelocks.show-values=always"))
			.run()) {
			int port = ((WebServerApplicationContext) context).getWebServer().getPort();
			DistributeLock lock = context.getBean(DistributeLock.class);
			assertThat(lock.tryLock("web:report", "value-1", 0, 60_000)).isTrue();
			try {
				DocumentContext locks = JsonPath.parse(get(port, "/actuator/distributelocks"));
				assertThat(locks.<String>read("$.locks[0].owner")).isEqualTo("value-1");
			}
			finally {
				assertThat(lock.releaseLock("web:report", "value-1")).isTrue();
			}
		}
	}

	@Test
	void ownersAreShownWhenAuthorizedOnlyToUsersInTheRoles() throws Exception {
		try (ConfigurableApplicationContext context = new SpringApplicationBuilder(WebApplication.class,
				HeaderAuthentication.class)
			.properties(properties("management.endpoint.distributelocks.show-values=when-authorized",
					"management.endpoint.distributelocks.roles=OPS"))
			.run()) {
			int port = ((WebServerApplicationContext) context).getWebServer().getPort();
			DistributeLock lock = context.getBean(DistributeLock.class);
			assertThat(lock.tryLock("web:report", "value-1", 0, 60_000)).isTrue();
			try {
				assertThat(ownerShownTo(port, null)).isEqualTo("******");
				assertThat(ownerShownTo(port, "alice:DEV")).isEqualTo("******");
				assertThat(ownerShownTo(port, "bob:DEV,OPS")).isEqualTo("value-1");
			}
			finally {
				assertThat(lock.releaseLock("web:report", "value-1")).isTrue();
			}
		}
	}

	private String ownerShownTo(int port, @Nullable String user) throws Exception {
		return JsonPath.parse(get(port, "/actuator/distributelocks", user)).read("$.locks[0].owner");
	}

	private static String[] properties(String... more) {
		List<String> properties = new ArrayList<>(
				List.of("server.port=0", "spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + redis.port(),
						"distributelock.type=redis", "management.endpoints.web.exposure.include=distributelocks"));
		properties.addAll(List.of(more));
		return properties.toArray(String[]::new);
	}

	private String get(int port, String path) throws IOException, InterruptedException {
		return get(port, path, null);
	}

	private String get(int port, String path, @Nullable String user) throws IOException, InterruptedException {
		HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
			.timeout(Duration.ofSeconds(10));
		if (user != null) {
			request.header(HeaderAuthentication.HEADER, user);
		}
		HttpResponse<String> response = this.http.send(request.build(), HttpResponse.BodyHandlers.ofString());
		assertThat(response.statusCode()).as("GET %s: %s", path, response.body()).isEqualTo(200);
		return response.body();
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class WebApplication {

	}

	/**
	 * Stands in for the container's or Spring Security's authentication: a request with
	 * the header {@value #HEADER} {@code name:ROLE,ROLE} is made by that user, in those
	 * roles, as the actuator sees it through the servlet request.
	 */
	@Configuration(proxyBeanMethods = false)
	static class HeaderAuthentication {

		static final String HEADER = "X-Test-User";

		@Bean
		Filter headerAuthenticationFilter() {
			return (request, response, chain) -> {
				String user = ((HttpServletRequest) request).getHeader(HEADER);
				chain.doFilter((user != null) ? authenticated((HttpServletRequest) request, user) : request, response);
			};
		}

		private static HttpServletRequest authenticated(HttpServletRequest request, String user) {
			String name = user.substring(0, user.indexOf(':'));
			List<String> roles = List.of(user.substring(user.indexOf(':') + 1).split(","));
			return new HttpServletRequestWrapper(request) {

				@Override
				public Principal getUserPrincipal() {
					return () -> name;
				}

				@Override
				public boolean isUserInRole(String role) {
					return roles.contains(role);
				}

			};
		}

	}

}
