package io.github.distributelock.aop;

import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Hashtable;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.Spliterator;
import java.util.WeakHashMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArraySet;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Tells a set or map whose order of elements differs between JVMs, for
 * {@link UnstableTexts}: {@code Set.of} and {@code Map.of} salt their order per JVM, a
 * hash set or map orders enums and objects hashed by identity by their identity, and an
 * {@code IdentityHashMap} orders every element so; a wrapper or a view of one lists them
 * in its order.
 */
final class ElementOrders {

	private static final Log logger = LogFactory.getLog(ElementOrders.class);

	/**
	 * Whether a class's objects are hashed by their identity, which differs between JVMs:
	 * an enum's {@code hashCode()} is {@link Enum}'s, final.
	 */
	private static final ClassValue<Boolean> HASHED_BY_IDENTITY = new ClassValue<>() {

		@Override
		protected Boolean computeValue(Class<?> type) {
			Class<?> declaring = UnstableTexts.declarer(type, "hashCode");
			return declaring == Object.class || declaring == Enum.class;
		}

	};

	/**
	 * In what order a spliterator of the JDK's hash maps (of their key and entry sets,
	 * the sets over them, and any wrapper of those) lists the elements; such a
	 * spliterator is a nested class of its map, and its name says what it splits.
	 */
	private static final ClassValue<Order> ORDERS = new ClassValue<>() {

		@Override
		protected Order computeValue(Class<?> type) {
			Class<?> map = type.getEnclosingClass();
			if (map != HashMap.class && map != ConcurrentHashMap.class && map != WeakHashMap.class
					&& map != IdentityHashMap.class) {
				return Order.UNKNOWN;
			}
			if (type.getSimpleName().startsWith("Value")) {
				return Order.KEYS;
			}
			return (map == IdentityHashMap.class) ? Order.IDENTITY : Order.HASH;
		}

	};

	private ElementOrders() {
	}

	/**
	 * Whether equal {@code container}s of these {@code elements} (a map's keys) may list
	 * them in another order on another JVM. A wrapper
	 * ({@code Collections.unmodifiableSet}, {@code synchronizedMap}, {@code checkedSet})
	 * or a view ({@code keySet()}) lists them in the order of the set or map behind it,
	 * which is not its own class and which no public API reaches; its spliterator is that
	 * set's or map's, though, or tells whether it has an order of its own
	 * ({@link Spliterator#ORDERED}). A wrapper or view whose spliterator is the default
	 * one of a set is asked whether {@code Set.of}, {@code Map.of} or a {@code Hashtable}
	 * stores its elements ({@link Store}). A set or map without an order, whose store is
	 * not known, is taken to be a hash set or map unless it lists its elements as an
	 * {@code EnumSet} or {@code EnumMap} does: a hash set that happens to list them so on
	 * this JVM is then keyed, and refused on a JVM where it does not; equal values never
	 * lock two keys.
	 */
	static boolean differBetweenJvms(Object container, Collection<?> elements) {
		if (container instanceof List<?> || container instanceof Queue<?> || elements.size() < 2) {
			return false;
		}
		if (container.getClass().getName().startsWith("java.util.ImmutableCollections$")) {
			// Set.of, Map.of, Set.copyOf, Collectors.toUnmodifiableSet: salted per JVM.
			return true;
		}
		Spliterator<?> spliterator = elements.spliterator();
		Order order = ORDERS.get(spliterator.getClass());
		if (order == Order.IDENTITY) {
			return true;
		}
		if (order == Order.UNKNOWN && !spliterator.hasCharacteristics(Spliterator.ORDERED)) {
			Order stored = Store.orderOf(elements);
			if (stored == Order.SALTED) {
				// A wrapper or a view of Set.of or Map.of, whatever the elements.
				return true;
			}
			order = stored;
		}
		if (!anyHashedByIdentity(elements)) {
			// Hash codes of values: the same order on every JVM.
			return false;
		}
		if (order == Order.HASH || hashOrdered(container)) {
			return true;
		}
		if (order == Order.KEYS || spliterator.hasCharacteristics(Spliterator.ORDERED)
				|| container instanceof CopyOnWriteArraySet<?>) {
			// A map's values follow its keys, not seen here; an order of their own
			// otherwise (insertion, sorted).
			return false;
		}
		// A collection neither a set nor a map (a map's values()) may follow keys not
		// seen here.
		return (container instanceof Set<?> || container instanceof Map<?, ?>) && !inEnumOrder(elements);
	}

