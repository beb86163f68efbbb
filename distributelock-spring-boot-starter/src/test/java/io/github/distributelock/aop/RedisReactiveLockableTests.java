package io.github.distributelock.aop;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Predicate;

import io.github.distributelock.core.DefaultDistributeLock;
import io.github.distributelock.LockLostException;
import io.github.distributelock.LockRequest;
import io.github.distributelock.Lockable;
import io.github.distributelock.autoconfigure.DistributeLockAutoConfiguration;
import io.github.distributelock.autoconfigure.DistributeLockReactiveAutoConfiguration;
import io.github.distributelock.core.EventLoopThreads;
import io.github.distributelock.core.LockEventListener;
import io.github.distributelock.core.LockTracker;

import io.github.distributelock.reactive.BlockHoundExtension;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import org.junit.jupiter.api.extension.ExtendWith;

import io.github.distributelock.redis.EmbeddedRedisExtension;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.RedisStaticMasterReplicaConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettucePoolingClientConfiguration;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

/**
 * Reactive and asynchronous {@code @Lockable} methods on Redis.
 * <p>
 * Runs with BlockHound installed ({@link BlockHoundExtension}): a blocking call on a
 * Reactor or Netty thread, in the starter or the store's client, fails the test.
 */
@Tag("blockhound")
@ExtendWith(BlockHoundExtension.class)
class RedisReactiveLockableTests extends AbstractReactiveLockableTests {

	@RegisterExtension
	static final EmbeddedRedisExtension redis = new EmbeddedRedisExtension();

