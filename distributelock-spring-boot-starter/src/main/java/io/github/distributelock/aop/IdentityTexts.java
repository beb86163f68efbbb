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
 * Finds values whose text is their identity: an object of a class that overrides neither
 * {@code toString()} nor {@code hashCode()} writes {@code com.shop.Order@1b6d3586}, which
 * differs at every call and on every instance, so a lock key holding it locks nothing
 * that another call would lock. One that overrides {@code hashCode()} alone writes its
 * hash code, which keys it as before; a warning names its class once.
 */
final class IdentityTexts {

	private static final Log logger = LogFactory.getLog(IdentityTexts.class);

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

	private IdentityTexts() {
	}

	/**
	 * The class of {@code value}, or of a value it holds, whose text in the key is
	 * {@link Object#toString()}'s; {@code null} if there is none. The key writes an array
	 * as {@code Arrays.deepToString} does, its nested arrays too; a collection writes
	 * each element by its {@code toString()}, where an array writes its identity
	 * ({@code [[J@1b6d3586]}).
	 */
	static @Nullable Class<?> identityTextOf(@Nullable Object value) {
		if (value == null) {
			return null;
		}
		if (!value.getClass().isArray() && !(value instanceof Collection<?>) && !(value instanceof Map<?, ?>)
				&& !(value instanceof Optional<?>)) {
			// Most keys' values (a string, a number): no set of the containers met.
			return hasIdentityText(value) ? textClass(value) : null;
		}
		Set<Object> seen = Collections.newSetFromMap(new IdentityHashMap<>());
		return value.getClass().isArray() ? inArray(value, seen) : written(value, seen);
	}

	/** As {@code Arrays.deepToString} writes an array's elements. */
	private static @Nullable Class<?> inArray(Object array, Set<Object> seen) {
		if (!(array instanceof Object[] elements) || !seen.add(array)) {
			// An array of primitives writes its numbers; one met again writes "[...]".
			return null;
		}
		for (Object element : elements) {
			Class<?> found = (element == null) ? null
					: element.getClass().isArray() ? inArray(element, seen) : written(element, seen);
			if (found != null) {
				return found;
			}
		}
		return null;
	}

	/** As {@code toString()} writes a value, a collection's elements included. */
	private static @Nullable Class<?> written(Object value, Set<Object> seen) {
		if (hasIdentityText(value)) {
			return textClass(value);
		}
		if (value instanceof Collection<?> elements && seen.add(value)) {
			return inElements(value, elements, seen);
		}
		if (value instanceof Map<?, ?> entries && seen.add(value)) {
			Class<?> found = inElements(value, entries.keySet(), seen);
			return (found != null) ? found : inElements(value, entries.values(), seen);
		}
		if (value instanceof Optional<?> optional && optional.isPresent()) {
			return written(optional.get(), seen);
		}
		return null;
	}

	private static @Nullable Class<?> inElements(Object container, Collection<?> elements, Set<Object> seen) {
		for (Object element : elements) {
			// A collection writes itself as "(this Collection)", a map "(this Map)".
			Class<?> found = (element == null || element == container) ? null : written(element, seen);
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
		try {
			return type.getMethod(method).getDeclaringClass() == Object.class;
		}
		catch (NoSuchMethodException ex) {
			// Every class has both.
			return false;
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
