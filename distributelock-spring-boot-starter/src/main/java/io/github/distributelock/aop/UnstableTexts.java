package io.github.distributelock.aop;

import java.util.Collection;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.aop.support.AopUtils;

/**
 * Finds values whose text differs between calls or instances for equal values, so that a
 * lock key holding it locks nothing that another call would lock:
 * <ul>
 * <li>an object of a class that overrides neither {@code toString()} nor
 * {@code hashCode()} writes its identity, {@code com.shop.Order@1b6d3586}, which differs
 * at every call and on every instance. One that overrides {@code hashCode()} alone writes
 * its hash code, which keys it as before; a warning names its class once;</li>
 * <li>a set or map whose order of elements differs between JVMs writes them in that
 * order: {@code Set.of} and {@code Map.of} salt their order per JVM, a hash set or map
 * orders enums and objects hashed by identity by their identity, and an
 * {@code IdentityHashMap} orders every element so; a wrapper or a view of one lists them
 * in its order.</li>
 * </ul>
 */
final class UnstableTexts {

	private static final Log logger = LogFactory.getLog(UnstableTexts.class);

	/**
	 * How {@link Object#toString()} writes an object of a class that does not override
	 * it: {@code Class@hex(hashCode())}, its identity unless the class overrides
	 * {@code hashCode()}.
	 */
	private static final ClassValue<Text> TEXTS = new ClassValue<>() {

		@Override
		protected Text computeValue(Class<?> type) {
			if (!declaredByObject(type, "toString")) {
				return Text.OWN;
			}
			return declaredByObject(type, "hashCode") ? Text.IDENTITY : Text.HASH_CODE;
		}

	};

	/** The classes written by their hash code that a warning named already. */
	private static final Set<Class<?>> WARNED = ConcurrentHashMap.newKeySet();

	private UnstableTexts() {
	}

	/**
	 * The first part of {@code value}, or {@code value} itself, whose text in the key is
	 * not the same for equal values on every instance; {@code null} if there is none. The
	 * key writes an array as {@code Arrays.deepToString} does, its nested arrays too; a
	 * collection writes each element by its {@code toString()}, where an array writes its
	 * identity ({@code [[J@1b6d3586]}).
	 */
	static @Nullable Unstable unstableTextOf(@Nullable Object value) {
		if (value == null) {
			return null;
		}
		if (!value.getClass().isArray() && !(value instanceof Collection<?>) && !(value instanceof Map<?, ?>)
				&& !(value instanceof Optional<?>)) {
			// Most keys' values (a string, a number): no set of the containers met.
			return hasIdentityText(value) ? new Unstable(textClass(value), Cause.IDENTITY) : null;
		}
		Set<Object> seen = Collections.newSetFromMap(new IdentityHashMap<>());
		return value.getClass().isArray() ? inArray(value, seen) : written(value, seen);
	}

	/** As {@code Arrays.deepToString} writes an array's elements. */
	private static @Nullable Unstable inArray(Object array, Set<Object> seen) {
		if (!(array instanceof Object[] elements) || !seen.add(array)) {
			// An array of primitives writes its numbers; one met again writes "[...]".
			return null;
		}
		for (Object element : elements) {
			Unstable found = (element == null) ? null
					: element.getClass().isArray() ? inArray(element, seen) : written(element, seen);
			if (found != null) {
				return found;
			}
		}
		return null;
	}

	/** As {@code toString()} writes a value, a collection's elements included. */
	private static @Nullable Unstable written(Object value, Set<Object> seen) {
		if (hasIdentityText(value)) {
			return new Unstable(textClass(value), Cause.IDENTITY);
		}
		if (value instanceof Collection<?> elements && seen.add(value)) {
			Unstable found = inElements(value, elements, seen);
			return (found != null || !ElementOrders.differBetweenJvms(value, elements)) ? found
					: new Unstable(value.getClass(), Cause.ORDER);
		}
		if (value instanceof Map<?, ?> entries && seen.add(value)) {
			Unstable found = inElements(value, entries.keySet(), seen);
			found = (found != null) ? found : inElements(value, entries.values(), seen);
			return (found != null || !ElementOrders.differBetweenJvms(value, entries.keySet())) ? found
					: new Unstable(value.getClass(), Cause.ORDER);
		}
		if (value instanceof Optional<?> optional && optional.isPresent()) {
			return written(optional.get(), seen);
		}
		return null;
	}

	private static @Nullable Unstable inElements(Object container, Collection<?> elements, Set<Object> seen) {
		for (Object element : elements) {
			// A collection writes itself as "(this Collection)", a map "(this Map)".
			Unstable found = (element == null || element == container) ? null : written(element, seen);
			if (found != null) {
				return found;
			}
		}
		return null;
	}

	private static boolean hasIdentityText(Object value) {
		Class<?> type = textClass(value);
		Text text = TEXTS.get(type);
		if (text == Text.HASH_CODE && WARNED.add(type)) {
			// Its hash code may be its values' (Lombok, an IDE's), which keys it across
			// instances as before; or not (a JPA entity's getClass().hashCode()).
			logger.warn("Lock keys write " + type.getName() + " by Object.toString(), as " + type.getSimpleName()
					+ "@<hex of hashCode()>: locks on such keys exclude each other across instances only if "
					+ type.getSimpleName() + ".hashCode() depends on its values alone. Key by a property that names "
					+ "it (its id), or give " + type.getSimpleName() + " a toString() that writes its value");
		}
		return text == Text.IDENTITY;
	}

	private static boolean declaredByObject(Class<?> type, String method) {
		return declarer(type, method) == Object.class;
	}

	static Class<?> declarer(Class<?> type, String method) {
		try {
			return type.getMethod(method).getDeclaringClass();
		}
		catch (NoSuchMethodException ex) {
			// Every class has toString() and hashCode().
			return type;
		}
	}

	/**
	 * The class whose {@code toString()} writes {@code value}: a Spring AOP proxy's (a
	 * scoped bean, an advised one) hands it to its target, whatever the proxy's own class
	 * declares.
	 */
	static Class<?> textClass(Object value) {
		return AopUtils.getTargetClass(value);
	}

	/**
	 * A part of a key's value whose text is not the same for equal values everywhere.
	 *
	 * @param type the class of that part
	 * @param cause why its text differs
	 */
	record Unstable(Class<?> type, Cause cause) {
	}

	/** Why a part's text differs for equal values. */
	enum Cause {

		/** Its text is its identity. */
		IDENTITY,

		/** It lists its elements in an order that differs between JVMs. */
		ORDER

	}

	/** How a class's objects write their text. */
	private enum Text {

		/** By a {@code toString()} of their class's own. */
		OWN,

		/**
		 * As their identity: neither {@code toString()} nor {@code hashCode()}
		 * overridden.
		 */
		IDENTITY,

		/** As {@code Class@hex}, of a {@code hashCode()} of their class's own. */
		HASH_CODE

	}

}