	@Override
	protected ApplicationContextRunner contextRunner() {
		return new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + redis.port(),
					"distributelock.type=redis", "spring.data.redis.lettuce.pool.enabled=false");
	}

	/**
	 * Spring Data opens the shared connection at its first use, with a blocking connect:
	 * with no startup probe to open it first, the first lock an application takes, on a
	 * Reactor thread, must not make that connect there (BlockHound fails it).
	 */
	@Test
	void theFirstLockOfTheApplicationTakenOnAReactorThreadDoesNotConnectThere() {
		contextRunner().withPropertyValues("distributelock.startup-check=none")
			.withConfiguration(AutoConfigurations.of(DistributeLockAutoConfiguration.class,
					DistributeLockReactiveAutoConfiguration.class))
			.withUserConfiguration(WorkConfiguration.class)
			.run((context) -> {
				Work work = context.getBean(Work.class);
				assertThat(work.inner().subscribeOn(Schedulers.parallel()).block(Duration.ofSeconds(30)))
					.isEqualTo("inner");
				assertThat(work.inner().subscribeOn(Schedulers.parallel()).block(Duration.ofSeconds(30)))
					.isEqualTo("inner");
			});
	}

	/**
	 * After {@code resetConnection()} (an application's recovery from a broken
	 * connection, or Spring Data's own validation replacing it), the factory connects
	 * again at the next use: a lock taken on a Reactor thread must not make that connect
	 * there (BlockHound fails it). Without a pool, which would take the connection back
	 * rather than close it.
	 */
	@Test
	void aLockTakenOnAReactorThreadAfterTheSharedConnectionWasResetDoesNotConnectThere() {
		lockOnReactorThreads().withPropertyValues("spring.data.redis.lettuce.pool.enabled=false").run((context) -> {
			Work work = context.getBean(Work.class);
			assertThat(work.inner().subscribeOn(Schedulers.parallel()).block(Duration.ofSeconds(30)))
				.isEqualTo("inner");
			context.getBean(LettuceConnectionFactory.class).resetConnection();
			assertThat(work.inner().subscribeOn(Schedulers.parallel()).block(Duration.ofSeconds(30)))
				.isEqualTo("inner");
			assertThat(work.inner().subscribeOn(Schedulers.parallel()).block(Duration.ofSeconds(30)))
				.isEqualTo("inner");
		});
	}

	/**
	 * With Lettuce's pool, {@code resetConnection()} gives the shared connection back to
	 * the pool open, and the factory takes one from the pool at its next use: here a
	 * transaction has taken the old one, so the factory connects a new one, which a lock
	 * taken on a Reactor thread must not make there (BlockHound fails it). Nor does the
	 * lock's script go into the transaction.
	 */
	@Test
	void aLockTakenOnAReactorThreadAfterAPooledSharedConnectionWasResetDoesNotConnectThere() {
		lockOnReactorThreads().withPropertyValues("spring.data.redis.lettuce.pool.enabled=true").run((context) -> {
			Work work = context.getBean(Work.class);
			assertThat(work.inner().subscribeOn(Schedulers.parallel()).block(Duration.ofSeconds(30)))
				.isEqualTo("inner");
			LettuceConnectionFactory factory = context.getBean(LettuceConnectionFactory.class);
			assertThat(factory.getClientConfiguration()).isInstanceOf(LettucePoolingClientConfiguration.class);
			try (RedisConnection transaction = factory.getConnection()) {
				factory.resetConnection();
				transaction.multi();
				transaction.stringCommands().set(bytes("in-transaction"), bytes("1"));
				assertThat(work.inner().subscribeOn(Schedulers.parallel()).block(Duration.ofSeconds(30)))
					.isEqualTo("inner");
				assertThat(transaction.exec()).hasSize(1);
			}
			assertThat(work.inner().subscribeOn(Schedulers.parallel()).block(Duration.ofSeconds(30)))
				.isEqualTo("inner");
		});
	}

	/**
	 * A {@code resetConnection()} can land between a call's look at the shared connection
	 * (open) and its taking a connection from the factory, which then connects: a lock
	 * taken on a Reactor thread while the shared connection is open must not ask the
	 * factory there (BlockHound fails the connect). Without a pool.
	 */
	@Test
	void aResetRacingALockTakenOnAReactorThreadDoesNotMakeItConnectThere() {
		lockOnReactorThreads().withUserConfiguration(ResetRacingConfiguration.class).run((context) -> {
			Work work = context.getBean(Work.class);
			assertThat(work.inner().subscribeOn(Schedulers.parallel()).block(Duration.ofSeconds(30)))
				.isEqualTo("inner");
			ResetRacingFactory factory = context.getBean(ResetRacingFactory.class);
			factory.armed.set(true);
			assertThat(work.inner().subscribeOn(Schedulers.parallel()).block(Duration.ofSeconds(30)))
				.isEqualTo("inner");
			assertThat(factory.armed).as("asked for a connection on an event loop").isTrue();
		});
	}

	/**
	 * The client of a static master/replica factory cannot open the lock's own
	 * connection, so the lock sends on the factory's shared connection, which Spring Data
	 * opens at its first use and again after {@code resetConnection()}, with a blocking
	 * connect: a lock taken on a Reactor thread must make neither there (BlockHound fails
	 * them).
	 */
	@Test
	void aLockOnAStaticMasterReplicaFactoryTakenOnAReactorThreadDoesNotConnectThere() {
		lockOnReactorThreads().withUserConfiguration(StaticMasterReplicaConfiguration.class).run((context) -> {
			Work work = context.getBean(Work.class);
			for (int i = 0; i < 2; i++) {
				assertThat(work.inner().subscribeOn(Schedulers.parallel()).block(Duration.ofSeconds(30)))
					.isEqualTo("inner");
				assertThat(work.inner().subscribeOn(Schedulers.parallel()).block(Duration.ofSeconds(30)))
					.isEqualTo("inner");
				context.getBean(LettuceConnectionFactory.class).resetConnection();
			}
		});
	}

	/**
	 * With replica acknowledgements, the lock writes on a connection of its own, which it
	 * opens at its first use with a blocking connect: a lock taken on a Reactor thread
	 * must not make that connect there (BlockHound fails it). No replica acknowledges
	 * here, so the lock is refused for that.
	 */
	@Test
	void theFirstLockWithReplicaAcknowledgementsTakenOnAReactorThreadDoesNotConnectThere() {
		lockOnReactorThreads()
			.withPropertyValues("distributelock.redis.min-replicas-to-ack=1",
					"distributelock.redis.replica-ack-timeout=50ms")
			.run((context) -> {
				Work work = context.getBean(Work.class);
				Throwable failure = catchThrowable(
						() -> work.inner().subscribeOn(Schedulers.parallel()).block(Duration.ofSeconds(30)));
				assertThat(failure).hasStackTraceContaining("replicas required");
			});
	}

	/**
	 * With {@code validateConnection}, the factory sends a blocking PING at every use of
	 * its shared connection, and connects again when it fails: a lock taken on a Reactor
	 * thread must make neither there (BlockHound fails them).
	 */
	@Test
	void aLockTakenOnAReactorThreadWithAValidatingFactoryDoesNotPingThere() {
		lockOnReactorThreads().run((context) -> {
			context.getBean(LettuceConnectionFactory.class).setValidateConnection(true);
			Work work = context.getBean(Work.class);
			for (int i = 0; i < 3; i++) {
				assertThat(work.inner().subscribeOn(Schedulers.parallel()).block(Duration.ofSeconds(30)))
					.isEqualTo("inner");
			}
		});
	}

	/**
	 * With {@code throw-on-lost}, a lock lost in the store while the work runs (its key
	 * deleted, as a lease that ran out or an eviction does) is found at the release: a
	 * locked {@code Mono} ends with {@code LockLostException} instead of its value, and a
	 * locked future, which has completed when its lock is released, completes with its
	 * value while the loss is logged with the key (docs/configuration.md).
	 */
	@Test
	@ExtendWith(OutputCaptureExtension.class)
	void aLockLostInTheStoreWhileTheWorkRunsEndsAMonoWithTheLossAndIsLoggedForAFuture(CapturedOutput output) {
		lockOnReactorThreads().withPropertyValues("distributelock.throw-on-lost=true")
			.withBean(LosingWork.class)
			.run((context) -> {
				LosingWork work = context.getBean(LosingWork.class);
				StringRedisTemplate store = context.getBean(StringRedisTemplate.class);
				CompletableFuture<String> mono = work.mono().toFuture();
				CompletableFuture<String> future = work.future();
				await().atMost(Duration.ofSeconds(10))
					.until(() -> store.hasKey("lock:lost.mono") && store.hasKey("lock:lost.future"));
				assertThat(store.delete(List.of("lock:lost.mono", "lock:lost.future"))).isEqualTo(2);
				work.open("done");
				assertThat(mono).failsWithin(Duration.ofSeconds(30))
					.withThrowableThat()
					.havingCause()
					.isInstanceOf(LockLostException.class)
					.withMessageContaining("lost.mono");
				assertThat(future).succeedsWithin(Duration.ofSeconds(30)).isEqualTo("done");
				await().atMost(Duration.ofSeconds(10))
					.untilAsserted(() -> assertThat(output.getOut())
						.contains("Could not release lock 'lost.future' after the stage it guarded completed")
						.contains(LockLostException.class.getName()));
				assertThat(context.getBean(DefaultDistributeLock.class).heldLocks()).isEmpty();
			});
	}

	/**
	 * Releases made with {@code releaseAsync()} on Reactor's parallel threads, and on the
	 * client's I/O threads where the acquisitions complete, while many other
	 * subscriptions on those threads wait for the same keys, block none of them
	 * (BlockHound fails a blocking call). The lock event listener is told of each
	 * acquisition on the thread that asked for it, here a Reactor thread, which is why a
	 * listener must not block (docs/reactive.md).
	 */
	@Test
	void releasesOnABusyParallelSchedulerBlockNoThreadAndListenersAreToldOnTheAskingThread() {
		List<Boolean> toldOnAnEventLoop = new CopyOnWriteArrayList<>();
		LockEventListener listener = (key, name, backend) -> {
			toldOnAnEventLoop.add(EventLoopThreads.onAnEventLoop());
			return LockTracker.NONE;
		};
		lockOnReactorThreads().withBean(LockEventListener.class, () -> listener).run((context) -> {
			DefaultDistributeLock lock = context.getBean(DefaultDistributeLock.class);
			List<String> keys = List.of("busy.a", "busy.b", "busy.c", "busy.d");
			Long released = Flux.range(0, 200)
				.flatMap((i) -> Mono
					.defer(() -> Mono.fromFuture(lock.tryAcquireAsync(
							LockRequest.of(keys.get(i % keys.size())).withWaitTime(Duration.ofSeconds(30)))))
					.flatMap((taken) -> Mono.fromFuture(taken.orElseThrow()::releaseAsync).thenReturn(i))
					.subscribeOn(Schedulers.parallel()), 32)
				.count()
				.block(Duration.ofSeconds(60));
			assertThat(released).isEqualTo(200);
			assertThat(toldOnAnEventLoop).hasSize(200).containsOnly(true);
			assertThat(lock.heldLocks()).isEmpty();
			Predicate<String> locked = lockedInStore(context);
			assertThat(keys).noneMatch(locked);
		});
	}

	/** Work that waits, under its lock, for the test to have deleted the lock's key. */
	public static class LosingWork {

		private final CompletableFuture<String> gate = new CompletableFuture<>();

		/** Ends the work; a method, as the test holds the bean's class proxy. */
		public void open(String value) {
			this.gate.complete(value);
		}

		@Lockable(key = "lost.mono")
		public Mono<String> mono() {
			return Mono.fromFuture(this.gate, true);
		}

		@Lockable(key = "lost.future")
		public CompletableFuture<String> future() {
			return this.gate.thenApply((value) -> value);
		}

	}

	private ApplicationContextRunner lockOnReactorThreads() {
		return contextRunner().withPropertyValues("distributelock.startup-check=none")
			.withConfiguration(AutoConfigurations.of(DistributeLockAutoConfiguration.class,
					DistributeLockReactiveAutoConfiguration.class))
			.withUserConfiguration(WorkConfiguration.class);
	}

	@Configuration(proxyBeanMethods = false)
	static class StaticMasterReplicaConfiguration {

		@Bean
		LettuceConnectionFactory redisConnectionFactory() {
			return new LettuceConnectionFactory(new RedisStaticMasterReplicaConfiguration("127.0.0.1", redis.port()));
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class ResetRacingConfiguration {

		@Bean
		ResetRacingFactory redisConnectionFactory() {
			return new ResetRacingFactory(new RedisStandaloneConfiguration("127.0.0.1", redis.port()));
		}

	}

	/**
	 * Once armed, resets its shared connection when an event loop asks it for a
	 * connection, as another thread's reset could at that moment.
	 */
	static class ResetRacingFactory extends LettuceConnectionFactory {

		final AtomicBoolean armed = new AtomicBoolean();

		ResetRacingFactory(RedisStandaloneConfiguration configuration) {
			super(configuration);
		}

		@Override
		public RedisConnection getConnection() {
			if (EventLoopThreads.onAnEventLoop() && this.armed.compareAndSet(true, false)) {
				resetAsIfOnAnotherThread();
			}
			return super.getConnection();
		}

		/**
		 * Closes the connection and waits for it to close: {@link BlockHoundExtension}
		 * allows it, since another thread would make it.
		 */
		void resetAsIfOnAnotherThread() {
			resetConnection();
		}

	}

	private static byte[] bytes(String text) {
		return text.getBytes(StandardCharsets.UTF_8);
	}

	@Override
	protected Predicate<String> lockedInStore(AssertableApplicationContext context) {
		StringRedisTemplate store = context.getBean(StringRedisTemplate.class);
		return (key) -> Boolean.TRUE.equals(store.hasKey("lock:" + key));
	}

}