	private static boolean anyHashedByIdentity(Collection<?> elements) {
		for (Object element : elements) {
			Object hashed = (element instanceof Map.Entry<?, ?> entry) ? entry.getKey() : element;
			if (hashed != null && HASHED_BY_IDENTITY.get(hashed.getClass())) {
				return true;
			}
		}
		return false;
	}

	/**
	 * Whether {@code elements} (or their keys) are constants of one enum listed by their
	 * ordinal, as an {@code EnumSet} or {@code EnumMap} lists them.
	 */
	private static boolean inEnumOrder(Collection<?> elements) {
		@Nullable Class<?> type = null;
		int last = -1;
		for (Object element : elements) {
			Object listed = (element instanceof Map.Entry<?, ?> entry) ? entry.getKey() : element;
			if (!(listed instanceof Enum<?> constant) || (type != null && constant.getDeclaringClass() != type)
					|| constant.ordinal() <= last) {
				return false;
			}
			type = constant.getDeclaringClass();
			last = constant.ordinal();
		}
		return true;
	}

	/** Whether the container lists its elements in the order of their hash codes. */
	private static boolean hashOrdered(Object container) {
		return (container instanceof HashSet<?> && !(container instanceof LinkedHashSet<?>))
				|| (container instanceof HashMap<?, ?> && !(container instanceof LinkedHashMap<?, ?>))
				|| container instanceof Hashtable<?, ?> || container instanceof ConcurrentHashMap<?, ?>
				|| container instanceof ConcurrentHashMap.KeySetView<?, ?>;
	}

	/**
	 * Tells in what order a wrapper or a view lists its elements where its spliterator is
	 * the default one of a set, which any set may have, and no public API of the wrapper
	 * reaches the set or map behind it: salted by {@code Set.of} or {@code Map.of} (or
	 * {@code Set.copyOf}, {@code Collectors.toUnmodifiableSet} ...), or by their hash
	 * codes in a {@code Hashtable}'s key set. Its {@code contains} hands a probe to the
	 * set or map that stores the elements, which calls the probe's {@code hashCode()} or
	 * {@code equals} to look for it; the probe asks who called.
	 */
	private static final class Store {

		private static final String IMMUTABLE_COLLECTIONS = "java.util.ImmutableCollections$";

		private static final String HASHTABLE = Hashtable.class.getName();

		private static final StackWalker STACK = StackWalker.getInstance();

		/** The class that compared the probe first, or hashed it. */
		private @Nullable String caller;

		static Order orderOf(Collection<?> elements) {
			Store probe = new Store();
			try {
				elements.contains(probe);
			}
			catch (RuntimeException ex) {
				// A set that refuses a stranger (a sorted set's ClassCastException):
				// not one of the JDK's that the probe tells apart, which answer false.
				logger.debug("Could not tell where " + elements.getClass().getName() + " stores its elements", ex);
				return Order.UNKNOWN;
			}
			String caller = probe.caller;
			if (caller != null && caller.startsWith(IMMUTABLE_COLLECTIONS)) {
				return Order.SALTED;
			}
			return HASHTABLE.equals(caller) ? Order.HASH : Order.UNKNOWN;
		}

		private void called() {
			if (this.caller == null) {
				this.caller = STACK.walk((frames) -> frames.map(StackWalker.StackFrame::getClassName)
					.filter((name) -> !name.equals(Store.class.getName()))
					.findFirst()
					.orElse(null));
			}
		}

		@Override
		public boolean equals(@Nullable Object other) {
			called();
			return this == other;
		}

		@Override
		public int hashCode() {
			called();
			return 0;
		}

	}

	/** In what order a spliterator lists its elements. */
	private enum Order {

		/** By their hash codes. */
		HASH,

		/** Salted per JVM, whatever the elements. */
		SALTED,

		/** By their identity, whatever their hash codes. */
		IDENTITY,

		/** By the keys of a map whose values they are. */
		KEYS,

		/** Not known from its class. */
		UNKNOWN

	}

}
