package io.github.distributelock;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Runs the annotated method only while this instance holds a distributed lock.
 * <p>
 * The lock key is {@link #key()} followed, for each entry of {@link #fields()}, by the
 * separator ({@code _} by default) and the value of that entry evaluated against the
 * method's arguments. {@code @Lockable(key = "order.addOder", fields = {"product.id",
 * "token"})} called with a product whose id is 42 and the token {@code "abc"} locks
 * {@code order.addOder_42_abc}, the same key the original {@code cn.dslcode} starter
 * used.
 * <p>
 * The lock is taken before, and released after, any {@code @Transactional} on the same
 * method, so other instances only see the data once it is committed. A nested call on the
 * same thread for a key this thread already holds enters at once.
 * <p>
 * On a method that Spring's scheduler calls ({@code @Scheduled}), a busy lock skips the
 * run quietly instead of throwing, and {@link #minHoldMs()} keeps instances whose
 * schedules fire a little apart from running one tick twice: <pre class="code">
 * &#64;Scheduled(cron = "0 *&#47;15 * * * *")
 * &#64;Lockable(key = "report.job", minHoldMs = 60_000)
 * public void report() { ... }
 * </pre>
 * <p>
 * <b>Note:</b> like every Spring proxy-based annotation, it applies only to calls made
 * through the bean's proxy: a call from another method of the same object is not locked.
 *
 * @since 1.0.0
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Inherited
@Documented
public @interface Lockable {

	/**
	 * The name of the lock, the fixed part of the lock key.
	 * @return the lock name
	 */
	String key();

	/**
	 * How long to wait for the lock in milliseconds; {@code 0} makes one attempt and
	 * fails at once if another holder has the lock.
	 * @return the longest wait in milliseconds
	 */
	int waitTimeMs() default 0;

	/**
	 * The lease in milliseconds. A positive value is a fixed lease that is never renewed:
	 * the lock expires after that time even if the method still runs. The default,
	 * {@code -1}, is a lease renewed by a watchdog while the method runs (see
	 * {@code distributelock.watchdog-lease}). ZooKeeper has no lease: a lock lives as
	 * long as the session that holds it. A nested call that re-enters a lock its thread
	 * holds keeps the outer call's lease and minimum hold.
	 * @return the lease in milliseconds, or {@code -1} for an auto-renewed lease
	 */
	int timeoutMs() default -1;

	/**
	 * Expressions whose values are appended to the key, evaluated against the method's
	 * arguments: a property path rooted at a parameter name such as {@code "product.id"}
	 * (getters, public fields and inherited properties, any depth, {@code null} anywhere
	 * on the path gives {@code "null"}), or any SpEL expression such as {@code "#p0"} or
	 * {@code "#user.id + '-' + #type"}. A path whose root names no parameter fails at
	 * startup, and so does one that reads a property its declared class does not have; a
	 * step through an interface, an abstract class, {@code Object}, a map or an array is
	 * read from the argument at the call, as is every SpEL expression.
	 * @return the expressions appended to the key, in order
	 */
	String[] fields() default {};

	/**
	 * The failure message and optional code, as {@code "message|code"}, carried by the
	 * {@link LockFailedException} thrown when the lock cannot be taken. Empty uses
	 * {@code distributelock.fail-message}.
	 * @return the failure message and code
	 */
	String failMsg() default "";

	/**
	 * The mode: {@code EXCLUSIVE} (the default), or {@code READ} / {@code WRITE} for a
	 * read/write pair on the key: any number of readers at once, or one writer. See
	 * {@link LockMode}.
	 * @return the mode
	 * @since 1.0.0
	 */
	LockMode mode() default LockMode.EXCLUSIVE;

	/**
	 * Whether waiters, in every instance, get the lock in the order they asked for it.
	 * Only for an exclusive lock.
	 * @return whether the lock is fair
	 * @since 1.0.0
	 */
	boolean fair() default false;

	/**
	 * How many holders the key allows at once, as a semaphore whose holders each have a
	 * lease; {@code 0} (the default) for a lock. Only for an exclusive lock.
	 * @return the permits, or {@code 0}
	 * @since 1.0.0
	 */
	int permits() default 0;

	/**
	 * Whether a {@link #fields()} entry whose value is a collection or an array gives one
	 * key per element, all taken at once (all or nothing, in one global order, released
	 * in reverse), as for the stock of several products of one order. Off by default,
	 * where such a value is written into the key as text, as it always was. At most one
	 * entry may be a collection or an array; an empty one fails the call.
	 * @return whether a collection field gives a key per element
	 * @since 1.0.0
	 */
	boolean keyPerElement() default false;

	/**
	 * What a call does when the lock is busy, not taken within {@link #waitTimeMs()}.
	 * {@link OnBusy#DEFAULT} skips on a method annotated (or meta-annotated)
	 * {@code @Scheduled}, and throws {@link LockFailedException} on any other.
	 * @return what a call does when the lock is busy
	 * @since 1.0.0
	 */
	OnBusy onBusy() default OnBusy.DEFAULT;

	/**
	 * The minimum hold in milliseconds: the lock stays held at least this long after it
	 * was taken, even when the method returns sooner (ShedLock's {@code lockAtLeastFor}),
	 * so that another instance whose schedule fires a little later skips that tick
	 * instead of running it again. Set it a little shorter than the gap between two runs,
	 * and longer than the clock and start-up differences between instances. {@code 0},
	 * the default, releases the lock when the method returns. It may not exceed a fixed
	 * lease ({@link #timeoutMs()}). On a {@code @Scheduled} method whose fixed rate or
	 * delay it is not shorter than, the next run finds the lock still held and does not
	 * run, which a WARN at startup names.
	 * @return the minimum hold in milliseconds, or {@code 0} for none
	 * @since 1.0.0
	 */
	int minHoldMs() default 0;

	/**
	 * What a {@link Lockable @Lockable} method does when its lock is busy.
	 *
	 * @since 1.0.0
	 */
	enum OnBusy {

		/**
		 * {@link #SKIP} on a method Spring's scheduler calls (annotated, or
		 * meta-annotated, {@code @Scheduled}), {@link #FAIL} on any other.
		 */
		DEFAULT,

		/**
		 * Throw {@link LockFailedException} with the message and code of
		 * {@link Lockable#failMsg()}.
		 */
		FAIL,

		/**
		 * Skip the call: the method does not run, nothing is thrown, and the call returns
		 * {@code null}, or an empty {@link java.util.Optional} (also {@code OptionalInt},
		 * {@code OptionalLong}, {@code OptionalDouble}) or a
		 * {@link java.util.concurrent.CompletableFuture} completed with {@code null} for
		 * those return types. A method that returns a primitive cannot be skipped and
		 * fails at startup. The skip is logged at DEBUG and counted in the
		 * {@code distributelock.acquire} metric with {@code result=skipped}.
		 */
		SKIP

	}

}
