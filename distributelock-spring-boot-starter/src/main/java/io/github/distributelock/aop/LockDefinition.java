package io.github.distributelock.aop;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.github.distributelock.LockFailedException;
import io.github.distributelock.LockMode;
import io.github.distributelock.LockRequest;
import org.jspecify.annotations.Nullable;

import org.springframework.expression.EvaluationException;
import org.springframework.expression.Expression;
import org.springframework.util.ObjectUtils;

/**
 * A {@link io.github.distributelock.Lockable @Lockable} method, checked and compiled
 * once: how to build its key from a call's arguments, how long to wait, which lease and
 * minimum hold to take, and whether to throw or skip when the lock is not taken.
 *
 * @since 1.0.0
 */
public final class LockDefinition {

	private final Method method;

	private final String name;

	private final String separator;

	private final Expression[] fields;

	private final String[] fieldSources;

	private final Map<String, Integer> argumentIndexByName;

	private final Duration waitTime;

	private final @Nullable Duration leaseTime;

	private final boolean failOnNullField;

	private final ReturnShape returnShape;

	private final Kind kind;

	private final Duration minimumHold;

	private final BusyPolicy busyPolicy;

	LockDefinition(Method method, String name, String separator, Expression[] fields, String[] fieldSources,
			Map<String, Integer> argumentIndexByName, Duration waitTime, @Nullable Duration leaseTime,
			boolean failOnNullField, ReturnShape returnShape, Kind kind, Duration minimumHold, BusyPolicy busyPolicy) {
		this.method = method;
		this.name = name;
		this.separator = separator;
		this.fields = fields;
		this.fieldSources = fieldSources;
		this.argumentIndexByName = argumentIndexByName;
		this.waitTime = waitTime;
		this.leaseTime = leaseTime;
		this.failOnNullField = failOnNullField;
		this.returnShape = returnShape;
		this.kind = kind;
		this.minimumHold = minimumHold;
		this.busyPolicy = busyPolicy;
	}

	/**
	 * The lock key for one call: the name, then each field's value after the separator.
	 * @param arguments the call's arguments
	 * @return the lock key
	 * @throws IllegalArgumentException if a field cannot be evaluated, or is null while
	 * null fields are refused
	 */
	public String lockKey(@Nullable Object[] arguments) {
		if (this.fields.length == 0) {
			return this.name;
		}
		return key(values(arguments));
	}

	/**
	 * What one call asks of the lock: its key, wait, lease and kind; with
	 * {@code keyPerElement}, a key for each element of the collection field, all at once.
	 * @param arguments the call's arguments
	 * @return the request
	 * @throws IllegalArgumentException if a field cannot be evaluated, is null while null
	 * fields are refused, or gives no key
	 */
	public LockRequest request(@Nullable Object[] arguments) {
		if (!this.kind.keyPerElement() || this.fields.length == 0) {
			return request(lockKey(arguments));
		}
		Object[] values = values(arguments);
		int collection = -1;
		for (int i = 0; i < values.length; i++) {
			if (values[i] instanceof Collection<?> || (values[i] != null && values[i].getClass().isArray())) {
				if (collection >= 0) {
					throw new IllegalArgumentException("@Lockable on " + InvalidLockableException.describe(this.method)
							+ ": fields '" + this.fieldSources[collection] + "' and '" + this.fieldSources[i]
							+ "' are both collections; with keyPerElement only one field may give several keys");
				}
				collection = i;
			}
		}
		if (collection < 0) {
			return request(key(values));
		}
		// Elements may be null: written into the key as "null", or refused below.
		List<@Nullable Object> elements = (values[collection] instanceof Collection<?> many) ? new ArrayList<>(many)
				: Arrays.asList(ObjectUtils.toObjectArray(values[collection]));
		if (elements.isEmpty()) {
			throw new IllegalArgumentException("@Lockable on " + InvalidLockableException.describe(this.method)
					+ ": field '" + this.fieldSources[collection] + "' is empty, so it gives no key to lock; "
					+ "nothing was locked");
		}
		Set<String> keys = new LinkedHashSet<>();
		for (Object element : elements) {
			if (element == null && this.failOnNullField) {
				throw new IllegalArgumentException("@Lockable on " + InvalidLockableException.describe(this.method)
						+ ": field '" + this.fieldSources[collection] + "' has a null element, so its lock key "
						+ "cannot name what it locks; nothing was locked. Pass no null elements, or set "
						+ "distributelock.fail-on-null-field=false to write \"null\" into the key");
			}
			values[collection] = element;
			keys.add(key(values));
		}
		LockRequest[] parts = keys.stream().map(this::request).toArray(LockRequest[]::new);
		return LockRequest.all(parts)
			.withName(this.name)
			.withWaitTime(this.waitTime)
			.withSkipWhenBusy(this.busyPolicy.skips());
	}

	private String key(@Nullable Object[] values) {
		StringBuilder key = new StringBuilder(this.name.length() + 16 * values.length).append(this.name);
		for (int i = 0; i < values.length; i++) {
			refuseUnstableText(values[i], i);
			key.append(this.separator).append(text(values[i]));
		}
		return key.toString();
	}

	private void refuseUnstableText(@Nullable Object value, int field) {
		UnstableTexts.Unstable unstable = UnstableTexts.unstableTextOf(value);
		if (unstable == null) {
			return;
		}
		Class<?> type = unstable.type();
		String source = this.fieldSources[field];
		String holds = "@Lockable on " + InvalidLockableException.describe(this.method) + ": field '" + source + "' "
				+ ((value != null && type == UnstableTexts.textClass(value)) ? "is" : "holds") + " a "
				+ type.getTypeName();
		if (unstable.cause() == UnstableTexts.Cause.ORDER) {
			throw new IllegalArgumentException(holds + ", which lists its elements in an order that differs between "
					+ "JVMs (Set.of and Map.of salt it per JVM; a hash set or map orders enums and objects without "
					+ "their own hashCode() by their identity, an IdentityHashMap every element): equal values would "
					+ "give different keys on different instances, so the lock would exclude nothing between them; "
					+ "nothing was locked. Pass the "
					+ "elements in an order of their own (a List, a TreeSet, a TreeMap, an EnumSet), or lock each "
					+ "element of a collection with @Lockable(keyPerElement = true)");
		}
		// An array in a collection is written by its own toString(), its identity.
		String fix = type.isArray() ? "Hold a List there instead of the array: a List writes its elements"
				: "Key by a property that names it (for example '" + source + ".id'), or give " + type.getSimpleName()
						+ " a toString() that writes its value";
		throw new IllegalArgumentException(
				holds + ", whose toString() and hashCode() are Object's: the key would hold the object's identity ("
						+ type.getName() + "@1b6d3586), which differs at every call and on every instance, so the lock "
						+ "would exclude nothing; nothing was locked. " + fix);
	}

	/**
	 * A value as the key writes it: its {@code toString()}, but an array's elements, as a
	 * list's are written; an array's own text is its identity ({@code [J@1b6d3586}),
	 * which would give every call a key of its own, and no lock.
	 */
	private static String text(@Nullable Object value) {
		if (value != null && value.getClass().isArray()) {
			return Arrays.deepToString(ObjectUtils.toObjectArray(value));
		}
		return String.valueOf(value);
	}

	private @Nullable Object[] values(@Nullable Object[] arguments) {
		ArgumentsEvaluationContext context = new ArgumentsEvaluationContext(this.argumentIndexByName, arguments);
		Object[] values = new Object[this.fields.length];
		for (int i = 0; i < this.fields.length; i++) {
			Object value;
			try {
				value = this.fields[i].getValue(context);
			}
			catch (EvaluationException ex) {
				throw new IllegalArgumentException("@Lockable on " + InvalidLockableException.describe(this.method)
						+ ": could not evaluate field '" + this.fieldSources[i] + "': " + ex.getMessage(), ex);
			}
			if (value == null && this.failOnNullField) {
				// One key for every call with a missing value would serialize unrelated
				// work, or hide a caller's bug.
				throw new IllegalArgumentException("@Lockable on " + InvalidLockableException.describe(this.method)
						+ ": field '" + this.fieldSources[i] + "' is null (or an object on its path is), so the "
						+ "lock key cannot name what it locks; nothing was locked. Pass a value, or set "
						+ "distributelock.fail-on-null-field=false to write \"null\" into the key");
			}
			values[i] = value;
		}
		return values;
	}

	/**
	 * The lock name, the fixed part of the key.
	 * @return the lock name
	 */
	public String name() {
		return this.name;
	}

	/**
	 * How long to wait for the lock.
	 * @return the wait time
	 */
	public Duration waitTime() {
		return this.waitTime;
	}

	/**
	 * The fixed lease, or {@code null} for a lease renewed by the watchdog.
	 * @return the lease
	 */
	public @Nullable Duration leaseTime() {
		return this.leaseTime;
	}

	/**
	 * How long the lock stays held at least after it was taken.
	 * @return the minimum hold, {@link Duration#ZERO} for none
	 * @since 1.0.0
	 */
	public Duration minimumHold() {
		return this.minimumHold;
	}

	/**
	 * Whether a call whose lock is busy is skipped, rather than failed with a
	 * {@link LockFailedException}.
	 * @return whether a busy lock skips the call
	 * @since 1.0.0
	 */
	public boolean skipsWhenBusy() {
		return this.busyPolicy.skips();
	}

	/**
	 * The request for the lock of one call: key, wait, lease, kind, minimum hold.
	 * @param lockKey the call's lock key
	 * @return the request
	 * @since 1.0.0
	 */
	public LockRequest request(String lockKey) {
		LockRequest request = LockRequest.of(lockKey)
			.withName(this.name)
			.withWaitTime(this.waitTime)
			.withLeaseTime(this.leaseTime)
			.withMode(this.kind.mode())
			.withFair(this.kind.fair())
			.withMinimumHold(this.minimumHold)
			.withSkipWhenBusy(this.busyPolicy.skips());
		return (this.kind.permits() > 0) ? request.withPermits(this.kind.permits()) : request;
	}

	ReturnShape returnShape() {
		return this.returnShape;
	}

	BusyPolicy busyPolicy() {
		return this.busyPolicy;
	}

	LockFailedException failure(String lockKey) {
		return this.busyPolicy.failure(lockKey);
	}

	/**
	 * The kind of lock the annotation asks for.
	 *
	 * @param mode the mode
	 * @param fair whether waiters are served in arrival order
	 * @param permits how many holders the key allows, or 0 for a lock
	 * @param keyPerElement whether a collection field gives a key per element
	 */
	record Kind(LockMode mode, boolean fair, int permits, boolean keyPerElement) {

		static final Kind EXCLUSIVE = new Kind(LockMode.EXCLUSIVE, false, 0, false);

	}

}
